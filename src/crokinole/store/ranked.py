"""Ratings and the ranked queue, and the fair-play facts of ranked games.

:class:`RankedStore` reads the accounts' ratings per ladder, their changes
game by game, the leaderboard and the queue of accounts waiting for a ranked
game; it notes the devices a ranked game is played from and the no-shows.
The ratings are written with the game that moved them, in the table's append
(:func:`rate`, called by :mod:`crokinole.store.tables`).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import datetime

from sqlalchemy import (
    delete,
    select,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from crokinole.store.database import (
    AlreadyQueuedError,
    Database,
    StoreDataError,
    utc_now,
)
from crokinole.store.models import (
    AccountRow,
    NoShowRow,
    RankedDeviceRow,
    RankedQueueRow,
    RatingChangeRow,
    RatingRow,
    TableMemberRow,
    TableRow,
)
from crokinole.store.values import (
    LADDERS,
    RESULTS,
    QueueEntryData,
    RatingChange,
    RatingChangeData,
    RatingData,
    from_row,
)


class RankedStore(Database):
    """Ratings per ladder, their changes, the ranked queue, ranked devices and no-shows."""

    def ratings_of(self, account_ids: Sequence[int], ladder: str) -> dict[int, RatingData]:
        """The ratings on ``ladder`` of the accounts that have one (an account
        that never played there has none: it starts at the initial rating)."""
        _check_ladder(ladder)
        if not account_ids:
            return {}
        with self._session() as session:
            rows = session.execute(
                select(RatingRow, AccountRow.username, AccountRow.bot)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.ladder == ladder, RatingRow.account_id.in_(list(account_ids)))
            ).all()
            return {row.account_id: _rating_data(row, name, bot) for row, name, bot in rows}

    def account_ratings(self, account_id: int) -> list[RatingData]:
        """The account's ratings, one per ladder it played on."""
        with self._session() as session:
            rows = session.execute(
                select(RatingRow, AccountRow.username, AccountRow.bot)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.account_id == account_id)
                .order_by(RatingRow.ladder)
            ).all()
            return [_rating_data(row, name, bot) for row, name, bot in rows]

    def leaderboard(self, ladder: str, min_games: int, limit: int = 100) -> list[RatingData]:
        """The best ``limit`` ratings on ``ladder`` of accounts with ``min_games`` games or more.

        Highest displayed rating first; a tie goes to more games, then the
        username's alphabetical order.

        >>> store = RankedStore.open("sqlite://")
        >>> store.leaderboard("singles", 5)
        []
        >>> store.leaderboard("triples", 5)  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        crokinole.store.database.StoreDataError: a ladder is singles or doubles ... not 'triples'
        """
        _check_ladder(ladder)
        with self._session() as session:
            rows = session.execute(
                select(RatingRow, AccountRow.username, AccountRow.bot)
                .join(AccountRow, AccountRow.id == RatingRow.account_id)
                .where(RatingRow.ladder == ladder, RatingRow.games >= min_games)
                .order_by(RatingRow.rating.desc(), RatingRow.games.desc(), AccountRow.username_key)
                .limit(limit)
            ).all()
            return [_rating_data(row, name, bot) for row, name, bot in rows]

    def rating_changes(
        self, account_id: int, ladder: str | None = None, limit: int = 1000
    ) -> list[RatingChangeData]:
        """The account's latest ``limit`` rating changes (on ``ladder``, or all), oldest first."""
        with self._session() as session:
            query = (
                select(RatingChangeRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingChangeRow.account_id)
                .where(RatingChangeRow.account_id == account_id)
            )
            if ladder is not None:
                _check_ladder(ladder)
                query = query.where(RatingChangeRow.ladder == ladder)
            rows = session.execute(query.order_by(RatingChangeRow.id.desc()).limit(limit)).all()
            return [_change_data(row, name) for row, name in reversed(rows)]

    def game_rating_changes(self, table_id: str, game_number: int) -> list[RatingChangeData]:
        """Every player's rating change caused by one game, side A's first."""
        with self._session() as session:
            rows = session.execute(
                select(RatingChangeRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingChangeRow.account_id)
                .where(
                    RatingChangeRow.table_id == table_id,
                    RatingChangeRow.game_number == game_number,
                )
                .order_by(RatingChangeRow.side, RatingChangeRow.id)
            ).all()
            return [_change_data(row, name) for row, name in rows]

    def ranked_games(self, account_id: int, limit: int = 50) -> list[list[RatingChangeData]]:
        """The account's latest ``limit`` ranked games, latest first: each game's changes of
        every player (side A's first), the account's among them."""
        mine = self.rating_changes(account_id, limit=limit)
        games = [(c.table_id, c.change.game_number) for c in reversed(mine)]
        if not games:
            return []
        with self._session() as session:
            rows = session.execute(
                select(RatingChangeRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RatingChangeRow.account_id)
                .where(RatingChangeRow.table_id.in_([table for table, _ in games]))
                .order_by(RatingChangeRow.side, RatingChangeRow.id)
            ).all()
        by_game: dict[tuple[str, int], list[RatingChangeData]] = {}
        for row, name in rows:
            by_game.setdefault((row.table_id, row.game_number), []).append(_change_data(row, name))
        return [by_game[game] for game in games if game in by_game]

    def queue_add(self, account_id: int, ladder: str, joined_at: float) -> QueueEntryData:
        """Put the account in the ranked queue of ``ladder`` since ``joined_at`` (server seconds).

        Raises:
            AlreadyQueuedError: it waits there already (on any ladder).
            StoreDataError: an unknown ladder or account.
        """
        _check_ladder(ladder)
        if not math.isfinite(joined_at):
            raise StoreDataError(f"a queue entry's time is a number of seconds, not {joined_at!r}")
        try:
            with self._writing() as session:
                account = session.get(AccountRow, account_id)
                if account is None:
                    raise StoreDataError(f"there is no account {account_id}")
                session.add(
                    RankedQueueRow(account_id=account_id, ladder=ladder, joined_at=joined_at)
                )
                session.flush()
                return QueueEntryData(account_id, account.username, ladder, float(joined_at))
        except IntegrityError:
            raise AlreadyQueuedError(f"account {account_id} waits in the queue already") from None

    def queue_remove(self, account_ids: Sequence[int]) -> int:
        """Take the accounts out of the ranked queue; how many were in it."""
        if not account_ids:
            return 0
        with self._writing() as session:
            result = session.execute(
                delete(RankedQueueRow).where(RankedQueueRow.account_id.in_(list(account_ids)))
            )
            return int(result.rowcount)  # type: ignore[attr-defined]

    def queue_entries(self) -> list[QueueEntryData]:
        """Everyone in the ranked queue, the longest waiting first."""
        with self._session() as session:
            rows = session.execute(
                select(RankedQueueRow, AccountRow.username)
                .join(AccountRow, AccountRow.id == RankedQueueRow.account_id)
                .order_by(RankedQueueRow.joined_at, RankedQueueRow.account_id)
            ).all()
            return [
                QueueEntryData(row.account_id, name, row.ladder, float(row.joined_at))
                for row, name in rows
            ]

    def add_ranked_device(self, table_id: str, device: str, now: datetime | None = None) -> None:
        """Note that a ranked table's player plays from ``device`` (kept once)."""
        with self._writing() as session:
            if session.get(RankedDeviceRow, (table_id, device)) is None:
                session.add(
                    RankedDeviceRow(
                        table_id=table_id, device_token=device, at=utc_now() if now is None else now
                    )
                )

    def ranked_game_in_play(self, device: str | None, account_id: int | None) -> str | None:
        """The ranked table being played by the account, or from the device, or None."""
        with self._session() as session:
            if account_id is not None:
                found = session.scalar(
                    select(TableRow.id)
                    .join(TableMemberRow, TableMemberRow.table_id == TableRow.id)
                    .where(
                        TableMemberRow.device_token == f"account:{account_id}",
                        TableRow.kind == "ranked",
                        TableRow.status == "playing",
                    )
                    .limit(1)
                )
                if found is not None:
                    return str(found)
            if device is not None:
                found = session.scalar(
                    select(TableRow.id)
                    .join(RankedDeviceRow, RankedDeviceRow.table_id == TableRow.id)
                    .where(
                        RankedDeviceRow.device_token == device,
                        TableRow.kind == "ranked",
                        TableRow.status == "playing",
                    )
                    .limit(1)
                )
                if found is not None:
                    return str(found)
        return None

    def no_shows_since(self, account_id: int, since: datetime) -> list[datetime]:
        """When the account's no-shows since ``since`` were, the earliest first."""
        with self._session() as session:
            return list(
                session.scalars(
                    select(NoShowRow.at)
                    .where(NoShowRow.account_id == account_id, NoShowRow.at >= since)
                    .order_by(NoShowRow.at)
                ).all()
            )


