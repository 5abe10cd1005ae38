"""The practice room's positions, codes and shots (crokinole.analysis.practice).

Expectations come from the rules (R3-R6) and from the board's geometry:
a disc over the hole drops, a disc touching the shooting line is out, discs
and pegs may not overlap.
"""

from __future__ import annotations

import base64
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from crokinole import TOURNAMENT_BOARD, Seat, Shot
from crokinole.ai.aim import direction_towards
from crokinole.analysis.practice import (
    PracticePosition,
    position_code,
    position_data,
    position_from_code,
    position_from_data,
    practice_game,
    practice_shot,
    shot_from_data,
)
from crokinole.errors import AnalysisError
from crokinole.rules import Phase

BOARD = TOURNAMENT_BOARD
R = BOARD.disc_radius


def _code_of(data: object) -> str:
    text = json.dumps(data, separators=(",", ":"))
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


def test_code_is_base64url_of_the_documented_json() -> None:
    pos = PracticePosition((("s", -2.5, -5.0), ("n", 1.25, 2.0)))
    code = position_code(pos)
    assert "=" not in code and "+" not in code and "/" not in code
    raw = base64.urlsafe_b64decode(code + "=" * (-len(code) % 4))
    # Whole numbers without ".0", as the browser's JSON.stringify writes them.
    assert raw == b'{"v":1,"seat":"south","discs":[["s",-2.5,-5],["n",1.25,2]]}'


def test_a_code_the_browser_writes_is_read() -> None:
    code = _code_of({"v": 1, "seat": "north", "discs": [["n", 0, -6], ["s", 0.5, 2.25]]})
    pos = position_from_code(code)
    assert pos.seat == "north" and pos.discs == (("n", 0.0, -6.0), ("s", 0.5, 2.25))
    assert position_code(pos) == code


def test_coordinates_are_kept_in_hundredths() -> None:
    pos = PracticePosition((("s", 1.2345, -6.0049),))
    assert pos.discs == (("s", 1.23, -6.0),)


def test_touching_discs_stay_legal_when_rounded() -> None:
    # Two discs exactly touching along a slant: rounding both centres to
    # hundredths could bring them closer than a diameter; one is nudged.
    angle = math.radians(37.0)
    a = (0.333, -6.0)
    b = (a[0] + 2 * R * math.cos(angle), a[1] + 2 * R * math.sin(angle))
    pos = PracticePosition((("s", *a), ("n", *b)))
    (_, ax, ay), (_, bx, by) = pos.discs
    assert math.hypot(bx - ax, by - ay) >= 2 * R - 1e-9
    assert math.hypot(bx - b[0], by - b[1]) <= 0.03
    assert position_from_code(position_code(pos)) == pos


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["s", "n"]),
            st.floats(-11.0, 11.0, allow_nan=False),
            st.floats(-11.0, 11.0, allow_nan=False),
        ),
        max_size=10,
    ),
    st.sampled_from(["south", "north"]),
)
def test_codes_round_trip(discs: list[tuple[str, float, float]], seat: str) -> None:
    try:
        pos = PracticePosition(tuple(discs), seat)
    except AnalysisError:
        return  # an illegal position has no code
    again = position_from_code(position_code(pos))
    assert again == pos
    assert position_code(again) == position_code(pos)


@pytest.mark.parametrize(
    ("code", "reason"),
    [
        ("", "the code is empty"),
        ("abc$%", "characters no code has"),
        (_code_of({"v": 1, "seat": "south", "discs": []})[:-3], "cut short or changed"),
        ("eyJ2Ijox", "cut short or changed"),  # '{"v":1' then nothing
        (_code_of([1, 2, 3]), "not a practice position"),
        (_code_of({"v": 9, "discs": []}), "not a practice position"),
        (_code_of({"v": 1, "discs": [["x", 0, 5]]}), 'a side is "s" (south) or "n" (north)'),
        (_code_of({"v": 1, "discs": [["s", "a", 5]]}), "x is a number of inches"),
        # R5: a disc whose centre is over the hole drops.
        (_code_of({"v": 1, "discs": [["s", 0.3, 0.2]]}), "over the 20 hole"),
        # R5: a disc touching the shooting line is out (rim at 11.4 + 0.625).
        (_code_of({"v": 1, "discs": [["n", 0, 11.4]]}), "beyond the shooting line"),
        (_code_of({"v": 1, "discs": [["n", 0, 5], ["s", 0.6, 5.3]]}), "overlaps north's disc"),
        (_code_of({"v": 1, "discs": [["n", 3.7, 1.53]]}), "overlaps peg"),
        (_code_of({"v": 1, "seat": "east", "discs": []}), "south or north"),
    ],
)
def test_damaged_codes_are_refused_plainly(code: str, reason: str) -> None:
    with pytest.raises(AnalysisError) as info:
        position_from_code(code)
    message = str(info.value)
    assert message.startswith("this position link is damaged")
    assert reason in message


