"""Practice: drills' sets, the daily challenge's scores, and the sets the server hands out.

:class:`PracticeStore` keeps each verified set of a drill (personal bests,
trends, the open-20 record), one score per device (and account) and day at
the daily challenge with its rank on the day's leaderboards, and the sets
played with the server's hand (their secret seed and the attempts so far).
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from typing import Any, cast

from sqlalchemy import (
    func,
    or_,
    select,
    update,
)
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from crokinole.store.database import (
    AlreadyPlayedError,
    Database,
    StoreDataError,
    iso_utc,
    to_json,
    utc_now,
)
from crokinole.store.models import (
    AccountRow,
    DailyScoreRow,
    DrillResultRow,
    PracticeSetRow,
)
from crokinole.store.values import PracticeSetData


class PracticeStore(Database):
    """Drills' sets, the daily challenge's scores and entries, and the server's sets."""

    def add_drill_result(
        self,
        device: str,
        account_id: int | None,
        drill: str,
        *,
        score: int,
        attempts: int,
        percent: float,
        shots: list[dict[str, Any]],
        full: bool = True,
        set_id: str | None = None,
        now: datetime | None = None,
    ) -> bool:
        """Keep a verified set of a drill; whether it is a new personal best.

        A personal best is a full set whose percentage is higher than that of
        every full set of the drill before it on this device or account
        (:meth:`drill_bests`).  The set was played with the human hand
        (``set_id``: the server's set it was played in); the sets of a steady
        hand kept before migration 0009 count for no best, trend or record.
        Each shot may carry its attempt's ``points`` (the open-20 record
        counts attempts from them).

        >>> store = PracticeStore.open("sqlite://")
        >>> def add(score: int) -> bool:
        ...     return store.add_drill_result(
        ...         "d" * 16, None, "open20", score=score, attempts=10, percent=10.0 * score,
        ...         shots=[],
        ...     )
        >>> add(6), add(5), add(7)
        (True, False, True)

        Raises:
            StoreDataError: a value the store will not keep; nothing was written.
        """
        _check_practice(device, drill, score, attempts)
        if not (isinstance(percent, int | float) and 0.0 <= percent <= 100.0):
            raise StoreDataError(f"a percentage is from 0 to 100, not {percent!r}")
        shots_json = to_json(shots, "the shots")
        at = utc_now() if now is None else now
        with self._writing() as session:
            best = None
            if full:
                best = session.scalar(
                    select(func.max(DrillResultRow.percent)).where(
                        DrillResultRow.drill == drill,
                        DrillResultRow.full.is_(True),
                        *_human_sets(device, account_id),
                    )
                )
            session.add(
                DrillResultRow(
                    device_token=device,
                    account_id=account_id,
                    drill=drill,
                    score=score,
                    attempts=attempts,
                    percent=float(percent),
                    full=full,
                    shots_json=shots_json,
                    at=at,
                    hand="human",
                    set_id=set_id,
                )
            )
            return full and (best is None or float(percent) > float(best))

    def drill_bests(self, device: str, account_id: int | None) -> dict[str, dict[str, Any]]:
        """The best full set of each drill played on this device or account.

        Best by percentage, then score; the earliest of equals.  Each is
        ``{"score", "attempts", "percent", "at"}`` (``at`` ISO 8601 UTC).
        """
        with self._session() as session:
            rows = session.execute(
                select(*_columns("drill", "score", "attempts", "percent", "at"))
                .where(
                    DrillResultRow.full.is_(True),
                    *_human_sets(device, account_id),
                )
                .order_by(
                    DrillResultRow.drill,
                    DrillResultRow.percent.desc(),
                    DrillResultRow.score.desc(),
                    DrillResultRow.id,
                )
            ).all()
        bests: dict[str, dict[str, Any]] = {}
        for drill, score, attempts, percent, at in rows:
            if drill not in bests:
                bests[drill] = {
                    "score": score,
                    "attempts": attempts,
                    "percent": float(percent),
                    "at": iso_utc(at),
                }
        return bests

    def drill_trend(
        self, device: str, account_id: int | None, drill: str = "open20", limit: int = 50
    ) -> list[dict[str, Any]]:
        """The latest ``limit`` sets of a drill on this device or account, oldest first:
        ``{"at", "percent", "score", "attempts"}`` each."""
        with self._session() as session:
            rows = session.execute(
                select(*_columns("at", "percent", "score", "attempts"))
                .where(
                    DrillResultRow.drill == drill,
                    *_human_sets(device, account_id),
                )
                .order_by(DrillResultRow.id.desc())
                .limit(limit)
            ).all()
        return [
            {"at": iso_utc(at), "percent": float(percent), "score": score, "attempts": attempts}
            for at, percent, score, attempts in reversed(rows)
        ]

    def open_twenty_record(
        self, device: str, account_id: int | None, last: int = 100
    ) -> tuple[int, int] | None:
        """Open 20s made and attempted over the latest ``last`` attempts of the open-20 drill
        on this device or account, or None when it was never played.

        Attempts are counted shot by shot from the shots' ``points``; a set
        kept without them counts whole (its score made of its attempts).

        >>> store = PracticeStore.open("sqlite://")
        >>> store.open_twenty_record("d" * 16, None) is None
        True
        >>> shots = [{"points": p} for p in (1, 0, 1, 1)]
        >>> _ = store.add_drill_result(
        ...     "d" * 16, None, "open20", score=3, attempts=4, percent=75.0, shots=shots, full=False
        ... )
        >>> store.open_twenty_record("d" * 16, None), store.open_twenty_record("d" * 16, None, 2)
        ((3, 4), (2, 2))
        """
        made = attempted = 0
        with self._session() as session:
            rows = session.execute(
                select(*_columns("score", "attempts", "shots_json"))
                .where(
                    DrillResultRow.drill == "open20",
                    *_human_sets(device, account_id),
                )
                .order_by(DrillResultRow.id.desc())
            )
            for score, attempts, shots_json in rows:
                points = _attempt_points(shots_json, attempts)
                if points is None:  # counted whole
                    made, attempted = made + score, attempted + attempts
                else:
                    taken = points[-(last - attempted) :]
                    made, attempted = made + sum(taken), attempted + len(taken)
                if attempted >= last:
                    break
        return None if attempted == 0 else (made, attempted)

    def add_daily_score(
        self,
        day: str,
        device: str,
        account_id: int | None,
        *,
        name: str,
        score: int,
        shots: list[dict[str, Any]],
        now: datetime | None = None,
    ) -> int:
        """Keep a verified score at ``day``'s challenge; its rank on the day's leaderboard.

        One score per device, and per account, and day.

        >>> store = PracticeStore.open("sqlite://")
        >>> def add(device: str, name: str, score: int) -> int:
        ...     return store.add_daily_score(
        ...         "2026-12-01", device, None, name=name, score=score, shots=[]
        ...     )
        >>> add("a" * 16, "Ann", 15), add("b" * 16, "Bob", 20), add("c" * 16, "Cy", 15)
        (1, 1, 3)
        >>> add("a" * 16, "Ann", 25)
        Traceback (most recent call last):
        ...
        crokinole.store.database.AlreadyPlayedError: this device has played the challenge of \
2026-12-01 already (score 15)

        Raises:
            AlreadyPlayedError: the device or account has a score that day.
            StoreDataError: a value the store will not keep; nothing was written.
        """
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", day):
            raise StoreDataError(f"a day is written YYYY-MM-DD, not {day!r}")
        if not isinstance(name, str) or not 1 <= len(name) <= 32:
            raise StoreDataError(f"a leaderboard name is 1 to 32 characters, not {name!r}")
        _check_practice(device, "daily", score, 1)
        shots_json = to_json(shots, "the shots")
        at = utc_now() if now is None else now
        try:
            with self._writing() as session:
                played = _daily_score(session, day, device, account_id)
                if played is not None:
                    who = "this device" if played.device_token == device else "this account"
                    raise AlreadyPlayedError(
                        f"{who} has played the challenge of {day} already (score {played.score})"
                    )
                row = DailyScoreRow(
                    day=day, device_token=device, account_id=account_id, name=name, score=score,
                    shots_json=shots_json, at=at,
                )  # fmt: skip
                session.add(row)
                session.flush()
                return _daily_rank(session, row)
        except IntegrityError:
            raise AlreadyPlayedError(
                f"this device has played the challenge of {day} already"
            ) from None

    def daily_entry(self, day: str, device: str, account_id: int | None) -> dict[str, Any] | None:
        """This device's (or account's) score at ``day``'s challenge with its rank, or None:
        ``{"name", "score", "rank", "at"}``."""
        with self._session() as session:
            row = _daily_score(session, day, device, account_id)
            if row is None:
                return None
            rank = _daily_rank(session, row)
            return {"name": row.name, "score": row.score, "rank": rank, "at": iso_utc(row.at)}

    def daily_leaderboard(
        self, day: str, limit: int = 20, *, guests: bool = False
    ) -> list[dict[str, Any]]:
        """The best ``limit`` scores of accounts (``guests``: of guests) at ``day``'s
        challenge: the highest first, then the earliest: ``{"rank", "name", "score", "at"}``
        each.  An account's name is its username (as it is now); the two boards are
        ranked apart."""
        with self._session() as session:
            if guests:
                query = select(DailyScoreRow.name, DailyScoreRow.score, DailyScoreRow.at).where(
                    DailyScoreRow.day == day, DailyScoreRow.account_id.is_(None)
                )
            else:
                query = (
                    select(AccountRow.username, DailyScoreRow.score, DailyScoreRow.at)
                    .join(AccountRow, AccountRow.id == DailyScoreRow.account_id)
                    .where(DailyScoreRow.day == day)
                )
            rows = session.execute(
                query.order_by(
                    DailyScoreRow.score.desc(), DailyScoreRow.at, DailyScoreRow.id
                ).limit(limit)
            ).all()
        return [
            {"rank": rank, "name": name, "score": score, "at": iso_utc(at)}
            for rank, (name, score, at) in enumerate(rows, 1)
        ]

    def create_practice_set(
        self,
        set_id: str,
        *,
        kind: str,
        drill: str,
        device: str,
        account_id: int | None,
        seed: int,
        attempts: int,
        day: str | None = None,
        now: datetime | None = None,
    ) -> None:
        """Keep a new set the server hands out, with its secret ``seed``.

        A daily set (``kind`` ``daily``, ``day``) is the entry of an account
        (or, for a guest, of the device) at that day's challenge: one a day.

        >>> store = PracticeStore.open("sqlite://")
        >>> def enter(set_id: str, device: str) -> None:
        ...     store.create_practice_set(set_id, kind="daily", drill="daily", day="2026-12-01",
        ...         device=device, account_id=None, seed=7, attempts=3)
        >>> enter("s1", "a" * 16)
        >>> enter("s2", "a" * 16)
        Traceback (most recent call last):
        ...
        crokinole.store.database.AlreadyPlayedError: this device has entered the challenge of \
2026-12-01 already: one entry a day

        Raises:
            AlreadyPlayedError: a second daily entry of the account or device.
            StoreDataError: a value the store will not keep; nothing was written.
        """
        _check_practice(device, drill, 0, attempts)
        if kind not in ("drill", "daily") or (kind == "daily") != (day is not None):
            raise StoreDataError(f"a set is of a drill, or of a day's challenge, not {kind!r}")
        if not isinstance(set_id, str) or not 1 <= len(set_id) <= 32:
            raise StoreDataError("a set's id is 1 to 32 characters")
        key = None
        if day is not None:
            key = (
                f"{day}:account:{account_id}"
                if account_id is not None
                else f"{day}:device:{device}"
            )
        try:
            with self._writing() as session:
                if day is not None:
                    entered = session.scalar(
                        select(func.count())
                        .select_from(PracticeSetRow)
                        .where(
                            PracticeSetRow.kind == "daily",
                            PracticeSetRow.day == day,
                            _practice_owner(PracticeSetRow, device, account_id),
                        )
                    )
                    if entered:
                        raise _entered(day, account_id)
                session.add(
                    PracticeSetRow(
                        id=set_id, kind=kind, drill=drill, day=day, device_token=device,
                        account_id=account_id, seed=int(seed), attempts=int(attempts), played=0,
                        shots_json="[]", finished=False, entry_key=key,
                        created_at=utc_now() if now is None else now,
                    )
                )  # fmt: skip
                session.flush()
        except IntegrityError:
            raise _entered(day, account_id) from None

    def practice_set(self, set_id: str) -> PracticeSetData | None:
        """A set the server handed out (its seed included: never for a client), or None."""
        with self._session() as session:
            row = session.get(PracticeSetRow, set_id)
            if row is None:
                return None
            return PracticeSetData(
                id=row.id, kind=row.kind, drill=row.drill, day=row.day, device=row.device_token,
                account_id=row.account_id, seed=int(row.seed), attempts=row.attempts,
                shots=tuple(json.loads(row.shots_json)), finished=row.finished,
            )  # fmt: skip

    def daily_set(self, day: str, device: str, account_id: int | None) -> str | None:
        """The id of the device's (or account's) entry at ``day``'s challenge, or None."""
        with self._session() as session:
            found = session.scalar(
                select(PracticeSetRow.id)
                .where(
                    PracticeSetRow.kind == "daily",
                    PracticeSetRow.day == day,
                    _practice_owner(PracticeSetRow, device, account_id),
                )
                .limit(1)
            )
            return None if found is None else str(found)

    def add_practice_shot(self, set_id: str, played: int, shot: dict[str, Any]) -> bool:
        """Add attempt ``played + 1`` to an open set; False when the set moved on (another
        shot came first) or is finished: nothing was written."""
        shot_json = to_json(shot, "the shot")
        with self._writing() as session:
            row = session.get(PracticeSetRow, set_id)
            if row is None or row.finished or row.played != played or played >= row.attempts:
                return False
            shots = [*json.loads(row.shots_json), json.loads(shot_json)]
            changed = session.execute(
                update(PracticeSetRow)
                .where(
                    PracticeSetRow.id == set_id,
                    PracticeSetRow.played == played,
                    PracticeSetRow.finished.is_(False),
                )
                .values(played=played + 1, shots_json=json.dumps(shots))
            )
            return bool(changed.rowcount == 1)  # type: ignore[attr-defined]

    def finish_practice_set(self, set_id: str) -> bool:
        """Close a set (its result is being kept); False when it was closed already."""
        with self._writing() as session:
            changed = session.execute(
                update(PracticeSetRow)
                .where(PracticeSetRow.id == set_id, PracticeSetRow.finished.is_(False))
                .values(finished=True)
            )
            return bool(changed.rowcount == 1)  # type: ignore[attr-defined]


