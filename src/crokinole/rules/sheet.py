"""A score sheet for games on a real board, on the rules engine's scoring (R2, R6).

Players enter each round as each side's total, or as counts of discs (20s
and discs on 15, 10 and 5) from which the total is computed.  The sheet
keeps the running game score in the chosen format, says who opens the next
round (R2) and names the winner once the format ends the game.  A sheet can
hold a match of several games: when a game ends the next one starts on the
same sheet, and the match goes to the side that won the most games.

>>> sheet = ScoreSheet.new(Layout.SINGLES, ("Ann", "Bob"), Scoring.FOUR_ROUNDS)
>>> sheet = sheet.add_round(totals=(45, 30)).add_round(counts=((1, 1, 0, 0), (2, 0, 1, 1)))
>>> summary = sheet.summary()
>>> summary.scores, sheet.player_name(summary.next_first), summary.rounds[1].totals
((2, 2), 'Ann', (35, 55))
>>> ScoreSheet.new("singles", ("Ann", "ann "), "four_rounds")
Traceback (most recent call last):
...
crokinole.rules.sheet.SheetError: two sides are called 'Ann' and 'ann': give each a different name
"""

from __future__ import annotations

import csv
import io
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from crokinole.board import Seat
from crokinole.errors import InvalidRulesError, UnknownSeatError
from crokinole.rules.options import DISCS_PER_SIDE, Layout, Rules, Scoring, TieSetting
from crokinole.rules.scoring import GameOutcome, SideCount, game_outcome, round_points

MAX_NAME = 40
"""Longest name, in characters."""

MAX_GAMES = 9
"""Most games a match on one sheet can have."""

# Characters that draw nothing although Unicode classes them as letters or
# symbols (fillers and the blank braille pattern): a name of these alone
# would show as an empty cell.
_BLANK_LETTERS = frozenset("\u115f\u1160\u3164\uffa0\u2800\u17b4\u17b5\u034f")
_BLANK_CATEGORIES = frozenset({"Zs", "Zl", "Zp", "Cf", "Cc", "Mn", "Me"})
# Text-direction controls can make a name display as some other text.
_DIRECTION_CONTROLS = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
# A spreadsheet runs a cell that starts with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


class SheetError(InvalidRulesError):
    """An entry the sheet refuses (the message says why); the sheet is unchanged."""


def _visible(char: str) -> bool:
    return char not in _BLANK_LETTERS and unicodedata.category(char) not in _BLANK_CATEGORIES


def _name_key(name: str) -> str:
    """What two names must not share: case, width and invisible characters aside."""
    folded = unicodedata.normalize("NFKC", name).casefold()
    kept = (
        " " if unicodedata.category(c).startswith("Z") else c
        for c in folded
        if c not in _BLANK_LETTERS and unicodedata.category(c) != "Cf"
    )
    return " ".join("".join(kept).split())


def clean_name(name: object) -> str:
    """A name as kept: trimmed, NFC; refused if blank, invisible, too long or with controls.

    >>> clean_name("  Ann ")
    'Ann'
    >>> clean_name("\\u200b ")
    Traceback (most recent call last):
    ...
    crokinole.rules.sheet.SheetError: a name needs at least one visible character, not '\\u200b '

    Raises:
        SheetError: the reason, quoting the name as given.
    """
    if not isinstance(name, str):
        raise SheetError(f"a name is text, not {name!r}")
    clean = unicodedata.normalize("NFC", name).strip()
    if not clean:
        raise SheetError("every side needs a name")
    if any(unicodedata.category(c) == "Cc" for c in clean):
        raise SheetError(f"a name cannot contain control characters (line breaks, tabs): {name!r}")
    if any(c in _DIRECTION_CONTROLS for c in clean):
        raise SheetError(f"a name cannot contain text-direction controls: {name!r}")
    if not any(_visible(c) for c in clean):
        raise SheetError(f"a name needs at least one visible character, not {name!r}")
    if len(clean) > MAX_NAME:
        raise SheetError(f"a name is at most {MAX_NAME} characters, not {len(clean)}: {name!r}")
    return clean


