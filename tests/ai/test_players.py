"""The CPU players (R8): legal, reproducible, and doing what each level promises."""

from __future__ import annotations

import numpy as np
import pytest

from crokinole.ai import NOISE, Level, make_player, search
from crokinole.ai.evaluate import Situation, margins, standings
from crokinole.ai.match import open_twenty
from crokinole.ai.players import STENCIL_KEEP, HardPlayer, _prefer_valid, _stencil_margins
from crokinole.ai.search import Candidates, candidate_margins, generate, simulate_candidates
from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.errors import IllegalActionError
from crokinole.physics import DiscStatus, simulate_shot
from crokinole.rules import Game, Phase, Rules
from tests.rules.test_scenarios import _blocked_quarter
from tests.support.rules_positions import game_at

B = TOURNAMENT_BOARD
S, N = Seat.SOUTH, Seat.NORTH
#: Every level; Master's hundreds of decisions are in the slow run.
LEVELS = [pytest.param(lv, marks=pytest.mark.slow) if lv is Level.MASTER else lv for lv in Level]


def _nominal(game: Game, shot: Shot):  # type: ignore[no-untyped-def]
    """Play ``shot`` exactly (no noise) on a copy and return the report."""
    return game.copy().shoot(game.current_seat, shot)  # type: ignore[arg-type]


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_plays_legal_shots_through_a_whole_game(level: Level) -> None:
    rng = np.random.default_rng(7)
    player = make_player(level)
    opponent = make_player(Level.NORMAL)
    game = Game(Rules(rounds=1))
    while not game.is_over:
        seat = game.current_seat
        assert seat is not None
        who = player if seat is S else opponent
        shot = who.choose_shot(game, rng)
        assert game.placement_problem(seat, shot.position) is None
        assert abs(shot.direction) <= 180 and 0 <= shot.power <= 100
        game.shoot(seat, shot)  # raises if anything about the shot is illegal
    assert game.outcome is not None


@pytest.mark.parametrize("level", list(Level))
def test_the_same_seed_gives_the_same_shot(level: Level) -> None:
    game = game_at(Rules(), [(N, 1.5, 2.0), (S, -5.0, -2.0), (N, 5.0, -6.0)], S)
    player = make_player(level)
    first = player.choose_shot(game, np.random.default_rng(42))
    again = player.choose_shot(game, np.random.default_rng(42))
    assert first == again
    other = player.choose_shot(game, np.random.default_rng(43))
    assert other != first  # the noise really comes from the generator


@pytest.mark.parametrize("level", LEVELS)
def test_every_level_can_miss(level: Level) -> None:
    # R8: every level can miss.  A north disc in the 15, reached between the
    # hole and the pegs: 200 real decisions (choose_shot, noise included)
    # played through the referee.  The shot each level means touches the
    # disc (R4), yet some of the shots it plays do not (measured: Easy 91,
    # Normal 88, Hard 80, Expert 44 of 100), and no two shots are the same.
    game = game_at(Rules(), [(N, 3.0, 6.0)], S)
    player = make_player(level)
    meant = player.intend(game, np.random.default_rng(17))
    assert _nominal(game, meant).valid
    rng = np.random.default_rng(17)
    shots = [player.choose_shot(game, rng) for _ in range(200)]
    misses = sum(not _nominal(game, shot).valid for shot in shots)
    assert misses >= 20, f"{level.value} missed {misses} of 200"
    assert len(set(shots)) == 200


def test_the_weaker_level_misses_the_open_twenty_more() -> None:
    # R8: the noise shrinks with the level.  Open-20 misses in 300 real
    # decisions each: about 75, 55, 40 and 22% (see the README), so
    # neighbouring levels differ by at least 3.5 binomial standard deviations
    # of the difference; Expert still misses (R8), at least 10% (4.5 sd below).
    # Master (about 9% misses) still misses, at least 10 of 300 (4 sd below).
    missed = []
    for level in Level:
        figure = open_twenty(level, tries=300, seed=23)
        missed.append(figure.tries - figure.made)
    assert missed == sorted(missed, reverse=True) and len(set(missed)) == len(Level), missed
    assert missed[-2] >= 30 and missed[-1] >= 10, missed


def test_level_labels_are_the_names_people_see() -> None:
    assert [level.label for level in Level] == ["Easy", "Normal", "Hard", "Expert", "Master"]
    assert [make_player(level).name for level in Level] == [
        "CPU Easy",
        "CPU Normal",
        "CPU Hard",
        "CPU Expert",
        "CPU Master",
    ]