def _entered(day: str | None, account_id: int | None) -> AlreadyPlayedError:
    who = "this device" if account_id is None else "this account"
    return AlreadyPlayedError(f"{who} has entered the challenge of {day} already: one entry a day")


def _practice_owner(row: Any, device: str, account_id: int | None) -> Any:
    """The rows of a device, or of a device and an account together."""
    if account_id is None:
        return row.device_token == device
    return or_(row.device_token == device, row.account_id == account_id)


def _human_sets(device: str, account_id: int | None) -> tuple[Any, Any]:
    """The conditions of the sets played with the human hand on this device or account (the
    sets of a steady hand, kept before migration 0009, count for no best, trend or record)."""
    return DrillResultRow.hand == "human", _practice_owner(DrillResultRow, device, account_id)


def _columns(*names: str) -> list[Any]:
    """The columns of :class:`DrillResultRow` called ``names``."""
    return [getattr(DrillResultRow, name) for name in names]


def _check_practice(device: str, drill: str, score: int, attempts: int) -> None:
    if not isinstance(device, str) or not 1 <= len(device) <= 64:
        raise StoreDataError("a device token is 1 to 64 characters")
    if not isinstance(drill, str) or not 1 <= len(drill) <= 16:
        raise StoreDataError(f"a drill id is 1 to 16 characters, not {drill!r}")
    for what, value in (("score", score), ("attempts", attempts)):
        if not isinstance(value, int) or isinstance(value, bool):
            raise StoreDataError(f"the {what} is a whole number, not {value!r}")
    if attempts < 1:
        raise StoreDataError(f"a set has at least 1 attempt, not {attempts}")


