"""Events hold the event, not the message sent (with a whole game snapshot).

Until 0002 each event row kept the full message a client was sent: a game
snapshot, the trajectory and the report, about 4 KB a shot (a 16-shot game
took 64 KB).  From 0003 a row keeps only the domain event (who shot what, a
new round, the end); the server rebuilds the messages by replaying the
room's game record, which already holds every action.  Existing rows are
converted in place.  Rooms get an index on their status for the retention
purge.

Revision ID: 0003
Revises: 0002
"""

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def event_of(payload: dict[str, Any]) -> dict[str, Any]:
    """The domain event behind a message stored by 0001–0002.

    >>> event_of({"type": "shot", "seat": "south", "shot": None, "cpu": False, "game": {}})
    {'type': 'shot', 'seat': 'south', 'shot': None, 'cpu': False}
    >>> event_of({"type": "round", "game": {}})
    {'type': 'round'}
    """
    kind = payload.get("type")
    if kind == "shot":
        return {
            "type": "shot",
            "seat": payload.get("seat"),
            "shot": payload.get("shot"),
            "cpu": bool(payload.get("cpu")),
        }
    return {"type": kind}


def upgrade() -> None:
    events = sa.table(
        "events",
        sa.column("room_id", sa.String),
        sa.column("number", sa.Integer),
        sa.column("payload_json", sa.Text),
        sa.column("event_json", sa.Text),
    )
    with op.batch_alter_table("events") as batch:
        batch.add_column(sa.Column("event_json", sa.Text(), nullable=True))
    connection = op.get_bind()
    rows = connection.execute(sa.select(events.c.room_id, events.c.number, events.c.payload_json))
    for room_id, number, payload_json in rows.all():
        event = event_of(json.loads(payload_json))
        connection.execute(
            events.update()
            .where(events.c.room_id == room_id, events.c.number == number)
            .values(event_json=json.dumps(event))
        )
    with op.batch_alter_table("events") as batch:
        batch.alter_column("event_json", existing_type=sa.Text(), nullable=False)
        batch.drop_column("payload_json")
    op.create_index("ix_rooms_status", "rooms", ["status"])


def downgrade() -> None:
    # The old messages cannot be rebuilt in SQL: the events go (an older
    # server then answers a reconnecting client with a snapshot).
    op.drop_index("ix_rooms_status", "rooms")
    op.execute("DELETE FROM events")
    with op.batch_alter_table("events") as batch:
        batch.alter_column("event_json", new_column_name="payload_json")