def _distinct(names: Sequence[str], what: str) -> None:
    seen: dict[str, str] = {}
    for name in names:
        key = _name_key(name)
        if key in seen:
            raise SheetError(
                f"two {what} are called {seen[key]!r} and {name!r}: give each a different name"
            )
        seen[key] = name


def csv_cell(value: object) -> str:
    """A value made safe for a spreadsheet: text that would run as a formula starts with '.

    >>> csv_cell("=SUM(A1)"), csv_cell("Ann"), csv_cell(-5)
    ("'=SUM(A1)", 'Ann', '-5')
    """
    if isinstance(value, int):
        return str(value)
    text = str(value)
    return "'" + text if text.startswith(_FORMULA_STARTS) else text


@dataclass(frozen=True, slots=True)
class SheetRound:
    """One round as entered.

    Attributes:
        totals: each side's round total.
        counts: each side's discs by zone, when entered with the counting helper.
        game: the game of the match it belongs to (from 0).
    """

    totals: tuple[int, ...]
    counts: tuple[SideCount, ...] | None = None
    game: int = 0


@dataclass(frozen=True, slots=True)
class RoundLine:
    """One line of the sheet as shown: the round, its points and the running score.

    Attributes:
        number: the round's number within its game (from 1).
        totals: each side's round total.
        counts: each side's discs by zone, if counted.
        points: game points (four rounds) or points added (to 100).
        scores: the game score after this round.
        first: the seat that opened the round.
        game: the game of the match (from 1).
        index: the round's place on the whole sheet (from 1), as the API numbers it.
    """

    number: int
    totals: tuple[int, ...]
    counts: tuple[SideCount, ...] | None
    points: tuple[int, ...]
    scores: tuple[int, ...]
    first: Seat
    game: int = 1
    index: int = 1


@dataclass(frozen=True, slots=True)
class GameLine:
    """One game of the match: its final (or running) score and its result."""

    number: int
    rounds: int
    scores: tuple[int, ...]
    outcome: GameOutcome | None


@dataclass(frozen=True, slots=True)
class SheetSummary:
    """Everything the sheet shows.

    Attributes:
        rounds: the lines, in order (every game's).
        scores: the score of the game being played (of the last game once over).
        next_first: who opens the next round (R2).
        outcome: for a single game, its winner or draw once over; for a match,
            the side with the most games won once every game is played.
        games: each game started, with its score and result.
        game: the number of the game the next round belongs to.
        wins: games won by each side.
    """

    rounds: tuple[RoundLine, ...]
    scores: tuple[int, ...]
    next_first: Seat
    outcome: GameOutcome | None
    games: tuple[GameLine, ...] = ()
    game: int = 1
    wins: tuple[int, ...] = ()

    @property
    def over(self) -> bool:
        """Whether the format has ended the sheet (the game, or every game of the match)."""
        return self.outcome is not None


