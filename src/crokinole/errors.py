"""The one exception root of the project.

Every error the library raises on purpose is a :class:`CrokinoleError`.  Errors
caused by bad input also subclass :class:`ValueError`, so callers that already
catch ``ValueError`` keep working.  Messages quote the offending value and its
context in plain words, e.g. ``disc 2 at (0.1000, 0.2000) is over the 20 hole``.

This module imports nothing from the project, so every layer may use it.
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    """Every code an ``error`` answer carries, websocket or HTTP (docs/protocol.md, *Errors*).

    A :class:`StrEnum`: a code is its own string on the wire and in JSON, and
    compares equal to it.

    >>> ErrorCode.NOT_YOUR_TURN == "not_your_turn"
    True
    >>> ErrorCode("seat_taken")
    <ErrorCode.SEAT_TAKEN: 'seat_taken'>
    """

    # The connection and its messages.
    BAD_JSON = "bad_json"
    TOO_LARGE = "too_large"
    BAD_MESSAGE = "bad_message"
    HELLO_FIRST = "hello_first"
    TOO_MANY_MESSAGES = "too_many_messages"
    RATE_LIMITED = "rate_limited"
    SERVER_ERROR = "server_error"
    BAD_ORIGIN = "bad_origin"
    # Finding a table and a place at it.
    UNKNOWN_TABLE = "unknown_table"
    UNKNOWN_CODE = "unknown_code"
    NOT_A_MEMBER = "not_a_member"
    SOLO_TABLE = "solo_table"
    PARTY_FULL = "party_full"
    NOT_HOST = "not_host"
    SPECTATOR = "spectator"
    IN_GAME = "in_game"
    SEAT_TAKEN = "seat_taken"
    NOT_A_SEAT = "not_a_seat"
    SEATS_EMPTY = "seats_empty"
    CLOSED = "closed"
    RANKED_TABLE = "ranked_table"
    # Playing.
    NOT_YOUR_SEAT = "not_your_seat"
    NOT_YOUR_TURN = "not_your_turn"
    ILLEGAL_PLACEMENT = "illegal_placement"
    ILLEGAL_SHOT = "illegal_shot"
    ILLEGAL_ACTION = "illegal_action"
    GAME_OVER = "game_over"
    BAD_SETTINGS = "bad_settings"
    BAD_NAME = "bad_name"
    UNKNOWN_REACTION = "unknown_reaction"
    TOO_MANY_REACTIONS = "too_many_reactions"
    NO_HINTS = "no_hints"
    NO_ACCURACY = "no_accuracy"
    # Several processes, the database.
    STALE = "stale"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    # Ranked play.
    NOT_LOGGED_IN = "not_logged_in"
    BAD_LADDER = "bad_ladder"
    BAD_PARTNER = "bad_partner"
    ALREADY_QUEUED = "already_queued"
    IN_RANKED_GAME = "in_ranked_game"
    NO_SHOWS = "no_shows"
    # The HTTP routes (docs/protocol.md, *HTTP errors*): each code has one status.
    BAD_REQUEST = "bad_request"
    NOT_JSON = "not_json"
    BAD_DEVICE = "bad_device"
    NO_DEVICE = "no_device"
    FORBIDDEN = "forbidden"
    FAIR_PLAY = "fair_play"
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"
    NOT_FINISHED = "not_finished"
    # Accounts (HTTP).
    BAD_USERNAME = "bad_username"
    BAD_PASSWORD = "bad_password"
    TAKEN = "taken"
    WRONG_LOGIN = "wrong_login"
    WRONG_PASSWORD = "wrong_password"
    TOO_MANY_ATTEMPTS = "too_many_attempts"
    TOO_MANY_SIGNUPS = "too_many_signups"
    DEVICE_CLAIMED = "device_claimed"
    # Events (tournaments and league nights: crokinole.events).
    BAD_EVENT = "bad_event"
    NOT_ORGANISER = "not_organiser"
    UNKNOWN_ENTRANT = "unknown_entrant"
    ROUND_STARTED = "round_started"
    ROUND_NOT_OVER = "round_not_over"
    EVENT_OVER = "event_over"
    BAD_RESULT = "bad_result"
    # Bots (docs/bots.md): bot accounts, their tokens, challenges.
    HAS_GAMES = "has_games"
    NOT_A_BOT = "not_a_bot"
    SCOPE = "scope"
    TOO_MANY_GAMES = "too_many_games"
    BAD_OPPONENT = "bad_opponent"
    UNKNOWN_CHALLENGE = "unknown_challenge"


class CrokinoleError(Exception):
    """Root of every error raised by the crokinole package.

    Attributes:
        code: the protocol's code for this error, when it refuses what a
            player asked (each class that refuses something names its
            :class:`ErrorCode`; the root's is ``server_error``: nothing the
            player did; a few services' errors still carry their own text).

    >>> NotYourTurn("it is North's turn").code
    <ErrorCode.NOT_YOUR_TURN: 'not_your_turn'>
    """

    code: str = ErrorCode.SERVER_ERROR


class InvalidBoardError(CrokinoleError, ValueError):
    """A board description whose dimensions cannot describe a real board."""


class InvalidPositionError(CrokinoleError, ValueError):
    """A set of discs that cannot lie on the board (overlap, off the board, NaN ...)."""


class InvalidShotError(CrokinoleError, ValueError):
    """A shot or launch that cannot be played (negative or NaN power, off the line ...)."""

    code = ErrorCode.ILLEGAL_SHOT


class SimulationError(CrokinoleError, RuntimeError):
    """The simulator could not finish a shot (the per-shot event cap was reached)."""

    code = ErrorCode.ILLEGAL_SHOT  # the shot is refused: it cannot be played out


class InvalidRulesError(CrokinoleError, ValueError):
    """A combination of game options that cannot be played (R2)."""


class IllegalActionError(CrokinoleError, ValueError):
    """An action that the game's rules do not allow now (R2–R6)."""

    code = ErrorCode.ILLEGAL_ACTION


class NotYourTurn(IllegalActionError):  # noqa: N818 - the name players see
    """Someone other than the shooter tried to act."""

    code = ErrorCode.NOT_YOUR_TURN


class IllegalPlacement(IllegalActionError):  # noqa: N818 - the name players see
    """A disc placed where the rules do not allow it (R3)."""

    code = ErrorCode.ILLEGAL_PLACEMENT


class GameOver(IllegalActionError):  # noqa: N818 - the name players see
    """An action asked of a game that has ended (R6)."""

    code = ErrorCode.GAME_OVER


class InvalidRecordError(CrokinoleError, ValueError):
    """A game record (JSON) that cannot be read or does not replay."""


class UnknownSeatError(CrokinoleError, ValueError):
    """A seat name that is not ``south``, ``west``, ``north`` or ``east``."""


class TableError(CrokinoleError, ValueError):
    """A command a table refuses (see :mod:`crokinole.table`); nothing changed.

    Attributes:
        code: the reason (``not_host``, ``seat_taken``, ...), which the
            server sends on as the protocol's error code; given as an
            :class:`ErrorCode` or its string.
        message: the reason in plain words for the player.

    >>> error = TableError(ErrorCode.SEAT_TAKEN, "north is taken by Ann")
    >>> str(error), error.code == "seat_taken", TableError("stale", "look again").code
    ('north is taken by Ann', True, <ErrorCode.STALE: 'stale'>)
    """

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = ErrorCode(code)
        self.message = message

    @classmethod
    def of(cls, exc: CrokinoleError) -> TableError:
        """The table's refusal for an error of the rules: its code, its words."""
        return cls(exc.code, str(exc))


class EventError(CrokinoleError, ValueError):
    """A command an event refuses (see :mod:`crokinole.events`); nothing changed.

    Attributes:
        code: the reason (``bad_event``, ``round_started``, ...), an :class:`ErrorCode`.
        message: the reason in plain words for the organiser or player.

    >>> error = EventError(ErrorCode.ROUND_STARTED, "round 2 has started: it cannot be paired")
    >>> str(error), error.code == "round_started"
    ('round 2 has started: it cannot be paired', True)
    """

    def __init__(self, code: ErrorCode | str, message: str) -> None:
        super().__init__(message)
        self.code: ErrorCode = ErrorCode(code)
        self.message = message


class RankingError(CrokinoleError, ValueError):
    """A rating, game result or queue entry that ranked play cannot use.

    >>> str(RankingError("a side has 1 or 2 players, not 3"))
    'a side has 1 or 2 players, not 3'
    """


class AnalysisError(CrokinoleError, ValueError):
    """A hint, heat map, review or drill that cannot be worked out for the input given.

    >>> str(AnalysisError("nobody is to shoot: the round or the game is over"))
    'nobody is to shoot: the round or the game is over'
    """
