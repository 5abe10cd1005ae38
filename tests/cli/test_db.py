"""``crokinole db upgrade``: a database brought to the newest schema, and plain errors."""

from __future__ import annotations

from pathlib import Path

import pytest
import sqlalchemy as sa

from crokinole.cli.main import main
from crokinole.store import Store
from tests.support.store_rooms import add_room

HEAD = Store.newest_revision()


def test_a_new_database_is_created_and_upgraded_then_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "new" / "crokinole.db"
    assert main(["db", "upgrade", "--db", str(db)]) == 0
    assert capsys.readouterr().out == (
        f"crokinole: upgraded the database {db} from schema none to {HEAD}\n"
    )
    assert main(["db", "upgrade", "--db", str(db)]) == 0
    assert (
        capsys.readouterr().out == f"crokinole: the database {db} is up to date (schema {HEAD})\n"
    )
    store = Store.open(f"sqlite:///{db}", migrate=False)
    assert store.revision() == HEAD and store.table("t1") is None
    store.close()


def test_an_older_database_keeps_its_games(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "old.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    Store(engine).migrate("0003")
    add_room(engine, "r1", "tok", "easy", scoring="to_100")
    engine.dispose()
    assert main(["db", "upgrade", "--db", f"sqlite:///{db}"]) == 0
    assert f"from schema 0003 to {HEAD}" in capsys.readouterr().out
    store = Store.open(str(db), migrate=False)
    assert store.room("r1") is not None and store.revision() == HEAD
    store.close()


def test_a_database_from_a_newer_version_is_refused_in_plain_words(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "newer.db"
    engine = sa.create_engine(f"sqlite:///{db}")
    Store(engine).migrate()
    with engine.begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999'"))
    engine.dispose()
    assert main(["db", "upgrade", "--db", str(db)]) == 1
    err = capsys.readouterr().err
    assert "its schema 9999 is not one this version of crokinole knows" in err
    assert f"the newest it knows is {HEAD}" in err


def test_an_unreachable_server_is_a_plain_error_without_the_password(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("psycopg", reason="the PostgreSQL driver psycopg is not installed")
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    url = "postgresql+psycopg://crokinole:secret@127.0.0.1:1/crokinole"
    assert main(["db", "upgrade", "--db", url]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "crokinole: cannot upgrade the database "
        "postgresql+psycopg://crokinole:***@127.0.0.1:1/crokinole: "
    )
    assert "secret" not in err and "refused" in err.lower() and err.count("\n") == 1


def test_db_without_an_action_prints_its_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["db"]) == 0
    assert "upgrade" in capsys.readouterr().out
