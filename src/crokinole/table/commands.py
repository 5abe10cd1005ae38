"""What anyone can ask of a table: one frozen value per command.

``device`` is the sender's device token; the server's own commands (the
CPU's shots, :class:`Tick`) have ``device=None``.  A command is only a
request: :meth:`crokinole.table.Table.apply` checks it and answers with
events or a :class:`~crokinole.errors.TableError`.

>>> Shoot("tok", Seat.SOUTH, Shot(0.0, 0.0, 28.0), expected_version=7).cpu
False
"""

from __future__ import annotations

from dataclasses import dataclass

from crokinole.board import Seat, Shot
from crokinole.table.settings import TableSettings

__all__ = [
    "REACTIONS",
    "ChangeSettings",
    "Command",
    "Connect",
    "Disconnect",
    "Join",
    "Leave",
    "MoveMember",
    "NextRound",
    "React",
    "Rematch",
    "Remove",
    "Rename",
    "Resign",
    "SetCpu",
    "Shoot",
    "Start",
    "TakeSeat",
    "Tick",
]

#: The quick reactions (no free text: nothing to moderate).
REACTIONS = ("nice_shot", "good_game", "well_played", "oops", "thanks", "good_luck")


@dataclass(frozen=True, slots=True)
class Join:
    """Join a party as a player (an unseated one if every seat is taken) or a
    spectator.  A device that is already a member just reconnects."""

    device: str
    name: str
    spectator: bool = False


@dataclass(frozen=True, slots=True)
class Leave:
    """Leave the table.  In the lobby the member is gone; mid-game their seat
    is played by a CPU (the stand-in level) for the rest of the game."""

    device: str


@dataclass(frozen=True, slots=True)
class Rename:
    """Change one's display name."""

    device: str
    name: str


@dataclass(frozen=True, slots=True)
class TakeSeat:
    """Sit down at ``seat`` (lobby, or after a game); None stands up."""

    device: str
    seat: Seat | None


@dataclass(frozen=True, slots=True)
class MoveMember:
    """The host seats member ``mid`` at ``seat`` (replacing a CPU there) or stands them up."""

    device: str
    mid: str
    seat: Seat | None


@dataclass(frozen=True, slots=True)
class SetCpu:
    """The host puts a CPU of ``level`` at ``seat`` (its person stands up), or empties it."""

    device: str
    seat: Seat
    level: str | None


@dataclass(frozen=True, slots=True)
class Remove:
    """The host removes another member."""

    device: str
    mid: str


@dataclass(frozen=True, slots=True)
class ChangeSettings:
    """The host changes the house rules (lobby, or after a game)."""

    device: str
    settings: TableSettings


@dataclass(frozen=True, slots=True)
class Start:
    """The host starts a game (every seat filled)."""

    device: str


@dataclass(frozen=True, slots=True)
class Shoot:
    """Shoot for ``seat``.

    A person shoots for their own seat; the server (``device=None``,
    ``cpu=True``) for a CPU's seat or a stood-in one.  With
    ``expected_version`` set, the shot is refused as ``stale`` unless the
    table is still at that version (a shot is never applied twice).
    """

    device: str | None
    seat: Seat
    shot: Shot
    cpu: bool = False
    expected_version: int | None = None


@dataclass(frozen=True, slots=True)
class NextRound:
    """A seated player is ready for the next round."""

    device: str


@dataclass(frozen=True, slots=True)
class Rematch:
    """A seated player votes for another game."""

    device: str


@dataclass(frozen=True, slots=True)
class Resign:
    """Give the game up: on one device it is abandoned (a loss against the
    CPU) and the table closes; in a party, the same as :class:`Leave`."""

    device: str


@dataclass(frozen=True, slots=True)
class Connect:
    """A member's device is connected again."""

    device: str


@dataclass(frozen=True, slots=True)
class Disconnect:
    """A member's device lost its connection."""

    device: str


@dataclass(frozen=True, slots=True)
class React:
    """A quick reaction, one of :data:`REACTIONS`."""

    device: str
    reaction: str


@dataclass(frozen=True, slots=True)
class Tick:
    """The server's timer: fire every deadline due at ``now``."""


Command = (
    Join
    | Leave
    | Rename
    | TakeSeat
    | MoveMember
    | SetCpu
    | Remove
    | ChangeSettings
    | Start
    | Shoot
    | NextRound
    | Rematch
    | Resign
    | Connect
    | Disconnect
    | React
    | Tick
)
