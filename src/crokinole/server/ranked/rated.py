"""Who a ranked table's players are, and what a ranked game's end does to their ratings.

A ranked seat belongs to an account, not a device: the table knows its
players by an identity ``account:<id>`` (a device token never holds a colon,
so the two cannot meet).  A connection logged in to the account acts at the
table as that identity, from any device.

:func:`rating_changes` decides, at the end of a ranked game, every player's
new rating with :mod:`crokinole.ranking`: a side that left (abandoned) or that
a CPU stood in for more than half its shots loses as if beaten
(:func:`~crokinole.ranking.result_of`); otherwise the score decides.  A game
aborted because a player never took a first shot (``GameAborted``, a
no-show) is not rated; :func:`no_shows` names the accounts that did not show.  The
owner of the table stores the changes in the same transaction as the game's
last events.  An event's table (``Table.event``) is rated only if the event
is, and its no-shows forfeit the event's game without barring the queue.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from crokinole.ranking import (
    INITIAL,
    Ladder,
    Outcome,
    RankingError,
    Rating,
    SideResult,
    display,
    is_provisional,
    rate_verdict,
    result_of,
)
from crokinole.rules import Layout
from crokinole.store import RatingChange, Store
from crokinole.table import (
    Event,
    GameAborted,
    GameFinished,
    Kind,
    MemberLeft,
    Person,
    Stage,
    Table,
)

__all__ = [
    "ACCOUNT_PREFIX",
    "BOT_PREFIX",
    "account_of",
    "finished_ratings",
    "identity",
    "is_bot",
    "ladder_of",
    "ladder_of_table",
    "no_shows",
    "rating_changes",
    "shown_ratings",
]

log = logging.getLogger("crokinole.server")

#: How a ranked table names an account's seat (``account:7``).
ACCOUNT_PREFIX = "account:"
#: How every table names a bot account's seat (``bot:7``): a bot plays as its account at
#: any table, and every view can tell it is a bot's without asking the store.
BOT_PREFIX = "bot:"


def identity(account_id: int, *, bot: bool = False) -> str:
    """The identity an account has at ranked tables (a bot's: at every table).

    >>> identity(7), account_of("account:7"), account_of("dev-token-1234567890")
    ('account:7', 7, None)
    >>> identity(8, bot=True), account_of("bot:8"), is_bot("bot:8"), is_bot("account:7")
    ('bot:8', 8, True, False)
    """
    return f"{BOT_PREFIX if bot else ACCOUNT_PREFIX}{account_id}"


def is_bot(who: str | None) -> bool:
    """Whether a table's member ``who`` (its device or identity) is a bot account."""
    return who is not None and who.startswith(BOT_PREFIX)


def account_of(who: str | None) -> int | None:
    """The account of a ranked (or bot's) identity, or None for anything else (a device)."""
    if who is None:
        return None
    prefix = BOT_PREFIX if who.startswith(BOT_PREFIX) else ACCOUNT_PREFIX
    if not who.startswith(prefix):
        return None
    number = who[len(prefix) :]
    return int(number) if number.isdigit() else None


def ladder_of(layout: Layout, *, bots: bool = False) -> Ladder:
    """The ladder of a ranked table's layout (singles or doubles; ``bots``: its players are
    bots, rated on their own ladder)."""
    if bots:
        return Ladder.BOTS
    return Ladder.SINGLES if layout is Layout.SINGLES else Ladder.DOUBLES


def ladder_of_table(table: Table) -> Ladder:
    """The ladder a ranked table's game counts on (a bot at it: the bots' ladder)."""
    bots = any(is_bot(m.device) for m in table.members)
    return ladder_of(table.settings.layout, bots=bots)


def rating_changes(
    store: Store, before: Table, after: Table, events: Sequence[Event]
) -> list[RatingChange]:
    """The rating changes of a ranked game that ``events`` finish (none otherwise).

    Args:
        store: where the players' current ratings are read (blocking).
        before: the table before ``events`` (its seats as the game was played).
        after: the table after them.
        events: what the last command caused.
    """
    finished = [e for e in events if isinstance(e, GameFinished)]
    game = before.game
    if after.kind is not Kind.RANKED or not finished or game is None:
        return []
    if after.event is not None and not after.event.rated:
        return []  # an event's game counts on the ladder only if the organiser chose so
    if before.stage is not Stage.PLAYING:
        return []
    if any(isinstance(e, GameAborted) for e in events):
        return []  # a no-show: the game was never played, nobody is rated
    end = finished[-1]
    players, abandoned, standin = _sides(before, after, events)
    try:
        verdict = result_of(
            _score(end),
            SideResult(abandoned=abandoned[0], standin_share=standin[0]),
            SideResult(abandoned=abandoned[1], standin_share=standin[1]),
        )
    except RankingError as exc:
        log.warning("ranked table %s: game %d not rated: %s", after.id, after.game_number, exc)
        return []
    ladder = ladder_of(game.rules.layout, bots=any(is_bot(m.device) for m in before.members))
    current = store.ratings_of([a for _, a in players], ladder.value)
    old = {
        a: Rating(current[a].mu, current[a].sigma) if a in current else INITIAL for _, a in players
    }
    side_a = [a for side, a in players if side == 0]
    side_b = [a for side, a in players if side == 1]
    try:
        new_a, new_b = rate_verdict([old[a] for a in side_a], [old[a] for a in side_b], verdict)
    except RankingError as exc:
        log.warning("ranked table %s: game %d not rated: %s", after.id, after.game_number, exc)
        return []
    changes = []
    for side, accounts, new, outcome in (
        (0, side_a, new_a, verdict.side_a),
        (1, side_b, new_b, verdict.side_b),
    ):
        for account, rating in zip(accounts, new, strict=True):
            was = old[account]
            changes.append(
                RatingChange(
                    account_id=account, ladder=ladder.value, game_number=after.game_number,
                    side=side, mu_before=was.mu, sigma_before=was.sigma, mu_after=rating.mu,
                    sigma_after=rating.sigma, rating_before=display(was),
                    rating_after=display(rating), outcome=outcome.value,
                )
            )  # fmt: skip
    return changes


def _score(end: GameFinished) -> Outcome | None:
    """What the score says of side 0 (None: the game was abandoned, the score says nothing)."""
    if end.abandoned:
        return None
    if end.winner == 0:
        return Outcome.WIN
    if end.winner == 1:
        return Outcome.LOSS
    return Outcome.DRAW


def _sides(
    before: Table, after: Table, events: Sequence[Event]
) -> tuple[list[tuple[int, int]], list[bool], list[float]]:
    """The ranked game's players as (side, account) in seat order, whether each side
    left (abandoned), and the largest share of each side's shots a stand-in played."""
    assert before.game is not None
    rules = before.game.rules
    left = {e.mid for e in events if isinstance(e, MemberLeft) and not e.removed}
    players: list[tuple[int, int]] = []
    abandoned = [False, False]
    standin = [0.0, 0.0]
    for seat, occupant in before.seats.items():
        side = rules.side_of(seat)
        if not isinstance(occupant, Person) or side not in (0, 1):
            continue
        member = before.member(occupant.mid)
        account = account_of(member.device if member is not None else None)
        if account is None:
            continue
        players.append((side, account))
        abandoned[side] = abandoned[side] or occupant.mid in left
        standin[side] = max(standin[side], after.standin_share(seat))
    return players, abandoned, standin


def shown_ratings(
    store: Store, accounts: Sequence[int], ladder: Ladder
) -> dict[int, tuple[int, bool]]:
    """Each account's displayed rating on ``ladder`` and whether it is provisional (blocking)."""
    found = store.ratings_of(list(accounts), ladder.value)
    shown: dict[int, tuple[int, bool]] = {}
    for account in accounts:
        data = found.get(account)
        if data is None:
            shown[account] = display(INITIAL), True
        else:
            shown[account] = display(Rating(data.mu, data.sigma)), is_provisional(data.games)
    return shown


def no_shows(before: Table, events: Sequence[Event]) -> list[int]:
    """The accounts whose no-show ``events`` abort a ranked game (kept for the queue's bar)."""
    found = []
    for event in events:
        if not isinstance(event, GameAborted) or before.kind is not Kind.RANKED:
            continue
        if before.event is not None:
            continue  # an event's no-show forfeits the event's game, not the queue
        occupant = before.seats.get(event.seat)
        member = before.member(occupant.mid) if isinstance(occupant, Person) else None
        account = account_of(member.device if member is not None else None)
        if account is not None:
            found.append(account)
    return found


def finished_ratings(store: Store, table_id: str, game_number: int) -> list[dict[str, object]]:
    """The ``ratings`` of a ranked game's ``finished`` message, as stored (blocking).

    Each: ``{"username", "ladder", "before", "after", "provisional"}`` (the
    displayed numbers; provisional after this game).
    """
    changes = store.game_rating_changes(table_id, game_number)
    if not changes:
        return []
    ladder = changes[0].change.ladder
    games = store.ratings_of([c.change.account_id for c in changes], ladder)
    return [
        {
            "username": c.username,
            "ladder": c.change.ladder,
            "before": c.change.rating_before,
            "after": c.change.rating_after,
            "outcome": c.change.outcome,
            "provisional": is_provisional(
                games[c.change.account_id].games if c.change.account_id in games else 0
            ),
        }
        for c in changes
    ]
