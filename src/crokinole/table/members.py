"""Who is at a table: members (devices with a name) and the occupants of seats.

>>> occupant_to_dict(Person("m1")), occupant_to_dict(Cpu("hard")), occupant_to_dict(None)
({'person': 'm1'}, {'cpu': 'hard'}, None)
>>> occupant_from_dict({"cpu": "hard"})
Cpu(level='hard')
>>> check_name("  Ann  ")
'Ann'
>>> check_name("")
Traceback (most recent call last):
...
crokinole.errors.TableError: a name has 1 to 24 characters (after trimming spaces), got ''
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from crokinole.ai import Level
from crokinole.errors import ErrorCode, TableError

__all__ = [
    "MAX_NAME",
    "Cpu",
    "Member",
    "Occupant",
    "Person",
    "RankedPlayer",
    "SeatRating",
    "check_name",
    "occupant_from_dict",
    "occupant_to_dict",
]

#: The longest display name, in characters.
MAX_NAME = 24


def check_name(name: object) -> str:
    """A display name, trimmed: 1-24 characters of plain text.

    Raises:
        TableError: ``bad_name``: not text, empty or too long after
            trimming, or holding a control or formatting character.
    """
    if not isinstance(name, str):
        raise TableError(ErrorCode.BAD_NAME, f"a name is text, got {name!r}")
    trimmed = name.strip()
    if not 1 <= len(trimmed) <= MAX_NAME:
        raise TableError(
            ErrorCode.BAD_NAME,
            f"a name has 1 to {MAX_NAME} characters (after trimming spaces), got {trimmed!r}",
        )
    for ch in trimmed:
        if unicodedata.category(ch).startswith("C"):
            raise TableError(
                ErrorCode.BAD_NAME,
                f"a name is plain text: {trimmed!r} holds the control character {ch!r}",
            )
    return trimmed


@dataclass(frozen=True, slots=True)
class Member:
    """A device at the table.

    Attributes:
        mid: public id, ``"m1"``, ``"m2"``… in the order members joined.
        device: the device token, a secret: never put it in a view.
        name: display name (plain text, 1-24 characters).
        spectator: watches only.
        connected: whether the device is connected now.
        disconnected_at: server time it lost its connection (None while connected).
        reacted_at: server time of its last reaction (None before the first).
    """

    mid: str
    device: str
    name: str
    spectator: bool
    connected: bool
    disconnected_at: float | None = None
    reacted_at: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form (with the device token: for the store only)."""
        return {
            "mid": self.mid,
            "device": self.device,
            "name": self.name,
            "spectator": self.spectator,
            "connected": self.connected,
            "disconnected_at": self.disconnected_at,
            "reacted_at": self.reacted_at,
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Member:
        """Inverse of :meth:`to_dict`."""
        return cls(**data)


@dataclass(frozen=True, slots=True)
class Person:
    """A seat held by the member ``mid``."""

    mid: str


@dataclass(frozen=True, slots=True)
class Cpu:
    """A seat played by a CPU of ``level`` (a :class:`~crokinole.ai.Level` value)."""

    level: str

    def __post_init__(self) -> None:
        try:
            Level(self.level)
        except ValueError:
            names = ", ".join(lv.value for lv in Level)
            raise TableError(
                ErrorCode.BAD_SETTINGS, f"a CPU level is one of {names}, not {self.level!r}"
            ) from None


#: Who holds a seat (None: nobody yet).
Occupant = Person | Cpu


def occupant_to_dict(occupant: Occupant | None) -> dict[str, str] | None:
    """``{"person": mid}``, ``{"cpu": level}`` or None."""
    if occupant is None:
        return None
    if isinstance(occupant, Person):
        return {"person": occupant.mid}
    return {"cpu": occupant.level}


def occupant_from_dict(data: object) -> Occupant | None:
    """Inverse of :func:`occupant_to_dict`."""
    if data is None:
        return None
    if isinstance(data, dict) and len(data) == 1:
        if isinstance(data.get("person"), str):
            return Person(data["person"])
        if isinstance(data.get("cpu"), str):
            return Cpu(data["cpu"])
    raise TableError(
        ErrorCode.BAD_SETTINGS, f"a seat holds a person, a CPU or nobody, not {data!r}"
    )


@dataclass(frozen=True, slots=True)
class SeatRating:
    """What a ranked table shows of a seat's player: the displayed rating, and
    whether it is provisional (both as they stood when the game was made)."""

    rating: int
    provisional: bool

    def __post_init__(self) -> None:
        rating = self.rating
        if isinstance(rating, bool) or not isinstance(rating, int) or rating < 0:
            raise TableError(
                ErrorCode.BAD_SETTINGS, f"a rating is a whole number from 0, not {rating!r}"
            )
        if not isinstance(self.provisional, bool):
            raise TableError(
                ErrorCode.BAD_SETTINGS, f"provisional is true or false, not {self.provisional!r}"
            )


@dataclass(frozen=True, slots=True)
class RankedPlayer:
    """A player the ranked queue seats at a new ranked table.

    Attributes:
        device: who the player is to the table (the server gives an account's
            identity, never a device token: the seat is the account's).
        name: the name shown (the username).
        shown: the rating shown at the seat.
    """

    device: str
    name: str
    shown: SeatRating
