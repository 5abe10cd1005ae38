"""What anyone can ask of a table: one frozen value per command.

``device`` is the sender's device token; the server's own commands (the
CPU's shots, :class:`Tick`) have ``device=None``.  A command is only a
request: :meth:`crokinole.table.Table.apply` checks it and answers with
events or a :class:`~crokinole.errors.TableError`.

Every command also travels as plain JSON (:meth:`CommandBase.to_dict`,
:func:`command_from_dict`), so a process can hand it to the table's owner.

>>> shoot = Shoot("tok", Seat.SOUTH, Shot(0.0, 0.0, 28.0), expected_version=7)
>>> shoot.cpu
False
>>> shoot.to_dict()["seat"], shoot.to_dict()["shot"]["power"]
('south', 28.0)
>>> command_from_dict(shoot.to_dict()) == shoot
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from types import NoneType
from typing import Any, ClassVar, TypeVar, dataclass_transform, get_args, get_type_hints

from crokinole.board import Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.table.events import seat_from_name, shot_from_dict, shot_to_dict
from crokinole.table.settings import TableSettings

__all__ = [
    "COMMAND_TYPES",
    "HINT_KINDS",
    "REACTIONS",
    "ChangeSettings",
    "Command",
    "CommandBase",
    "Connect",
    "DeclineRematch",
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
    "TakeHint",
    "TakeSeat",
    "Tick",
    "command_from_dict",
]

#: The quick reactions (no free text: nothing to moderate).
REACTIONS = ("nice_shot", "good_game", "well_played", "oops", "thanks", "good_luck")

#: What a player may ask for on their turn (:class:`TakeHint`): the best
#: shots, or a heat map of one placement's directions and powers.
HINT_KINDS = ("hint", "heatmap")


_C = TypeVar("_C", bound="CommandBase")


@dataclass_transform(frozen_default=True)
def _command(type_name: str) -> Callable[[type[_C]], type[_C]]:
    """A command class: a frozen dataclass whose ``TYPE`` is ``type_name``."""

    def make(cls: type[_C]) -> type[_C]:
        cls.TYPE = type_name
        return dataclass(frozen=True, slots=True)(cls)

    return make


@dataclass(frozen=True, slots=True)
class CommandBase:
    """Base of the commands: their wire form.

    ``TYPE`` names the command in its wire form (``"take_seat"``).
    """

    TYPE: ClassVar[str] = ""

    def to_dict(self) -> dict[str, Any]:
        """``{"type", ...fields}``, JSON-safe: a seat by its name (``"south"``),
        a shot as :func:`~crokinole.table.events.shot_to_dict`, settings as
        :meth:`~crokinole.table.settings.TableSettings.to_dict`."""
        out: dict[str, Any] = {"type": self.TYPE}
        for f in fields(self):
            out[f.name] = _encode(getattr(self, f.name))
        return out


@_command("join")
class Join(CommandBase):
    """Join a party as a player (an unseated one if every seat is taken) or a
    spectator.  A device that is already a member just reconnects."""

    device: str
    name: str
    spectator: bool = False


@_command("leave")
class Leave(CommandBase):
    """Leave the table.  In the lobby the member is gone; mid-game their seat
    is played by a CPU (the stand-in level) for the rest of the game."""

    device: str


@_command("rename")
class Rename(CommandBase):
    """Change one's display name."""

    device: str
    name: str


@_command("take_seat")
class TakeSeat(CommandBase):
    """Sit down at ``seat`` (lobby, or after a game); None stands up."""

    device: str
    seat: Seat | None


@_command("move_member")
class MoveMember(CommandBase):
    """The host seats member ``mid`` at ``seat`` (replacing a CPU there) or stands them up."""

    device: str
    mid: str
    seat: Seat | None


@_command("set_cpu")
class SetCpu(CommandBase):
    """The host puts a CPU of ``level`` at ``seat`` (its person stands up), or empties it."""

    device: str
    seat: Seat
    level: str | None


@_command("remove")
class Remove(CommandBase):
    """The host removes another member."""

    device: str
    mid: str


@_command("change_settings")
class ChangeSettings(CommandBase):
    """The host changes the house rules (lobby, or after a game)."""

    device: str
    settings: TableSettings


@_command("start")
class Start(CommandBase):
    """The host starts a game (every seat filled)."""

    device: str


@_command("shoot")
class Shoot(CommandBase):
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


@_command("next_round")
class NextRound(CommandBase):
    """A seated player is ready for the next round."""

    device: str


@_command("rematch")
class Rematch(CommandBase):
    """A seated player votes for another game."""

    device: str


@_command("decline_rematch")
class DeclineRematch(CommandBase):
    """A seated player declines the rematch offered (the offer is withdrawn)."""

    device: str


@_command("resign")
class Resign(CommandBase):
    """Give the game up: on one device it is abandoned (a loss against the
    CPU) and the table closes; in a party, the same as :class:`Leave`."""

    device: str


@_command("connect")
class Connect(CommandBase):
    """A member's device is connected again."""

    device: str


@_command("disconnect")
class Disconnect(CommandBase):
    """A member's device lost its connection."""

    device: str