def test_hard_on_an_empty_board_means_an_open_twenty() -> None:
    # R8 Hard; R5: the intended shot (before noise) drops in the 20 hole.
    game = Game(Rules())
    shot = make_player(Level.HARD).intend(game, np.random.default_rng(0))
    result = simulate_shot(B, [], B.launch(S, shot))
    assert result.discs[0].status is DiscStatus.IN_HOLE


@pytest.mark.parametrize("where", [(2.0, 5.0), (-6.0, -3.0), (0.5, -9.0), (7.5, 1.0)])
def test_hard_with_one_exposed_opposing_disc_means_a_valid_shot(where: tuple[float, float]) -> None:
    # R4: with an opposing disc on the board, Hard's intended shot touches it.
    game = game_at(Rules(), [(N, *where)], S)
    shot = make_player(Level.HARD).intend(game, np.random.default_rng(0))
    assert _nominal(game, shot).valid


def test_normal_goes_for_the_most_valuable_reachable_disc() -> None:
    # A north disc in the 15 zone and one in the 5 zone, both in the open.
    game = game_at(Rules(), [(N, 0.0, 2.0), (N, -7.0, 5.5)], S)
    shot = make_player(Level.NORMAL).intend(game, np.random.default_rng(0))
    report = _nominal(game, shot)
    physics = report.physics
    assert physics is not None
    first = next(c for c in physics.contacts if c.kind.value == "disc")
    assert first.other == 0  # the 15-zone disc


def test_normal_takes_a_clear_line_to_the_opposing_disc() -> None:
    game = game_at(Rules(), [(N, 3.0, 2.0)], S)
    shot = make_player(Level.NORMAL).intend(game, np.random.default_rng(0))
    report = _nominal(game, shot)
    assert report.valid


def _last_shot_of_the_game(
    south: list[tuple[float, float]],
    north: list[tuple[float, float]],
    twenties: tuple[int, int],
) -> Game:
    """South to play the hammer of round 4 with the game score level at 3–3."""
    discs = [(S, x, y) for x, y in south] + [(N, x, y) for x, y in north]
    game = game_at(
        Rules(),
        discs,
        S,
        list(twenties),
        earlier_rounds=[(40, 20), (20, 40), (30, 30)],  # a win each and a draw: 3–3
        turn=15,
    )
    assert game.round_number == 4 and game.scores == (3, 3) and len(game.upcoming) == 1
    return game


def _win_rate(game: Game, shot: Shot, seed: int, tries: int = 400) -> float:
    rng = np.random.default_rng(seed)
    z = np.full(tries, shot.position)
    _, dirs, pows = NOISE[Level.EXPERT].perturb_many(
        B, z, np.full(tries, shot.direction), np.full(tries, shot.power), rng
    )
    judged = simulate_candidates(game, S, Candidates(z, dirs, pows))
    situation = Situation.of(game)
    return float((margins(standings(judged, situation), situation.side) > 0).mean())


def test_expert_prefers_a_safe_valid_shot_over_a_risky_twenty_when_a_valid_shot_wins() -> None:
    # Hammer of the last round, game level.  North leads the round 35–20 with a
    # disc in front of the hole.  Taking it out and staying wins the game; taking
    # it out and dropping into the hole behind it wins bigger on paper but is risky.
    game = _last_shot_of_the_game(south=[], north=[(0.0, -2.0)], twenties=(1, 1))
    # The risky 20 exists: the best margin on paper drops the shot disc in the hole.
    shots = generate(game, S)
    values, _ = candidate_margins(game, shots)
    k = int(np.argmax(values))
    risky = Shot(float(shots.positions[k]), float(shots.directions[k]), float(shots.powers[k]))
    risky_report = _nominal(game, risky)
    assert [d.owner for d in risky_report.twenties] == [S]
    # Expert does not go for it: its shot is valid, wins as aimed, and drops no 20 for South.
    expert = make_player(Level.EXPERT).intend(game, np.random.default_rng(5))
    report = _nominal(game, expert)
    assert report.valid
    assert S not in [d.owner for d in report.twenties]
    counts = [c.total for c in game.copy().round_counts()]
    assert counts == [20, 35]
    # Under Expert's own noise the safe shot wins the game far more often.
    assert _win_rate(game, expert, seed=1) > _win_rate(game, risky, seed=1) + 0.2


def test_players_refuse_to_move_when_nobody_is_to_shoot() -> None:
    game = Game(Rules(rounds=1))
    while game.phase is Phase.PLAYING:
        seat = game.current_seat
        assert seat is not None
        game.timeout(seat)
    with pytest.raises(IllegalActionError, match="nobody is to shoot"):
        make_player(Level.HARD).choose_shot(game, np.random.default_rng(0))