def _attempt_points(shots_json: str, attempts: int) -> list[int] | None:
    """Each attempt's points kept with a set's shots, or None when they were not kept."""
    try:
        shots = json.loads(shots_json)
    except ValueError:
        return None
    if not isinstance(shots, list) or len(shots) != attempts:
        return None
    points = [s.get("points") if isinstance(s, dict) else None for s in shots]
    if not all(isinstance(p, int) and not isinstance(p, bool) for p in points):
        return None
    return cast(list[int], points)


def _daily_score(
    session: Session, day: str, device: str, account_id: int | None
) -> DailyScoreRow | None:
    """The score at ``day``'s challenge of the device (or of the account), or None."""
    return session.scalars(
        select(DailyScoreRow).where(
            DailyScoreRow.day == day, _practice_owner(DailyScoreRow, device, account_id)
        )
    ).first()


def _daily_rank(session: Session, row: DailyScoreRow) -> int:
    """1 + the scores of the day ahead of ``row`` (higher, or equal and earlier)."""
    ahead = session.scalar(
        select(func.count())
        .select_from(DailyScoreRow)
        .where(
            DailyScoreRow.day == row.day,
            # Accounts and guests are ranked apart.
            DailyScoreRow.account_id.is_(None)
            if row.account_id is None
            else DailyScoreRow.account_id.is_not(None),
            or_(
                DailyScoreRow.score > row.score,
                (DailyScoreRow.score == row.score) & (DailyScoreRow.at < row.at),
                (DailyScoreRow.score == row.score)
                & (DailyScoreRow.at == row.at)
                & (DailyScoreRow.id < row.id),
            ),
        )
    )
    return int(ahead or 0) + 1