def _check_ladder(ladder: str) -> None:
    if ladder not in LADDERS:
        raise StoreDataError(f"a ladder is singles or doubles (or bots), not {ladder!r}")


def check_change(table_id: str, change: RatingChange) -> None:
    """Refuse (:class:`StoreDataError`) a rating change the store will not keep."""
    if not isinstance(change, RatingChange):
        raise StoreDataError(f"table {table_id}: a rating change is a RatingChange, not {change!r}")
    _check_ladder(change.ladder)
    if change.outcome not in RESULTS:
        raise StoreDataError(
            f"table {table_id}: unknown outcome {change.outcome!r} (not {RESULTS})"
        )
    numbers = (change.mu_before, change.sigma_before, change.mu_after, change.sigma_after)
    if not all(math.isfinite(x) for x in numbers) or change.side not in (0, 1):
        raise StoreDataError(f"table {table_id}: a rating change out of range: {change!r}")


def rate(session: Session, table_id: str, changes: Sequence[RatingChange], now: datetime) -> None:
    """Write ``changes`` into the ratings, and keep each with its game."""
    won = {"win": (1, 0, 0), "draw": (0, 1, 0), "loss": (0, 0, 1)}
    for c in changes:
        row = session.get(RatingRow, (c.account_id, c.ladder), with_for_update=True)
        wins, draws, losses = won[c.outcome]
        if row is None:
            session.add(
                RatingRow(
                    account_id=c.account_id, ladder=c.ladder, mu=c.mu_after, sigma=c.sigma_after,
                    rating=c.rating_after, games=1, wins=wins, draws=draws, losses=losses,
                    updated_at=now,
                )
            )  # fmt: skip
        else:
            row.mu, row.sigma, row.rating = c.mu_after, c.sigma_after, c.rating_after
            row.games += 1
            row.wins += wins
            row.draws += draws
            row.losses += losses
            row.updated_at = now
        session.add(
            RatingChangeRow(
                account_id=c.account_id, ladder=c.ladder, table_id=table_id,
                game_number=c.game_number, side=c.side, mu_before=c.mu_before,
                sigma_before=c.sigma_before, mu_after=c.mu_after, sigma_after=c.sigma_after,
                rating_before=c.rating_before, rating_after=c.rating_after, outcome=c.outcome,
                at=now,
            )
        )  # fmt: skip


def _rating_data(row: RatingRow, username: str, bot: bool = False) -> RatingData:
    return from_row(RatingData, row, username=username, bot=bool(bot))


def _change_data(row: RatingChangeRow, username: str) -> RatingChangeData:
    return RatingChangeData(row.table_id, username, from_row(RatingChange, row), row.at)