def test_unknown_level_is_refused() -> None:
    with pytest.raises(IllegalActionError, match="unknown CPU level 'godlike'"):
        make_player("godlike")


def test_a_cpu_with_no_room_to_place_says_so() -> None:
    game = _blocked_quarter()
    for level in Level:
        with pytest.raises(IllegalActionError, match="no room to place a disc"):
            make_player(level).choose_shot(game, np.random.default_rng(0))


def test_expert_means_open_twenties_it_makes_at_least_three_times_in_four() -> None:
    # R8, BOARD.md: Expert makes at least 75% of open 20s as it really plays.
    # 40 decisions on an empty board; each shot it means is played with the
    # same 20,000 draws of its own noise.  The draws' error is at most
    # 0.5/sqrt(20000) = 0.35 points; the 40 decisions' rates spread over
    # about 0.70-0.82, so their mean is off by at most 0.95 points (one sd).
    # Measured: 77.1% now; 71.9% before the fix (finalists picked from shots
    # as aimed, so the long, safer open 20s never reached the rollouts).
    game = Game(Rules())
    player = make_player(Level.EXPERT)
    rng = np.random.default_rng(8)
    meant = [player.intend(game, rng) for _ in range(40)]
    k = 20_000
    z = np.random.default_rng(9).normal(size=(3, k))
    rates = {}
    for shot in set(meant):
        pos, dirs, pows = player.noise.apply(
            B, np.full(k, shot.position), np.full(k, shot.direction), np.full(k, shot.power),
            (z[0], z[1], z[2]),
        )  # fmt: skip
        judged = simulate_candidates(game, S, Candidates(pos, dirs, pows))
        rates[shot] = float((judged.fate[:, 0] == 1).mean())
    assert np.mean([rates[shot] for shot in meant]) >= 0.75


def _crowded(rules: Rules, count: int, seed: int) -> Game:
    """``count`` discs scattered where they may rest, owners in turn order, the next to shoot."""
    rng = np.random.default_rng(seed)
    order = [s for _ in range(rules.discs_per_side) for s in rules.seats]
    discs: list[tuple[Seat, float, float]] = []
    while len(discs) < count:
        radius, angle = 11.3 * np.sqrt(rng.random()), 2 * np.pi * rng.random()
        x, y = float(radius * np.cos(angle)), float(radius * np.sin(angle))
        far = all(np.hypot(x - dx, y - dy) > 2 * B.disc_radius + 1e-6 for _, dx, dy in discs)
        pegs = all(np.hypot(x - p.x, y - p.y) > B.disc_radius + B.peg_radius for p in B.pegs)
        if far and pegs and np.hypot(x, y) > B.hole_radius + 1e-6:
            discs.append((order[len(discs)], x, y))
    return game_at(rules, discs, order[count])


def _counting_shots(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    counts: list[int] = []
    inner = search.simulate_batch

    def counted(board, discs, launches):  # type: ignore[no-untyped-def]
        counts.append(len(launches))
        return inner(board, discs, launches)

    monkeypatch.setattr(search, "simulate_batch", counted)
    return counts


def test_hard_plays_its_near_misses_only_for_its_best_candidates(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Decision time on crowded boards: every candidate is played as aimed, and
    # only the best quarter (STENCIL_KEEP) at its 8 near misses too, not all 9 x K.
    game = _crowded(Rules.doubles(), 20, 3)
    seat = game.current_seat
    assert seat is not None
    k = len(generate(game, seat))
    counts = _counting_shots(monkeypatch)
    make_player(Level.HARD).choose_shot(game, np.random.default_rng(0))
    assert sum(counts) == k + 8 * int(np.ceil(STENCIL_KEEP * k))
    assert sum(counts) < 0.35 * 9 * k


@pytest.mark.parametrize(
    ("rules", "count"), [(Rules(discs_per_side=12), 12), (Rules.doubles(), 20)]
)
def test_near_misses_for_the_best_quarter_choose_what_all_of_them_would(
    rules: Rules, count: int
) -> None:
    # Strength: the shot chosen from the best quarter is the one the stencil
    # over every candidate chooses.
    noise = NOISE[Level.HARD]
    for seed in range(3):
        game = _crowded(rules, count, 40 + seed)
        seat = game.current_seat
        assert seat is not None
        chosen = []
        for keep in (1.0, 0.25):
            shots, values, valid = _stencil_margins(
                game, generate(game, seat), noise, HardPlayer.stencil, keep
            )
            k = int(np.argmax(_prefer_valid(values.mean(axis=0), valid)))
            chosen.append((shots.positions[k], shots.directions[k], shots.powers[k]))
        assert chosen[0] == chosen[1]