def test_a_side_holds_at_most_twelve_discs() -> None:
    turns = [math.radians(a) for a in range(0, 360, 27)]
    spots = [(r * math.cos(a), r * math.sin(a)) for r in (6.0, 9.5) for a in turns]
    discs = tuple(("n", x, y) for x, y in spots[:13])
    with pytest.raises(AnalysisError, match="north has 13 discs"):
        PracticePosition(discs)
    full = PracticePosition(discs[:12])
    with pytest.raises(AnalysisError, match="take one off to shoot again"):
        practice_game(full)


def test_practice_game_is_a_legal_game_with_the_discs() -> None:
    pos = PracticePosition((("s", 0.0, -6.0), ("n", 2.0, 2.0), ("n", -2.0, 6.0)))
    game = practice_game(pos)
    assert game.phase is Phase.PLAYING and game.current_seat is Seat.SOUTH
    assert game.rules.discs_per_side == 12 and game.rules.required_contact  # R2, R4
    owners = sorted((d.owner.name, d.x, d.y) for d in game.discs)
    assert owners == [("NORTH", -2.0, 6.0), ("NORTH", 2.0, 2.0), ("SOUTH", 0.0, -6.0)]
    # Two turns each were played; the disc not on the board is in the ditch.
    assert game.in_hand(Seat.SOUTH) == 10 and game.in_hand(Seat.NORTH) == 10
    assert game.ditch == (1, 0)
    # R6: the board as counted: south 10 (the disc at 6" touches nothing), north 15 + 10.
    assert [c.total for c in game.round_counts()] == [10, 25]


def test_north_may_shoot_a_position() -> None:
    pos = PracticePosition((("s", 0.0, 6.0),), seat="north")
    game = practice_game(pos)
    assert game.current_seat is Seat.NORTH
    result = practice_shot(pos, Shot(0.0, 0.0, 28.0))  # straight from north, as from south
    assert result.seat is Seat.NORTH and result.valid


def test_an_open_twenty_scores_twenty() -> None:
    # R4 open board: the disc must reach the 15; R5: dropped in the hole it scores 20.
    result = practice_shot(PracticePosition(), Shot(0.0, 0.0, 28.0))
    assert result.valid and result.twenty and result.own_twenties == 1
    assert (result.margin_before, result.margin_after, result.points) == (0, 20, 20)
    assert result.position_after == PracticePosition()


def test_a_wide_open_shot_is_a_foul() -> None:
    # R4: on an open board a disc that stops outside the 15 circle is a foul; it goes
    # to the ditch and the board stays empty.
    result = practice_shot(PracticePosition(), Shot(0.0, 0.0, 15.0))
    assert not result.valid and result.foul == "not_in_fifteen"
    assert [d.id for d in result.removed_mine] == [result.shot_id]
    assert result.position_after.discs == ()


def test_a_straight_takeout_removes_their_disc_and_the_shooter_stays() -> None:
    # A straight, full hit nearly stops the shooter (restitution 0.9, BOARD.md):
    # the struck disc leaves with 95% of the speed, off the far side.
    # Straight up the middle: the path passes over the hole too fast to drop and
    # clears the pegs beside it (1.53" from the line, more than a disc and a peg's radius).
    target = (0.0, 6.0)
    pos = PracticePosition((("n", *target),))
    direction = direction_towards(BOARD, Seat.SOUTH, 0.0, *target)
    result = practice_shot(pos, Shot(0.0, direction, 100.0))
    assert result.valid
    assert len(result.removed_theirs) == 1
    assert result.shot_disc is not None
    # R6: their 10 is gone and our disc counts the zone it rests in.
    assert result.margin_before == -10
    assert result.margin_after == BOARD.zone_of(result.shot_disc.centre).value
    summary = result.summary()
    assert summary["removed"] == {"mine": 0, "theirs": 1} and summary["valid"] is True


def test_a_placement_on_a_disc_is_refused() -> None:
    # R3: the placed disc may not overlap a disc on the line's quarter.
    start = BOARD.placement(Seat.SOUTH, 0.0)
    pos = PracticePosition((("n", start.x, start.y + 1.2),))
    with pytest.raises(AnalysisError, match="cannot be played: the disc would overlap"):
        practice_shot(pos, Shot(0.0, 0.0, 30.0))


def test_the_same_shot_gives_the_same_result() -> None:
    pos = PracticePosition((("n", 1.0, 2.0), ("s", -3.0, -4.0), ("n", -1.5, 7.0)))
    shot = Shot(12.0, -4.0, 55.0)
    first, second = practice_shot(pos, shot), practice_shot(pos, shot)
    assert first.position_after == second.position_after
    assert first.summary() == second.summary()


def test_data_readers_refuse_bad_input_plainly() -> None:
    with pytest.raises(AnalysisError, match="a position is an object"):
        position_from_data([1])
    with pytest.raises(AnalysisError, match="no field"):
        position_from_data({"discs": [], "colour": "red"})
    with pytest.raises(AnalysisError, match="power is a number"):
        shot_from_data({"position": 0, "direction": 0, "power": "hard"})
    with pytest.raises(AnalysisError, match="power is a number"):
        shot_from_data({"position": 0, "direction": 0, "power": True})
    with pytest.raises(AnalysisError, match="a shot is an object"):
        shot_from_data(None)
    pos = position_from_data({"discs": [["n", 1, 2]]})
    assert position_data(pos) == {"seat": "south", "discs": [["n", 1, 2]]}