@_command("react")
class React(CommandBase):
    """A quick reaction, one of :data:`REACTIONS`."""

    device: str
    reaction: str


@_command("take_hint")
class TakeHint(CommandBase):
    """A player asks for help on their turn: ``kind`` is one of :data:`HINT_KINDS`.

    The table only counts it (``HintTaken``) where hints are allowed; the
    hint itself is computed by the server from the table after that event.
    """

    device: str
    seat: Seat
    kind: str


@_command("tick")
class Tick(CommandBase):
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
    | DeclineRematch
    | Resign
    | Connect
    | Disconnect
    | React
    | TakeHint
    | Tick
)


#: Every command class by its ``TYPE``.
COMMAND_TYPES: dict[str, type[CommandBase]] = {cls.TYPE: cls for cls in get_args(Command)}


def _encode(value: Any) -> Any:
    if isinstance(value, Seat):
        return value.key
    if isinstance(value, Shot):
        return shot_to_dict(value)
    if isinstance(value, TableSettings):
        return value.to_dict()
    return value


def _shot(value: object) -> Shot:
    # shot_from_dict would also take "1.5" or true for a number.
    if isinstance(value, dict) and not all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in value.values()
    ):
        raise InvalidRecordError(f"a shot's position, direction and power are numbers: {value!r}")
    return shot_from_dict(value)


def _settings(value: object) -> TableSettings:
    # The settings were checked when the command was made (a test clock included).
    return TableSettings.from_dict(value, allow_short_clock=True)


#: How a field of each annotated type is read: plain values by a check and
#: what to call them, the rest by their own reader.
_PLAIN: dict[object, tuple[Callable[[object], bool], str]] = {
    str: (lambda v: isinstance(v, str), "text"),
    bool: (lambda v: isinstance(v, bool), "true or false"),
    int: (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
}
_READERS: dict[object, Callable[[object], Any]] = {
    Seat: seat_from_name,
    Shot: _shot,
    TableSettings: _settings,
}


@dataclass(frozen=True, slots=True)
class _Field:
    name: str
    kind: object
    nullable: bool

    def read(self, command: str, value: object) -> Any:
        if value is None and self.nullable:
            return None
        if self.kind in _PLAIN:
            check, called = _PLAIN[self.kind]
            if not check(value):
                blank = " or null" if self.nullable else ""
                raise InvalidRecordError(
                    f"a {command} command's {self.name} is {called}{blank}, not {value!r}"
                )
            return value
        try:
            return _READERS[self.kind](value)
        except (CrokinoleError, TypeError, ValueError) as exc:
            blank = " (or null)" if self.nullable else ""
            raise InvalidRecordError(f"a bad {command} command: {exc}{blank}") from None


def _fields_of(cls: type[CommandBase]) -> tuple[_Field, ...]:
    """The fields' types, read from the annotations (a new type fails here, at import)."""
    hints = get_type_hints(cls)
    out = []
    for f in fields(cls):
        kinds = get_args(hints[f.name]) or (hints[f.name],)
        (kind,) = [k for k in kinds if k is not NoneType]
        if kind not in _PLAIN and kind not in _READERS:
            raise TypeError(f"{cls.__name__}.{f.name}: no wire form for {kind!r}")
        out.append(_Field(f.name, kind, NoneType in kinds))
    return tuple(out)


_FIELDS: dict[str, tuple[_Field, ...]] = {
    name: _fields_of(cls) for name, cls in COMMAND_TYPES.items()
}


def command_from_dict(data: object) -> Command:
    """The command written by :meth:`CommandBase.to_dict`.

    Only the wire form is checked (a known type, exactly its fields, each of
    the right kind); whether the table accepts the command is for
    :meth:`crokinole.table.Table.apply` to say, so an unknown reaction or
    CPU level still reads back.

    >>> command_from_dict({"type": "take_seat", "device": "tok", "seat": "north"}).seat
    <Seat.NORTH: 90.0>
    >>> command_from_dict({"type": "take_seat", "device": "tok", "seat": None})
    TakeSeat(device='tok', seat=None)
    >>> command_from_dict({"type": "tick"})
    Tick()
    >>> command_from_dict({"type": "join", "device": "tok", "name": 7, "spectator": False})
    Traceback (most recent call last):
    ...
    crokinole.errors.InvalidRecordError: a join command's name is text, not 7

    Raises:
        InvalidRecordError: not a command of a known type with exactly its
            fields, each of the right kind.
    """
    if not isinstance(data, dict):
        raise InvalidRecordError(f"a command is an object, not {type(data).__name__}")
    kind = data.get("type")
    cls = COMMAND_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise InvalidRecordError(f"unknown command type {kind!r}")
    wanted = _FIELDS[cls.TYPE]
    names = {f.name for f in wanted}
    given = set(data) - {"type"}
    if given != names:
        raise InvalidRecordError(
            f"a {cls.TYPE} command has the fields {sorted(names)}, not {sorted(map(str, given))}"
        )
    values = {f.name: f.read(cls.TYPE, data[f.name]) for f in wanted}
    return cls(**values)  # type: ignore[return-value]
