"""One scenario per rule of RULES.md, each citing it.

Shots are chosen so that their physical outcome is certain (straight lines,
closed-form slide distances); where a rule is about bookkeeping that a
single shot cannot stage, the referee is given a constructed simulator
result instead.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Seat, Shot, Zone
from crokinole.errors import IllegalActionError, IllegalPlacement, InvalidShotError, NotYourTurn
from crokinole.physics import ShotResult, simulate_motion
from crokinole.rules import (
    Disc,
    Foul,
    Game,
    Layout,
    Phase,
    Removal,
    Rules,
    Scoring,
    TieSetting,
    judge_shot,
    replay,
)
from tests.support.rules_positions import game_at, north_shot, power_to_travel

B = TOURNAMENT_BOARD
R = B.disc_radius
S, W, N, E = Seat.SOUTH, Seat.WEST, Seat.NORTH, Seat.EAST
LINE = B.shooting_line_radius


def hit_distance(target_y: float) -> float:
    """Slide distance of a south shot along x=0 up to touching a disc at (0, target_y)."""
    return (target_y - 2 * R) - (-LINE)


# ------------------------------------------------------------------- R4


def test_direct_hit_is_valid() -> None:
    # R4: the shot disc touches an opposing disc directly.
    game = game_at(Rules(), [(N, 0.0, -6.0)], S)
    report = game.shoot(S, north_shot(hit_distance(-6.0) + 0.5))
    assert report.valid and report.foul is None
    assert {d.owner for d in game.discs} == {N, S}
    assert report.removed == ()


def test_hit_through_own_disc_is_valid() -> None:
    # R4: through a chain of the shooter's own discs.
    game = game_at(Rules(), [(S, 0.0, -7.0), (N, 0.0, -5.0)], S)
    report = game.shoot(S, Shot(0.0, 0.0, 20.0))
    contacts = [(c.disc, c.other) for c in report.physics.contacts]  # type: ignore[union-attr]
    assert (2, 0) in contacts and (0, 1) in contacts  # shot -> own -> opponent
    assert report.valid


def test_hit_through_partners_disc_is_valid_in_doubles() -> None:
    # R4: a partner's discs count as one's own (doubles: south and north are partners).
    game = game_at(Rules.doubles(), [(N, 0.0, -7.0), (W, 0.0, -5.0)], S)
    report = game.shoot(S, Shot(0.0, 0.0, 20.0))
    assert report.valid
    assert len(game.discs) == 3


def test_miss_with_own_discs_moved_sends_them_to_the_ditch() -> None:
    # R4 foul: the shot disc and every own disc that moved go; opponents stay.
    game = game_at(Rules(), [(S, 0.0, -7.0), (N, 6.0, 6.0)], S)
    ditch_before = game.ditch
    report = game.shoot(S, Shot(0.0, 0.0, 20.0))
    assert report.foul is Foul.NO_CONTACT
    assert {r.disc.id for r in report.removed if r.reason is Removal.FOUL} == {0, 2}
    assert [(d.owner, d.x, d.y) for d in game.discs] == [(N, 6.0, 6.0)]
    assert game.ditch == (ditch_before[0] + 2, ditch_before[1])
    assert "Foul: no opposing disc was touched: your disc and 1 disc it moved go to the ditch." in (
        report.explain()
    )


def test_peg_only_is_a_miss() -> None:
    # R4: touching a peg does not count.
    peg = B.pegs[6]  # 292.5°, in front of south's right side
    start = B.placement(S, 10.0)
    aim = math.degrees(math.atan2(peg.y - start.y, peg.x - start.x))
    inward = math.degrees(math.atan2(-start.y, -start.x))
    game = game_at(Rules(), [(N, -7.0, 5.0)], S)
    report = game.shoot(S, Shot(10.0, inward - aim, 30.0))
    assert [c.kind.value for c in report.physics.contacts] == ["peg"]  # type: ignore[union-attr]
    assert report.foul is Foul.NO_CONTACT


def test_open_board_stopping_touching_the_fifteen_line_is_valid_and_scores_ten() -> None:
    # R4 open board: touching the 15 line is enough; R6: it scores the lower value.
    game = Game(Rules())
    touching = B.fifteen_radius + B.line_width / 2 + R - 0.002  # rim just over the line's edge
    report = game.shoot(S, north_shot(LINE - touching))
    assert report.valid
    (disc,) = game.discs
    assert disc.y == pytest.approx(-touching, abs=1e-9)
    assert B.zone_of(disc.centre) is Zone.TEN
    assert game.round_counts()[0].tens == 1


def test_open_board_passing_through_the_middle_and_stopping_outside_is_a_foul() -> None:
    # R4 open board: passing through the 15 circle is not enough.  The path at
    # x = -0.7 misses the hole and slips between the pegs.
    game = Game(Rules())
    report = game.shoot(S, north_shot(18.0, x=-0.7))
    assert report.foul is Foul.NOT_IN_FIFTEEN
    assert game.discs == ()
    assert game.ditch == (1, 0)
    final = report.physics.discs[0].position  # type: ignore[union-attr]
    assert final.y == pytest.approx(-11.98 + 18.0, abs=0.01)


def test_open_board_needs_a_disc_that_moved() -> None:
    # R4: a disc already near the centre that did not move does not make the shot valid.
    game = game_at(Rules(), [(S, 2.0, 0.5)], S)
    report = game.shoot(S, north_shot(5.0, x=-6.0))
    assert report.foul is Foul.NOT_IN_FIFTEEN
    assert [(d.x, d.y) for d in game.discs] == [(2.0, 0.5)]  # the unmoved disc stays


def test_open_twenty_is_valid_and_set_aside() -> None:
    # R4 open board: the 20 hole counts; R5: set aside for its owner.
    game = Game(Rules())
    report = game.shoot(S, north_shot(12.0))
    assert report.valid and [d.owner for d in report.twenties] == [S]
    assert game.twenties == (1, 0) and game.discs == ()


def test_twenty_on_a_foul_is_cancelled() -> None:
    # R4: a 20 dropped on a foul goes to the ditch.
    game = game_at(Rules(), [(N, 7.0, 6.0)], S)
    report = game.shoot(S, north_shot(12.0))
    assert report.foul is Foul.NO_CONTACT
    assert [d.id for d in report.cancelled_twenties] == [report.removed[0].disc.id]
    assert game.twenties == (0, 0)
    assert "1 twenty cancelled." in report.explain()


def test_earlier_twenty_is_kept_after_a_foul() -> None:
    # R4: 20s earned on earlier valid shots are safe.
    game = game_at(Rules(), [(N, 7.0, 6.0)], S, twenties=[1, 0])
    game.shoot(S, north_shot(12.0))
    assert game.twenties == (1, 0)


def test_opponents_disc_knocked_into_the_hole_counts_for_its_owner() -> None:
    # R5: a 20 counts for the disc's owner, whoever knocked it in.
    game = game_at(Rules(), [(N, 0.0, -2.5)], S)
    # The north disc must leave the hit at the speed that stops it at the centre.
    v_after = math.sqrt(2 * B.deceleration * 2.5)
    v_contact = v_after / ((1 + B.restitution_disc) / 2)
    travel = hit_distance(-2.5)
    v0 = math.sqrt(v_contact**2 + 2 * B.deceleration * travel)
    report = game.shoot(S, Shot(0.0, 0.0, 100 * v0 / B.max_launch_speed))
    assert report.valid
    assert [d.owner for d in report.twenties] == [N]
    assert game.twenties == (0, 1)


def test_required_contact_off_allows_any_shot() -> None:
    # R2 home rule: no contact or open-board requirement.
    game = game_at(Rules(required_contact=False), [(N, 7.0, 6.0)], S)
    report = game.shoot(S, north_shot(6.0))
    assert report.valid
    assert len(game.discs) == 2


# ------------------------------------------------------------------- R5


def test_disc_at_rest_touching_the_shooting_line_is_out() -> None:
    # R5: any disc that stops touching or beyond the shooting line is out.
    game = Game(Rules(required_contact=False))
    report = game.shoot(S, north_shot(0.3))
    assert [r.reason for r in report.removed] == [Removal.ON_LINE]
    assert game.discs == () and game.ditch == (1, 0)


def test_opposing_disc_knocked_out_goes_to_the_ditch() -> None:
    # R5: of any colour.
    game = game_at(Rules(), [(N, 0.0, 8.0)], S)
    report = game.shoot(S, Shot(0.0, 0.0, 55.0))  # skims over the hole, then hits
    assert report.valid
    gone = {r.disc.owner: r.reason for r in report.removed}
    assert gone[N] in (Removal.OFF_BOARD, Removal.ON_LINE)
    assert game.ditch[1] == 1


def test_the_shot_disc_touching_a_disc_before_it_was_ever_inside_is_not_beyond() -> None:
    # R5: the shot disc starts on the line and counts as reaching it only after
    # it has once been fully inside.  Shot along the tangent, it clips a north
    # disc near the line without ever being inside: that touch is no come-back
    # touch; it stops on the line and is out for that, and the damage stays.
    game = game_at(Rules(), [(N, 2.0, -11.0)], S)
    report = game.shoot(S, Shot(0.0, 90.0, 10.0))
    physics = report.physics
    assert physics is not None
    contact = physics.contacts[0]
    assert not contact.disc_beyond_line and not contact.other_beyond_line
    assert report.valid  # it did touch an opposing disc
    assert [(r.disc.owner, r.reason) for r in report.removed] == [(S, Removal.ON_LINE)]
    (north,) = game.discs
    assert (north.x, north.y) != (2.0, -11.0)


#: R5: a disc reaches the shooting line when its rim touches the line's near
#: edge (BOARD.md), its centre 12 − 1/32 − 0.625 = 11.34375 in from the centre.
REACH = LINE - B.line_width / 2 - R


@pytest.mark.parametrize(("hair", "out"), [(1e-6, True), (-1e-6, False)])
def test_a_disc_touching_another_with_its_rim_over_the_line_is_out(hair: float, out: bool) -> None:
    # R5 come-back rule, the boundary both ways.  North's disc slides outward
    # up x = 0 and meets the shot disc (coming in) with its centre a hair past
    # 11.34375 (its rim over the line's near edge) or a hair short of it; the
    # impulse sends it back to stop fully inside (closed form: both decelerate
    # at a, they touch at t = 0.01 s doing 2 and 10 in/s, it leaves at
    # 0.95·10 − 0.05·2 = 9.4 in/s).  Over the line it is out although it came
    # back; short of it, it stays and scores 5.
    a = B.deceleration
    contact_y = REACH + hair
    t, v0, v1 = 0.01, 2.0, 10.0
    w0, w1 = v0 + a * t, v1 + a * t
    y0 = contact_y - (w0 * t - a * t * t / 2)
    y1 = contact_y + 2 * R + (w1 * t - a * t * t / 2)
    result = simulate_motion(B, [(0.0, y0), (0.0, y1)], [(0.0, w0), (0.0, -w1)])
    north = Disc(0, N, 0.0, y0)
    report = judge_shot(
        B,
        before=(north,),
        side_of={S: 0, N: 1},
        seat=S,
        shot=Shot(0.0, 0.0, 10.0),
        shot_id=1,
        result=result,
        required_contact=True,
    )
    assert report.valid  # the shot disc touched North's
    reasons = {r.disc.owner: r.reason for r in report.removed}
    stop_y = contact_y - 9.4**2 / (2 * a)
    if out:
        assert reasons[N] is Removal.TOUCHED_BEYOND_LINE
        assert report.board_after == ()
    else:
        assert N not in reasons
        (left,) = report.board_after
        assert left.owner is N and left.y == pytest.approx(stop_y, abs=1e-6)
        assert B.zone_of(left.centre) is Zone.FIVE


def _fake_result(
    start: list[tuple[float, float]],
    final: list[tuple[float, float]],
    status: list[int],
    moved: list[bool],
    crossed: list[bool],
    touched_beyond: list[bool],
    contacts: list[tuple[int, int]],
) -> ShotResult:
    """A simulator result built by hand (bookkeeping rules the physics cannot stage)."""
    rows_f = []
    rows_i = []
    for i, j in contacts:
        rows_f += [[0.1, 0, 0, 0, 0], [0.1, 0, 0, 0, 0]]
        rows_i += [[i, 2, j, 0], [j, 2, i, 0]]
    flags = np.array([moved, crossed, touched_beyond, [False] * len(moved)]).T
    return ShotResult(
        duration=1.0,
        deceleration=B.deceleration,
        start_array=np.array(start, dtype=float),
        final_array=np.array(final, dtype=float),
        status_array=np.array(status, dtype=np.int8),
        flag_array=flags.astype(bool),
        event_floats=np.array(rows_f, dtype=float).reshape(-1, 5),
        event_ints=np.array(rows_i, dtype=np.int64).reshape(-1, 4),
    )


def test_come_back_rule_disc_that_returns_untouched_stays_in_play() -> None:
    # R5: it crossed the line, touched nothing while beyond, and stopped fully inside.
    result = _fake_result(
        start=[(0.0, 9.0), (0.0, -12.0)],
        final=[(0.0, 10.0), (0.0, 4.0)],
        status=[0, 0],
        moved=[True, True],
        crossed=[True, False],
        touched_beyond=[False, False],
        contacts=[(1, 0)],
    )
    before = (Disc(0, N, 0.0, 9.0),)
    report = judge_shot(
        B, before=before, side_of={S: 0, N: 1}, seat=S, shot=Shot(), shot_id=1,
        result=result, required_contact=True,
    )  # fmt: skip
    assert report.valid and report.removed == ()
    assert [(d.id, d.y) for d in report.board_after] == [(0, 10.0), (1, 4.0)]


def test_come_back_rule_disc_that_touched_beyond_is_out_but_its_twenty_counts() -> None:
    # R5: out, but "damage stays": a disc it knocked into the hole still counts.
    result = _fake_result(
        start=[(0.0, 0.9), (3.0, 11.0), (0.0, -12.0)],
        final=[(0.0, 0.1), (0.0, 9.0), (0.0, 3.0)],
        status=[1, 0, 0],
        moved=[True, True, True],
        crossed=[False, True, False],
        touched_beyond=[False, True, False],
        contacts=[(2, 1), (1, 0)],
    )
    before = (Disc(0, N, 0.0, 0.9), Disc(1, S, 3.0, 11.0))
    report = judge_shot(
        B, before=before, side_of={S: 0, N: 1}, seat=S, shot=Shot(), shot_id=2,
        result=result, required_contact=True,
    )  # fmt: skip
    assert [(r.disc.id, r.reason) for r in report.removed] == [(1, Removal.TOUCHED_BEYOND_LINE)]
    assert [d.owner for d in report.twenties] == [N]


# ------------------------------------------------------------------- R3


def test_overlapping_placement_is_refused_and_nothing_changes() -> None:
    # R3: may not place overlapping any disc.
    game = game_at(Rules(), [(N, 0.3, -11.2)], S)
    before = game.snapshot()
    with pytest.raises(IllegalPlacement, match=r"the disc would overlap North's disc at \(0.30"):
        game.shoot(S, Shot(0.0, 0.0, 50.0))
    assert game.snapshot() == before
    assert game.placement_problem(S, 0.0) is not None
    assert game.placement_problem(S, 20.0) is None


def test_placement_beyond_the_quadrant_line_is_refused() -> None:
    game = Game(Rules())
    with pytest.raises(IllegalPlacement, match="beyond the quadrant line"):
        game.shoot(S, Shot(45.0, 0.0, 50.0))
    with pytest.raises(InvalidShotError, match=r"power 150\.0% must lie"):
        game.shoot(S, Shot(0.0, 0.0, 150.0))
    assert game.turn_index == 0


@pytest.mark.parametrize("number", [np.float32, np.float16, np.int64, np.int32])
def test_a_shot_of_numpy_numbers_is_the_same_shot(number: type) -> None:
    # R3: a shot is (position, direction, power), whatever real number type holds
    # them; the record keeps plain floats and replays to the same game.
    values = (number(3), number(-2), number(30))
    numpy_game, float_game = Game(Rules()), Game(Rules())
    a = numpy_game.shoot(S, Shot(*values))
    b = float_game.shoot(S, Shot(*(float(v) for v in values)))
    assert a.board_after == b.board_after and a.twenties == b.twenties
    assert numpy_game == float_game
    assert replay(numpy_game.to_json()) == numpy_game


def test_bad_shots_are_refused_quoting_the_value_given() -> None:
    game = Game(Rules())
    for shot, message in (
        (Shot(0.0, 0.0, 100.0001), r"^power 100\.0001% must lie between 0% and 100%$"),
        (Shot(0.0, 0.0, True), r"^power must be a number of percent, got True$"),  # type: ignore[arg-type]
        (Shot(0.0, 0.0, math.inf), r"^power must be a finite number of percent, got inf$"),
        (Shot(0.0, -180.5, 30.0), r"^direction -180\.5° must lie between -180° and 180°$"),
    ):
        with pytest.raises(InvalidShotError, match=message):
            game.shoot(S, shot)
    with pytest.raises(IllegalPlacement, match=r"^position 42\.5° is beyond the quadrant line"):
        game.shoot(S, Shot(42.5, 0.0, 30.0))
    assert game.turn_index == 0


def test_timeout_sends_the_disc_to_the_ditch_and_passes_the_turn() -> None:
    # R3: the disc goes to the ditch, scores 0, and the turn passes.
    game = game_at(Rules(), [(N, 0.0, 6.0)], S)
    board_before = game.discs
    hand = game.in_hand(S)
    report = game.timeout(S)
    assert report.foul is Foul.TIMEOUT
    assert game.discs == board_before
    assert game.in_hand(S) == hand - 1
    assert game.current_seat is N
    assert report.explain() == "Time ran out: the disc goes to the ditch and scores 0."


# ------------------------------------------------------------------- R2


def test_not_your_turn_names_the_shooter() -> None:
    game = Game(Rules())
    with pytest.raises(NotYourTurn, match="it is South's turn"):
        game.shoot(N, Shot(0.0, 0.0, 30.0))
    with pytest.raises(NotYourTurn, match="it is South's turn"):
        game.timeout(N)


def test_four_player_turn_order_goes_clockwise_and_alternates_teams() -> None:
    # R2: doubles, partners opposite, one disc at a time, clockwise.
    game = Game(Rules.doubles())
    seen = []
    for _ in range(8):
        seat = game.current_seat
        assert seat is not None
        seen.append(seat)
        game.timeout(seat)
    assert seen == [S, W, N, E, S, W, N, E]
    assert all(game.in_hand(s) == 4 for s in (S, W, N, E))


def test_two_vs_one_pair_alternates_against_the_single_player() -> None:
    # R2: 2-vs-1, 12 discs per team, the pair alternating.
    game = Game(Rules.two_vs_one())
    order = []
    while game.phase is Phase.PLAYING:
        seat = game.current_seat
        assert seat is not None
        order.append(seat)
        game.timeout(seat)
    assert order[:6] == [S, W, N, W, S, W]
    assert order.count(W) == 12 and order.count(S) == 6 and order.count(N) == 6
    assert all(a is not b for a, b in itertools.pairwise(order))


def test_three_singles_have_three_sides_and_score_three_ways() -> None:
    # R2: three singles, 8 discs each; R6 four rounds with three sides.
    game = Game(Rules.three_singles())
    assert list(game.rules.seats) == [S, W, N]
    for _ in range(3 * 8):
        seat = game.current_seat
        assert seat is not None
        if seat is S:
            game.shoot(S, north_shot(12.0))  # an open 20 each time
        else:
            game.timeout(seat)
    assert game.phase is Phase.ROUND_OVER
    (result,) = game.history
    assert result.totals == (160, 0, 0)
    assert result.points == (2, 0, 0)


def test_first_shooter_alternates_in_singles_and_rotates_clockwise_with_more_players() -> None:
    # R2: next round's first shooter.
    for rules, expected in (
        (Rules(rounds=4), [S, N, S, N]),
        (Rules.three_singles(), [S, W, N, S]),
        (Rules.doubles(), [S, W, N, E]),
    ):
        game = Game(rules)
        firsts = []
        while not game.is_over:
            if game.phase is Phase.ROUND_OVER:
                game.next_round()
                continue
            if game.turn_index == 0:
                firsts.append(game.current_seat)
            seat = game.current_seat
            assert seat is not None
            game.timeout(seat)
        assert firsts == expected


# ------------------------------------------------------------- R6 and game end


def _play_round(game: Game, twenty_for: set[Seat]) -> None:
    """Seats in ``twenty_for`` drop an open 20 each turn; the others time out."""
    while game.phase is Phase.PLAYING:
        seat = game.current_seat
        assert seat is not None
        if seat in twenty_for:
            start = B.placement(seat, 0.0)
            game.shoot(seat, Shot(0.0, 0.0, power_to_travel(start.norm())))
        else:
            game.timeout(seat)


def test_four_round_game_is_won_on_game_points() -> None:
    # R6: 2 game points for a round win; after four rounds the higher score wins.
    game = Game(Rules())
    for k in range(4):
        _play_round(game, {S} if k != 2 else {N})
        if not game.is_over:
            assert game.phase is Phase.ROUND_OVER
            game.next_round()
    assert game.is_over and game.outcome is not None
    assert game.scores == (6, 2)
    assert game.outcome.winner == 0
    assert [r.totals for r in game.history] == [(160, 0), (160, 0), (0, 160), (160, 0)]
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.next_round()


def test_tied_round_gives_a_point_each_and_a_level_game_is_a_draw() -> None:
    # R6 and R2 tie setting "draw".
    game = Game(Rules(tie=TieSetting.DRAW))
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        _play_round(game, {S, N})
    assert game.scores == (4, 4)
    assert game.outcome is not None and game.outcome.is_draw
    assert game.outcome.drawn == (0, 1)


def test_tie_with_extra_rounds_plays_on_until_one_side_leads() -> None:
    # R2 tie setting "extra_rounds": one more round breaks the tie here.
    game = Game(Rules(tie=TieSetting.EXTRA_ROUNDS))
    for _ in range(4):
        _play_round(game, {S, N})
        game.next_round()
    assert game.round_number == 5 and not game.is_over
    _play_round(game, {N})
    assert game.is_over and game.outcome is not None and game.outcome.winner == 1


def test_tie_with_extra_rounds_is_a_draw_after_four_more() -> None:
    game = Game(Rules(tie=TieSetting.EXTRA_ROUNDS))
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        _play_round(game, {S, N})
    assert len(game.history) == 8
    assert game.outcome is not None and game.outcome.is_draw


def test_game_to_100_adds_the_difference_and_ends_at_100() -> None:
    # R2/R6 to 100: the round winner adds the difference; first to 100 wins.
    game = Game(Rules(scoring=Scoring.TO_100, target=200))
    _play_round(game, {S})  # 160 - 0
    assert game.scores == (160, 0) and game.phase is Phase.ROUND_OVER
    game.next_round()
    _play_round(game, {S, N})  # 160 - 160: a tied round adds nothing
    assert game.scores == (160, 0)
    game.next_round()
    _play_round(game, {N})
    assert game.scores == (160, 160)
    game.next_round()
    _play_round(game, {S})
    assert game.is_over and game.outcome is not None and game.outcome.winner == 0
    assert game.scores == (320, 160)


def test_home_singles_twelve_discs_to_100() -> None:
    game = Game(Rules.home_singles())
    assert game.in_hand(S) == 12
    _play_round(game, {N})
    assert game.scores == (0, 240)
    assert game.is_over and game.outcome is not None and game.outcome.winner == 1


def test_round_must_finish_before_the_next_and_the_game_refuses_late_shots() -> None:
    game = Game(Rules(rounds=1))
    with pytest.raises(IllegalActionError, match="still being played: 16 discs are left"):
        game.next_round()
    _play_round(game, {S})
    assert game.is_over
    with pytest.raises(IllegalActionError, match="the game is over"):
        game.shoot(S, Shot(0.0, 0.0, 30.0))


def test_round_over_phase_refuses_shots_until_next() -> None:
    game = Game(Rules(rounds=2))
    _play_round(game, {S})
    assert game.phase is Phase.ROUND_OVER and game.current_seat is None
    with pytest.raises(IllegalActionError, match="round 1 is over"):
        game.timeout(S)
    game.next_round()
    assert game.current_seat is N and game.discs == () and game.twenties == (0, 0)


def test_layouts_and_presets_have_the_discs_of_r2() -> None:
    assert Rules.doubles().layout is Layout.DOUBLES
    assert [Rules.doubles().discs_per_player(s) for s in (S, W, N, E)] == [6, 6, 6, 6]
    assert Rules.home_singles().discs_per_side == 12
    assert Rules.three_singles().players == 3


def test_come_back_rule_a_disc_that_touched_beyond_and_then_dropped_is_out() -> None:
    # R5: touching anything beyond the line puts the disc out, even if it then drops.
    result = _fake_result(
        start=[(3.0, 11.0), (0.0, -12.0)],
        final=[(0.0, 0.2), (0.0, 5.0)],
        status=[1, 0],
        moved=[True, True],
        crossed=[True, False],
        touched_beyond=[True, False],
        contacts=[(1, 0)],
    )
    before = (Disc(0, S, 3.0, 11.0),)
    report = judge_shot(
        B, before=before, side_of={S: 0, N: 1}, seat=S, shot=Shot(), shot_id=1,
        result=result, required_contact=False,
    )  # fmt: skip
    assert report.twenties == ()
    assert [(r.disc.id, r.reason) for r in report.removed] == [(0, Removal.TOUCHED_BEYOND_LINE)]


def _blocked_quarter() -> Game:
    """South to shoot with nine discs along its quarter of the line: no room anywhere."""
    discs = []
    for k in range(-4, 5):
        angle = math.radians(270.0 + 9.3 * k)
        owner = N if k % 2 else S
        discs.append((owner, 11.33 * math.cos(angle), 11.33 * math.sin(angle)))
    return game_at(Rules(), discs, S)


def test_placement_intervals_match_the_overlap_rule() -> None:
    # R3: the free stretches of the line are exactly where no disc overlaps.
    game = game_at(Rules(), [(N, 0.3, -11.2), (S, -4.0, -10.5), (N, 5.5, -9.9)], S)
    free = game.placement_intervals(S)
    for position in np.linspace(-B.placement_limit, B.placement_limit, 1001):
        legal = game.placement_problem(S, float(position)) is None
        inside = any(a - 1e-9 <= position <= b + 1e-9 for a, b in free)
        assert legal == inside, position


def test_a_quarter_blocked_by_discs_leaves_no_room_to_place() -> None:
    # R3: the disc may not be placed overlapping any disc; here none fits.
    game = _blocked_quarter()
    assert game.current_seat is S
    assert game.placement_intervals(S) == [] and not game.can_place(S)
    assert game.can_place(N)
    with pytest.raises(IllegalPlacement):
        game.shoot(S, Shot(0.0, 0.0, 30.0))
    report = game.timeout(S)  # the only way on: the disc goes to the ditch
    assert report.foul is Foul.TIMEOUT and game.current_seat is N
