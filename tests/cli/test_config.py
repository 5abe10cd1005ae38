"""Where ``crokinole serve`` and ``crokinole db upgrade`` find their database and Redis.

``--db`` wins over ``$CROKINOLE_DATABASE_URL``, which wins over the older
``$CROKINOLE_DB``; a URL crokinole cannot use is a plain argparse error (exit
2) that does not repeat the URL's password; ``--redis`` is checked, then
refused until several processes can share games through Redis.
"""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest

from crokinole.cli.main import build_parser, main
from crokinole.cli.serve import DEFAULT_DB, REDIS_NEEDS_POSTGRES
from crokinole.cli.settings_flags import settings_from
from crokinole.server.settings import ProcessSettings, ServerSettings

PG = "postgresql+psycopg://crokinole:secret@db.example.org:5432/crokinole"


@pytest.fixture(autouse=True)
def _no_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("CROKINOLE_DATABASE_URL", "CROKINOLE_DB", "CROKINOLE_REDIS_URL"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.parametrize("command", [["serve"], ["db", "upgrade"]])
def test_without_flag_or_environment_the_database_is_the_sqlite_file(command: list[str]) -> None:
    assert build_parser().parse_args(command).db == str(DEFAULT_DB)


@pytest.mark.parametrize("command", [["serve"], ["db", "upgrade"]])
def test_the_environment_names_the_database(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROKINOLE_DB", "/old/name.db")
    assert build_parser().parse_args(command).db == "/old/name.db"
    monkeypatch.setenv("CROKINOLE_DATABASE_URL", PG)
    assert build_parser().parse_args(command).db == PG


@pytest.mark.parametrize("command", [["serve"], ["db", "upgrade"]])
def test_the_flag_wins_over_the_environment(
    command: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CROKINOLE_DATABASE_URL", PG)
    assert build_parser().parse_args([*command, "--db", "/var/x.db"]).db == "/var/x.db"
    # Even a bad URL in the environment does not matter when the flag is given.
    monkeypatch.setenv("CROKINOLE_DATABASE_URL", "mysql://x")
    assert build_parser().parse_args([*command, "--db", "sqlite:///x.db"]).db == "sqlite:///x.db"


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("mysql://crokinole:secret@db/crokinole", "the kind 'mysql' is not one crokinole uses"),
        ("postgresql://crokinole:secret@db/crokinole", "write postgresql+psycopg://"),
        ("postgresql+psycopg://crokinole:secret@db:port/x", "not a database URL that can be read"),
        ("postgresql+psycopg://crokinole:secret@db", "names no database"),
    ],
)
@pytest.mark.parametrize("command", [["serve"], ["db", "upgrade"]])
@pytest.mark.parametrize("source", ["flag", "environment"])
def test_a_bad_database_url_is_a_plain_error_without_its_password(
    url: str,
    why: str,
    command: list[str],
    source: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    if source == "flag":
        argv = [*command, "--db", url]
    else:
        monkeypatch.setenv("CROKINOLE_DATABASE_URL", url)
        argv = command
    with pytest.raises(SystemExit) as stopped:
        main(argv)
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --db: " in err and why in err
    assert "secret" not in err and "Traceback" not in err


@pytest.mark.parametrize("url", ["redis://127.0.0.1:6379/0", "rediss://cache.example.org"])
def test_redis_is_accepted_from_the_flag_or_the_environment(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert build_parser().parse_args(["serve"]).redis is None
    assert build_parser().parse_args(["serve", "--redis", url]).redis == url
    monkeypatch.setenv("CROKINOLE_REDIS_URL", url)
    assert build_parser().parse_args(["serve"]).redis == url
    assert build_parser().parse_args(["serve", "--redis", "redis://other"]).redis == "redis://other"


@pytest.mark.parametrize(
    "url", ["127.0.0.1:6379", "http://127.0.0.1:6379", "redis://", "redis://h:x"]
)
def test_a_bad_redis_url_is_a_plain_error(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", "--redis", url])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "error: argument --redis: must be a redis:// URL" in err and "Traceback" not in err


@pytest.mark.parametrize("source", ["flag", "environment"])
def test_redis_on_a_sqlite_file_is_refused_in_plain_words(
    source: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    db = tmp_path / "never.db"
    argv = ["serve", "--db", str(db), "--port", "1"]
    if source == "flag":
        argv += ["--redis", "redis://127.0.0.1:6379/0"]
    else:
        monkeypatch.setenv("CROKINOLE_REDIS_URL", "redis://127.0.0.1:6379/0")
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.startswith(f"crokinole: {REDIS_NEEDS_POSTGRES}")
    assert captured.err.count("\n") == 1 and captured.out == ""
    assert not db.exists()  # refused before anything was opened


@pytest.mark.parametrize(
    ("flag", "value", "message"),
    [
        ("--redis-prefix", "a b", "must be 1-64 letters"),
        ("--redis-prefix", "", "must be 1-64 letters"),
        ("--lease-seconds", "0", "must be a number of seconds from 0.5 to 300"),
        ("--lease-seconds", "ten", "must be a number of seconds from 0.5 to 300"),
    ],
)
def test_bad_cluster_flags_are_plain_errors(
    flag: str, value: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["serve", flag, value])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert f"error: argument {flag}: {message}" in err and "Traceback" not in err


def test_a_missing_postgresql_driver_is_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "psycopg" else real(name, *a)
    )
    with pytest.raises(SystemExit):
        main(["db", "upgrade", "--db", PG])
    assert "pip install 'psycopg[binary]>=3.1'" in capsys.readouterr().err


def test_serve_on_an_unreachable_database_is_a_plain_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    # Port 1 on loopback: nothing listens there, the connection is refused at once.
    url = "postgresql+psycopg://crokinole:secret@127.0.0.1:1/crokinole"
    assert main(["serve", "--db", url, "--port", "1", "--no-warm-up"]) == 1
    err = capsys.readouterr().err
    assert err.startswith(
        "crokinole: cannot open the database "
        "postgresql+psycopg://crokinole:***@127.0.0.1:1/crokinole: "
    )
    assert "secret" not in err and "refused" in err.lower() and err.count("\n") == 1


def test_an_unreachable_redis_is_one_plain_line(capsys: pytest.CaptureFixture[str]) -> None:
    # Port 1 on loopback refuses connections; the database URL is never opened first.
    argv = ["serve", "--db", "postgresql+psycopg://u:pw@127.0.0.1:1/none", "--port", "1"]
    assert main([*argv, "--redis", "redis://:secret@127.0.0.1:1/0"]) == 1
    captured = capsys.readouterr()
    assert captured.err.startswith("crokinole: cannot reach Redis at redis://:***@127.0.0.1:1/0: ")
    assert captured.err.count("\n") == 1 and "secret" not in captured.err


def test_the_options_default_to_the_settings_defaults(monkeypatch: pytest.MonkeyPatch) -> None:
    # The flags are built from the settings' fields: each default is written once, there.
    for name in [n for n in os.environ if n.startswith("CROKINOLE_")]:
        monkeypatch.delenv(name)
    args = build_parser().parse_args(["serve"])
    assert settings_from(ServerSettings, args) == ServerSettings()
    assert settings_from(ProcessSettings, args) == ProcessSettings()


def test_the_environment_gives_a_setting_when_its_flag_is_not_given(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("CROKINOLE_LEASE_SECONDS", "2.5")
    monkeypatch.setenv("CROKINOLE_ALLOWED_ORIGINS", "https://a.example, https://b.example")
    settings = settings_from(ServerSettings, build_parser().parse_args(["serve"]))
    assert settings.lease_ms == 2500
    assert settings.allowed_origins == ("https://a.example", "https://b.example")
    given = build_parser().parse_args(["serve", "--lease-seconds", "4"])
    assert settings_from(ServerSettings, given).lease_ms == 4000
