"""A score sheet for games on a real board, on the rules engine's scoring (R2, R6).

Players enter each round as each side's total, or as counts of discs (20s
and discs on 15, 10 and 5) from which the total is computed.  The sheet
keeps the running game score in the chosen format, says who opens the next
round (R2) and names the winner once the format ends the game.

>>> sheet = ScoreSheet.new(Layout.SINGLES, ("Ann", "Bob"), Scoring.FOUR_ROUNDS)
>>> sheet = sheet.add_round(totals=(45, 30)).add_round(counts=((1, 1, 0, 0), (2, 0, 1, 1)))
>>> summary = sheet.summary()
>>> summary.scores, summary.next_first.name, summary.rounds[1].totals
((2, 2), 'SOUTH', (35, 55))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any

from crokinole.board import Seat
from crokinole.errors import InvalidRulesError
from crokinole.rules.options import Layout, Rules, Scoring, TieSetting
from crokinole.rules.scoring import GameOutcome, SideCount, game_outcome, round_points

_DISCS = {
    Layout.SINGLES: 8,
    Layout.DOUBLES: 12,
    Layout.TWO_VS_ONE: 12,
    Layout.THREE_SINGLES: 8,
}
MAX_NAME = 40


class SheetError(InvalidRulesError):
    """An entry the sheet refuses (the message says why); the sheet is unchanged."""


@dataclass(frozen=True, slots=True)
class SheetRound:
    """One round as entered.

    Attributes:
        totals: each side's round total.
        counts: each side's discs by zone, when entered with the counting helper.
    """

    totals: tuple[int, ...]
    counts: tuple[SideCount, ...] | None = None


@dataclass(frozen=True, slots=True)
class RoundLine:
    """One line of the sheet as shown: the round, its points and the running score."""

    number: int
    totals: tuple[int, ...]
    counts: tuple[SideCount, ...] | None
    points: tuple[int, ...]
    scores: tuple[int, ...]
    first: Seat


@dataclass(frozen=True, slots=True)
class SheetSummary:
    """Everything the sheet shows.

    Attributes:
        rounds: the lines, in order.
        scores: the game score after the last round.
        next_first: who opens the next round (R2).
        outcome: winner or draw once the game is over, else None.
    """

    rounds: tuple[RoundLine, ...]
    scores: tuple[int, ...]
    next_first: Seat
    outcome: GameOutcome | None

    @property
    def over(self) -> bool:
        """Whether the format has ended the game."""
        return self.outcome is not None


@dataclass(frozen=True)
class ScoreSheet:
    """A score sheet: format, names, who opened, and the rounds entered.

    Attributes:
        rules: the format (layout, scoring, tie setting).
        names: a name per side (players or teams).
        first_seat: who opened round 1.
        rounds: the rounds entered.
    """

    rules: Rules
    names: tuple[str, ...]
    first_seat: Seat = Seat.SOUTH
    rounds: tuple[SheetRound, ...] = field(default=())

    @classmethod
    def new(
        cls,
        layout: Layout | str,
        names: tuple[str, ...] | list[str],
        scoring: Scoring | str,
        tie: TieSetting | str = TieSetting.DRAW,
        first_seat: Seat = Seat.SOUTH,
    ) -> ScoreSheet:
        """A blank sheet.

        Raises:
            SheetError: a bad format, a name missing or too long, or a first
                seat that is not in play.
        """
        try:
            layout = Layout(layout)
        except ValueError:
            allowed = ", ".join(repr(k.value) for k in Layout)
            raise SheetError(f"layout must be one of {allowed}, got {layout!r}") from None
        try:
            rules = Rules(layout=layout, discs_per_side=_DISCS[layout], scoring=scoring, tie=tie)  # type: ignore[arg-type]
        except InvalidRulesError as exc:
            raise SheetError(str(exc)) from None
        sides = len(rules.sides)
        clean = tuple(str(n).strip() for n in names)
        if len(clean) != sides:
            raise SheetError(
                f"{layout.value.replace('_', ' ')} needs {sides} names, got {len(clean)}"
            )
        for name in clean:
            if not name:
                raise SheetError("every side needs a name")
            if len(name) > MAX_NAME:
                raise SheetError(f"a name is at most {MAX_NAME} characters: {name[:12]!r}…")
        if first_seat not in rules.seats:
            raise SheetError(f"{first_seat.name.lower()} does not play in this format")
        return cls(rules, clean, first_seat)

    # ------------------------------------------------------------- entries

    def _round_from(
        self,
        totals: tuple[int, ...] | list[int] | None,
        counts: Any,
    ) -> SheetRound:
        sides = len(self.rules.sides)
        if (totals is None) == (counts is None):
            raise SheetError("enter either each side's total or each side's counts")
        if counts is not None:
            if not isinstance(counts, list | tuple) or len(counts) != sides:
                raise SheetError(f"counts are needed for each of the {sides} sides")
            parsed: list[SideCount] = []
            for side, row in enumerate(counts):
                if not isinstance(row, list | tuple) or len(row) != 4:
                    raise SheetError(
                        f"{self.names[side]}: counts are 20s, 15s, 10s and 5s (four numbers)"
                    )
                for value in row:
                    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                        raise SheetError(
                            f"{self.names[side]}: counts are whole numbers of discs, not {value!r}"
                        )
                if sum(row) > self.rules.discs_per_side:
                    raise SheetError(
                        f"{self.names[side]}: {sum(row)} discs counted, but a side has only "
                        f"{self.rules.discs_per_side}"
                    )
                parsed.append(SideCount(*row))
            return SheetRound(tuple(c.total for c in parsed), tuple(parsed))
        assert totals is not None
        if not isinstance(totals, list | tuple) or len(totals) != sides:
            raise SheetError(f"a total is needed for each of the {sides} sides")
        most = 20 * self.rules.discs_per_side
        for side, total in enumerate(totals):
            if not isinstance(total, int) or isinstance(total, bool) or total < 0:
                raise SheetError(
                    f"{self.names[side]}: a total is a whole number ≥ 0, not {total!r}"
                )
            if total % 5:
                raise SheetError(f"{self.names[side]}: {total} is not a multiple of 5")
            if total > most:
                raise SheetError(
                    f"{self.names[side]}: {total} is more than {most}, "
                    f"all {self.rules.discs_per_side} discs in the 20 hole"
                )
        return SheetRound(tuple(totals))

    def add_round(
        self, totals: tuple[int, ...] | list[int] | None = None, counts: Any = None
    ) -> ScoreSheet:
        """The sheet with one more round.

        Raises:
            SheetError: a bad entry, or the game is already over.
        """
        if self.summary().over:
            raise SheetError("the game is over: no more rounds can be added")
        return replace(self, rounds=(*self.rounds, self._round_from(totals, counts)))

    def edit_round(
        self, index: int, totals: tuple[int, ...] | list[int] | None = None, counts: Any = None
    ) -> ScoreSheet:
        """The sheet with round ``index`` (from 0) entered again."""
        self._check_index(index)
        rounds = list(self.rounds)
        rounds[index] = self._round_from(totals, counts)
        return self._checked(replace(self, rounds=tuple(rounds)))

    def delete_round(self, index: int) -> ScoreSheet:
        """The sheet without round ``index`` (from 0)."""
        self._check_index(index)
        return self._checked(replace(self, rounds=self.rounds[:index] + self.rounds[index + 1 :]))

    def _check_index(self, index: int) -> None:
        if not isinstance(index, int) or not 0 <= index < len(self.rounds):
            raise SheetError(f"there is no round {index + 1 if isinstance(index, int) else index}")

    @staticmethod
    def _checked(sheet: ScoreSheet) -> ScoreSheet:
        summary = sheet.summary()
        if summary.over and len(summary.rounds) < len(sheet.rounds):
            ended = len(summary.rounds)
            raise SheetError(
                f"with this change the game ends after round {ended}, but later rounds "
                "follow; delete them first"
            )
        return sheet

    # ------------------------------------------------------------- reading

    def summary(self) -> SheetSummary:
        """The sheet as shown: lines, running score, next first shooter, outcome."""
        seats = self.rules.seats
        first = self.first_seat
        scores = [0] * len(self.rules.sides)
        lines: list[RoundLine] = []
        outcome: GameOutcome | None = None
        for number, entered in enumerate(self.rounds, start=1):
            points = round_points(entered.totals, self.rules.scoring)
            scores = [s + p for s, p in zip(scores, points, strict=True)]
            lines.append(
                RoundLine(number, entered.totals, entered.counts, points, tuple(scores), first)
            )
            first = seats[(seats.index(first) + 1) % len(seats)]
            outcome = game_outcome(self.rules, scores, number)
            if outcome is not None:
                break
        return SheetSummary(tuple(lines), tuple(scores), first, outcome)

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "layout": self.rules.layout.value,
            "scoring": self.rules.scoring.value,
            "tie": self.rules.tie.value,
            "names": list(self.names),
            "first_seat": self.first_seat.name.lower(),
            "rounds": [
                {
                    "totals": list(r.totals),
                    "counts": None
                    if r.counts is None
                    else [[c.twenties, c.fifteens, c.tens, c.fives] for c in r.counts],
                }
                for r in self.rounds
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ScoreSheet:
        """Inverse of :meth:`to_dict` (every round is validated again)."""
        if not isinstance(data, dict):
            raise SheetError("a sheet is an object")
        try:
            first = Seat[str(data.get("first_seat", "south")).upper()]
        except KeyError:
            raise SheetError(f"unknown seat {data.get('first_seat')!r}") from None
        sheet = cls.new(
            data.get("layout", ""),
            data.get("names", []),
            data.get("scoring", ""),
            data.get("tie", "draw"),
            first,
        )
        for entry in data.get("rounds", []):
            if not isinstance(entry, dict):
                raise SheetError("a round is an object")
            counts = entry.get("counts")
            if counts is not None:
                sheet = sheet.add_round(counts=counts)
            else:
                sheet = sheet.add_round(totals=entry.get("totals"))
        return sheet

    def to_csv(self) -> str:
        """The sheet as CSV: one row per round with totals, points and running scores."""
        sides = [n.replace('"', "'") for n in self.names]
        head = ["round", "first"]
        head += [f"{n} total" for n in sides] + [f"{n} points" for n in sides]
        head += [f"{n} score" for n in sides]
        rows = [",".join(f'"{h}"' for h in head)]
        for line in self.summary().rounds:
            cells = [str(line.number), line.first.name.lower()]
            cells += [str(t) for t in line.totals] + [str(p) for p in line.points]
            cells += [str(s) for s in line.scores]
            rows.append(",".join(cells))
        return "\r\n".join(rows) + "\r\n"
