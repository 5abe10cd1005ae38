"""An event's table: which event, round, pairing and game it plays.

A table that an event opened for a pairing (``crokinole.server.events.tables``)
is a ranked table whose seats belong to the pairing's accounts.  It plays the
event's rules and clock rather than the ranked ones, it is rated only if the
event is, and it knows its link to the event (:class:`EventLink`, from its
``EventLinked`` event): its players are shown where they are, and its owner
knows where the result goes.

>>> link = EventLink("ev1", "Tuesday league", "Round 2", round=2, table=3)
>>> link.label
'Tuesday league · Round 2 · Table 3'
>>> EventLink("ev1", "Worlds", "Final", round=5, table=1, game=2, best_of=3).label
'Worlds · Final · Table 1 · Game 2 of 3'
>>> EventLink.from_dict(link.to_dict()) == link
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from crokinole.errors import ErrorCode, TableError

__all__ = ["EventLink"]


def _bad(message: str) -> TableError:
    return TableError(ErrorCode.BAD_SETTINGS, message)


@dataclass(frozen=True, slots=True)
class EventLink:
    """Where an event's table stands in its event.

    Attributes:
        event_id: the event's id.
        name: the event's name (as the organiser wrote it).
        stage: the round's stage in words ("Round 2", "Pool A", "Semi-final").
        round: the event's round (from 1).
        table: the pairing's number in the round (from 1).
        game: the game of the pairing's match this table plays (from 1).
        best_of: the games of the match (1, or 3 in the playoffs).
        rated: whether the game counts on the ranked ladder.
    """

    event_id: str
    name: str
    stage: str
    round: int
    table: int
    game: int = 1
    best_of: int = 1
    rated: bool = False

    def __post_init__(self) -> None:
        if not isinstance(self.event_id, str) or not self.event_id:
            raise _bad("an event's table names its event")
        if not isinstance(self.name, str) or not isinstance(self.stage, str):
            raise _bad("an event's name and stage are text")
        for name in ("round", "table", "game", "best_of"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise _bad(f"an event table's {name} is a whole number from 1, not {value!r}")
        if not isinstance(self.rated, bool):
            raise _bad(f"rated is true or false, not {self.rated!r}")

    @property
    def label(self) -> str:
        """Where the table is, in words: ``Tuesday league · Round 2 · Table 3``."""
        words = [self.name, self.stage, f"Table {self.table}"]
        if self.best_of > 1:
            words.append(f"Game {self.game} of {self.best_of}")
        return " · ".join(w for w in words if w)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (the stored event's and the snapshot's)."""
        return {
            "event_id": self.event_id,
            "name": self.name,
            "stage": self.stage,
            "round": self.round,
            "table": self.table,
            "game": self.game,
            "best_of": self.best_of,
            "rated": self.rated,
        }

    @classmethod
    def from_dict(cls, data: Any) -> EventLink:
        """Inverse of :meth:`to_dict`.

        Raises:
            TableError: ``bad_settings`` (not an event link).
        """
        if not isinstance(data, dict):
            raise _bad(f"an event link is an object, not {data!r}")
        try:
            return cls(**{key: data[key] for key in cls.__dataclass_fields__})
        except KeyError as exc:
            raise _bad(f"an event link has no {exc}") from None