@dataclass(frozen=True)
class ScoreSheet:
    """A score sheet: format, names, who opened, and the rounds entered.

    Attributes:
        rules: the format (layout, discs, scoring, tie setting).
        names: a name per side (players or teams).
        first_seat: who opened round 1.
        rounds: the rounds entered, every game's.
        players: each side's players by name, seat by seat (teams only;
            None when the sheet names only the sides).
        match_games: games in the match (1 for a single game).
    """

    rules: Rules
    names: tuple[str, ...]
    first_seat: Seat = Seat.SOUTH
    rounds: tuple[SheetRound, ...] = field(default=())
    players: tuple[tuple[str, ...], ...] | None = None
    match_games: int = 1

    @classmethod
    def new(
        cls,
        layout: Layout | str,
        names: Sequence[str] | None,
        scoring: Scoring | str,
        tie: TieSetting | str = TieSetting.DRAW,
        first_seat: Seat = Seat.SOUTH,
        *,
        discs: int | None = None,
        match_games: int = 1,
        players: Sequence[Sequence[str]] | None = None,
    ) -> ScoreSheet:
        """A blank sheet.

        Args:
            layout: singles, doubles, two_vs_one or three_singles.
            names: a name per side; may be None for teams when ``players`` is
                given (each team is then called after its players).
            scoring: four_rounds or to_100.
            tie: what a level four-round game does.
            first_seat: who opens round 1.
            discs: discs per side (R2: singles 8 or 12; 12 per team in
                doubles and 2-vs-1; three singles 8); None for the first.
            match_games: games in the match, 1 to :data:`MAX_GAMES`.
            players: each side's player names, seat by seat.

        Raises:
            SheetError: a bad format, a name missing, invisible, repeated or
                too long, or a first seat that is not in play.
        """
        try:
            layout = Layout(layout)
        except ValueError:
            allowed = ", ".join(repr(k.value) for k in Layout)
            raise SheetError(f"layout must be one of {allowed}, got {layout!r}") from None
        if discs is None:
            discs = DISCS_PER_SIDE[layout][0]
        try:
            rules = Rules(layout=layout, discs_per_side=discs, scoring=scoring, tie=tie)  # type: ignore[arg-type]
        except InvalidRulesError as exc:
            raise SheetError(str(exc)) from None
        if (
            isinstance(match_games, bool)
            or not isinstance(match_games, int)
            or not 1 <= match_games <= MAX_GAMES
        ):
            raise SheetError(
                f"a match has 1 to {MAX_GAMES} games (a whole number), not {match_games!r}"
            )
        if first_seat not in rules.seats:
            raise SheetError(f"{first_seat.key} does not play in this format")
        sheet = cls(rules, (), first_seat, (), None, match_games)
        return sheet._named(names, players)

    def _named(
        self, names: Sequence[str] | None, players: Sequence[Sequence[str]] | None
    ) -> ScoreSheet:
        """This sheet with new names (validated); the rounds stay."""
        rules = self.rules
        sides = rules.sides
        format_name = rules.layout.value.replace("_", " ")
        kept_players: tuple[tuple[str, ...], ...] | None = None
        if players is not None:
            if not isinstance(players, list | tuple) or len(players) != len(sides):
                raise SheetError(
                    f"{format_name} needs the players of each of its {len(sides)} sides"
                )
            rows = []
            for side, given in zip(sides, players, strict=True):
                if not isinstance(given, list | tuple) or len(given) != len(side):
                    raise SheetError(
                        f"a side of {len(side)} in {format_name} needs {len(side)} player names, "
                        f"got {given!r}"
                    )
                rows.append(tuple(clean_name(n) for n in given))
            kept_players = tuple(rows)
            _distinct([n for row in kept_players for n in row], "players")
            if all(len(side) == 1 for side in sides):
                kept_players = None  # one player per side: the side's name is the player's
                names = [row[0] for row in rows] if names is None else names
        if names is None:
            if kept_players is None:
                raise SheetError("every side needs a name")
            names = [" & ".join(row) for row in kept_players]
        if not isinstance(names, list | tuple) or not all(isinstance(n, str) for n in names):
            raise SheetError("names must be a list of names, one per side")
        if len(names) != len(sides):
            raise SheetError(f"{format_name} needs {len(sides)} names, got {len(names)}")
        clean = tuple(clean_name(n) for n in names)
        _distinct(clean, "sides")
        return replace(self, names=clean, players=kept_players)

    def renamed(
        self,
        names: Sequence[str] | None = None,
        players: Sequence[Sequence[str]] | None = None,
    ) -> ScoreSheet:
        """The sheet with sides (and, for teams, players) renamed; the rounds stay.

        Giving only ``players`` renames a team after its players.

        >>> sheet = ScoreSheet.new("singles", ("Ann", "Bob"), "to_100").add_round(totals=(20, 0))
        >>> sheet.renamed(["Ann", "Robert"]).names, len(sheet.rounds)
        (('Ann', 'Robert'), 1)
        """
        if names is None and players is None:
            raise SheetError("give the new names")
        return self._named(names, players)

    # ------------------------------------------------------------- entries

    def player_name(self, seat: Seat) -> str:
        """Who sits at ``seat``: the player's name, or the side's when players are not named."""
        side = self.rules.side_of(seat)
        if self.players is None:
            return self.names[side]
        return self.players[side][self.rules.sides[side].index(seat)]

    def _side_count(self, side: int, row: object) -> SideCount:
        """One side's counts of a round: 20s, 15s, 10s and 5s, as many discs as it shoots."""
        discs = self.rules.discs_per_side
        if not isinstance(row, list | tuple) or len(row) != 4:
            raise SheetError(f"{self.names[side]}: counts are 20s, 15s, 10s and 5s (four numbers)")
        for value in row:
            if not isinstance(value, int) or isinstance(value, bool) or value < 0:
                raise SheetError(
                    f"{self.names[side]}: counts are whole numbers of discs, not {value!r}"
                )
        if sum(row) > discs:
            raise SheetError(
                f"{self.names[side]}: {sum(row)} discs counted, but a side has only {discs}"
            )
        return SideCount(*row)

    def _round_from(
        self,
        totals: tuple[int, ...] | list[int] | None,
        counts: Any,
        game: int,
    ) -> SheetRound:
        sides = len(self.rules.sides)
        discs = self.rules.discs_per_side
        if (totals is None) == (counts is None):
            raise SheetError("enter either each side's total or each side's counts")
        if counts is not None:
            if not isinstance(counts, list | tuple) or len(counts) != sides:
                raise SheetError(f"counts are needed for each of the {sides} sides")
            parsed = [self._side_count(side, row) for side, row in enumerate(counts)]
            return SheetRound(tuple(c.total for c in parsed), tuple(parsed), game)
        assert totals is not None
        if not isinstance(totals, list | tuple) or len(totals) != sides:
            raise SheetError(f"a total is needed for each of the {sides} sides")
        most = 20 * discs
        for side, total in enumerate(totals):
            if not isinstance(total, int) or isinstance(total, bool) or total < 0:
                raise SheetError(
                    f"{self.names[side]}: a total is a whole number ≥ 0, not {total!r}"
                )
            if total % 5:
                raise SheetError(f"{self.names[side]}: {total} is not a multiple of 5")
            if total > most:
                raise SheetError(
                    f"{self.names[side]}: {total} is more than {most} "
                    f"(all {discs} discs in the 20 hole)"
                )
        return SheetRound(tuple(totals), None, game)

    def add_round(
        self, totals: tuple[int, ...] | list[int] | None = None, counts: Any = None
    ) -> ScoreSheet:
        """The sheet with one more round (in the next game, once a game of a match ends).

        Raises:
            SheetError: a bad entry, or the game (the match) is already over.
        """
        summary = self.summary()
        if summary.over:
            what = "match" if self.match_games > 1 else "game"
            raise SheetError(f"the {what} is over: no more rounds can be added")
        entered = self._round_from(totals, counts, summary.game - 1)
        return replace(self, rounds=(*self.rounds, entered))

    def edit_round(
        self, index: int, totals: tuple[int, ...] | list[int] | None = None, counts: Any = None
    ) -> ScoreSheet:
        """The sheet with round ``index`` (from 0, over the whole sheet) entered again."""
        self._check_index(index)
        rounds = list(self.rounds)
        rounds[index] = self._round_from(totals, counts, rounds[index].game)
        return self._checked(replace(self, rounds=tuple(rounds)))

    def delete_round(self, index: int) -> ScoreSheet:
        """The sheet without round ``index`` (from 0, over the whole sheet)."""
        self._check_index(index)
        return self._checked(replace(self, rounds=self.rounds[:index] + self.rounds[index + 1 :]))

    def _check_index(self, index: int) -> None:
        if not isinstance(index, int) or not 0 <= index < len(self.rounds):
            raise SheetError(f"there is no round {index + 1 if isinstance(index, int) else index}")

    def _checked(self, sheet: ScoreSheet) -> ScoreSheet:
        """``sheet`` if every game still ends where the next one starts, else SheetError."""
        games = [r.game for r in sheet.rounds]
        present = sorted(set(games))
        if present != list(range(len(present))):
            missing = next(g for g in range(len(present) + 1) if g not in present)
            raise SheetError(
                f"with this change game {missing + 1} would have no rounds, but later games "
                "follow; delete those first"
            )
        last = games[-1] if games else 0
        for game in range(last + 1):
            entered = [r for r in sheet.rounds if r.game == game]
            line = sheet._game_lines(game, entered)
            where = "the game" if self.match_games == 1 else f"game {game + 1}"
            if line.rounds < len(entered):
                raise SheetError(
                    f"with this change {where} ends after round {line.rounds}, but later rounds "
                    "follow; delete them first"
                )
            if game < last and line.outcome is None:
                raise SheetError(
                    f"with this change {where} is not over, but game {game + 2} has started; "
                    "delete its rounds first"
                )
        return sheet

    # ------------------------------------------------------------- reading

    def _game_lines(self, game: int, entered: Sequence[SheetRound]) -> GameLine:
        scores = [0] * len(self.rules.sides)
        for number, entry in enumerate(entered, start=1):
            points = round_points(entry.totals, self.rules.scoring)
            scores = [s + p for s, p in zip(scores, points, strict=True)]
            outcome = game_outcome(self.rules, scores, number)
            if outcome is not None:
                return GameLine(game + 1, number, tuple(scores), outcome)
        return GameLine(game + 1, len(entered), tuple(scores), None)

    def summary(self) -> SheetSummary:
        """The sheet as shown: lines, games, running score, next first shooter, outcome."""
        seats = self.rules.seats
        sides = len(self.rules.sides)
        first = self.first_seat
        lines: list[RoundLine] = []
        games: list[GameLine] = []
        index = 0
        for game in range(self.match_games):
            entered = [r for r in self.rounds if r.game == game]
            if not entered:
                break
            scores = [0] * sides
            outcome: GameOutcome | None = None
            for number, entry in enumerate(entered, start=1):
                index += 1
                points = round_points(entry.totals, self.rules.scoring)
                scores = [s + p for s, p in zip(scores, points, strict=True)]
                lines.append(
                    RoundLine(
                        number,
                        entry.totals,
                        entry.counts,
                        points,
                        tuple(scores),
                        first,
                        game + 1,
                        index,
                    )
                )
                # R2: the opener moves on every round, from game to game too.
                first = seats[(seats.index(first) + 1) % len(seats)]
                outcome = game_outcome(self.rules, scores, number)
                if outcome is not None:
                    break
            games.append(GameLine(game + 1, number, tuple(scores), outcome))
            if outcome is None:
                break
        wins = tuple(
            sum(1 for g in games if g.outcome is not None and g.outcome.winner == side)
            for side in range(sides)
        )
        finished = [g for g in games if g.outcome is not None]
        current = games[-1] if games else None
        if current is None:
            number, scores_now = 1, tuple([0] * sides)
        elif current.outcome is not None and len(games) < self.match_games:
            number, scores_now = current.number + 1, tuple([0] * sides)
        else:
            number, scores_now = current.number, current.scores
        outcome_all: GameOutcome | None = None
        if len(finished) == self.match_games:
            if self.match_games == 1:
                outcome_all = finished[0].outcome
            else:
                best = max(wins)
                leaders = tuple(i for i, w in enumerate(wins) if w == best)
                outcome_all = (
                    GameOutcome(leaders[0]) if len(leaders) == 1 else GameOutcome(None, leaders)
                )
        return SheetSummary(
            tuple(lines), scores_now, first, outcome_all, tuple(games), number, wins
        )

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-ready form."""
        return {
            "layout": self.rules.layout.value,
            "discs_per_side": self.rules.discs_per_side,
            "scoring": self.rules.scoring.value,
            "tie": self.rules.tie.value,
            "match_games": self.match_games,
            "names": list(self.names),
            "players": None if self.players is None else [list(p) for p in self.players],
            "first_seat": self.first_seat.key,
            "rounds": [
                {
                    "game": r.game,
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
        """Inverse of :meth:`to_dict` (every round is validated again).

        Sheets saved before discs, matches and players were kept read as one
        game with the format's first disc count.
        """
        if not isinstance(data, dict):
            raise SheetError("a sheet is an object")
        try:
            first = Seat.parse(data.get("first_seat", "south"))
        except UnknownSeatError:
            raise SheetError(f"unknown seat {data.get('first_seat')!r}") from None
        sheet = cls.new(
            data.get("layout", ""),
            data.get("names", []),
            data.get("scoring", ""),
            data.get("tie", "draw"),
            first,
            discs=data.get("discs_per_side"),
            match_games=data.get("match_games", 1),
            players=data.get("players"),
        )
        rounds = data.get("rounds", [])
        if not isinstance(rounds, list):
            raise SheetError("rounds are a list")
        for entry in rounds:
            if not isinstance(entry, dict):
                raise SheetError("a round is an object")
            counts = entry.get("counts")
            if counts is not None:
                sheet = sheet.add_round(counts=counts)
            else:
                sheet = sheet.add_round(totals=entry.get("totals"))
            # add_round files the round under the game being played; a saved
            # game number (older sheets have none) must agree.
            filed = sheet.rounds[-1].game
            if entry.get("game", filed) != filed:
                raise SheetError("a round is filed under the wrong game")
        return sheet

    def winner_text(self, outcome: GameOutcome | None) -> str:
        """The result in words: a name, 'draw', or '' while not over."""
        if outcome is None:
            return ""
        if outcome.winner is None:
            return "draw"
        return self.names[outcome.winner]

    def to_csv(self) -> str:
        """The sheet as CSV (RFC 4180): a row per round, the winner on each game's last row.

        Columns: game, round, who shot first, then per side the discs counted
        on 20, 15, 10 and 5 (empty when only the total was entered), the
        round total, the points it earned and the game score; then the
        discs per side and the winner.  A match ends with a row of games won
        and the match winner.  Text that a spreadsheet would run as a
        formula starts with ``'``.

        >>> sheet = ScoreSheet.new("singles", ('=HYPERLINK("x")', "Bob"), "to_100")
        >>> print(sheet.add_round(totals=(10, 0)).to_csv().splitlines()[1])
        1,1,"'=HYPERLINK(""x"")",,,,,10,10,10,,,,,0,0,0,8,
        """
        summary = self.summary()
        points = "points" if self.rules.scoring is Scoring.FOUR_ROUNDS else "added"
        head: list[object] = ["game", "round", "first"]
        for name in self.names:
            head += [f"{name} {z}s" for z in (20, 15, 10, 5)]
            head += [f"{name} total", f"{name} {points}", f"{name} score"]
        head += ["discs per side", "winner"]
        rows: list[list[object]] = [head]
        ends = {g.number: g for g in summary.games}
        last_of_game = {
            g.number: sum(x.rounds for x in summary.games[: g.number]) for g in summary.games
        }
        for line in summary.rounds:
            row: list[object] = [line.game, line.number, self.player_name(line.first)]
            for side in range(len(self.names)):
                if line.counts is None:
                    row += ["", "", "", ""]
                else:
                    c = line.counts[side]
                    row += [c.twenties, c.fifteens, c.tens, c.fives]
                row += [line.totals[side], line.points[side], line.scores[side]]
            game = ends[line.game]
            done = line.index == last_of_game[line.game] and game.outcome is not None
            row += [self.rules.discs_per_side, self.winner_text(game.outcome) if done else ""]
            rows.append(row)
        if self.match_games > 1 and summary.games:
            row = ["match", "", "games won"]
            for side in range(len(self.names)):
                row += ["", "", "", "", "", "", summary.wins[side]]
            row += [self.rules.discs_per_side, self.winner_text(summary.outcome)]
            rows.append(row)
        out = io.StringIO()
        writer = csv.writer(out, lineterminator="\r\n")  # RFC 4180: CRLF, "" inside quotes
        writer.writerows([[csv_cell(v) for v in row] for row in rows])
        return out.getvalue()
