"""States the rules cannot reach are refused when read; every action applies fully or not at all.

The reader (``Game.from_json``) checks what every state reached by play
satisfies; each case below breaks one such fact of RULES.md in an otherwise
valid record.  Then every action that raises is shown to leave the record
unchanged, the round-ending one included.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from crokinole.board import TOURNAMENT_BOARD, Seat, Shot
from crokinole.errors import CrokinoleError, InvalidRecordError
from crokinole.rules import Disc, Game, Phase, Rules, Scoring, check_reachable
from tests.support.rules_positions import game_at, north_shot

B = TOURNAMENT_BOARD
S, N = Seat.SOUTH, Seat.NORTH


def _south_disc_near_the_centre() -> Game:
    """Round 1 of two: south's disc 0 rests at (0, -4.5); north timed out; south to play."""
    game = Game(Rules(rounds=2))
    game.shoot(S, north_shot(7.5))  # R4: on an empty board it touches the 15 circle
    game.timeout(N)
    assert [(d.id, d.owner) for d in game.discs] == [(0, S)]
    return game


def _record_with(change: Callable[[dict[str, Any]], None], game: Game | None = None) -> str:
    data = json.loads((game or _south_disc_near_the_centre()).to_json())
    change(data["state"])
    return json.dumps(data)


def _move_disc(x: float, y: float) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        state["discs"][0][2:] = [x, y]

    return change


def _set(**values: object) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        state.update(values)

    return change


def _add_north_disc(x: float, y: float) -> Callable[[dict[str, Any]], None]:
    # North's timed-out disc 1, taken back from the ditch and put on the board.
    def change(state: dict[str, Any]) -> None:
        state["discs"].append([1, "north", x, y])
        state["ditch"][1] -= 1

    return change


def _both(
    first: Callable[[dict[str, Any]], None], then: Callable[[dict[str, Any]], None]
) -> Callable[[dict[str, Any]], None]:
    def change(state: dict[str, Any]) -> None:
        first(state)
        then(state)

    return change


def test_a_reachable_state_edited_back_to_itself_is_accepted() -> None:
    # The control for the cases below: the helpers alone change nothing that matters.
    game = _south_disc_near_the_centre()
    moved = Game.from_json(_record_with(_move_disc(0.0, -5.0), game))
    assert [(d.id, d.owner, d.x, d.y) for d in moved.discs] == [(0, S, 0.0, -5.0)]
    # North's disc could have stopped at (0, 6) instead of timing out: reachable.
    again = Game.from_json(_record_with(_add_north_disc(0.0, 6.0), game))
    assert [d.owner for d in again.discs] == [S, N]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        # R5: a disc that stops touching or beyond the shooting line goes to the ditch.
        (_move_disc(0.0, -11.5), r"state.discs\[0\]: South's disc at \(0.00, -11.50\) touches"),
        (_move_disc(0.0, -11.4), "beyond the shooting line"),  # rim 12.025 > line's near edge
        (_move_disc(0.0, -12.0), "beyond the shooting line"),  # on the line itself
        # R5: a disc whose centre is over the hole drops into it.
        (_move_disc(0.2, 0.1), "has its centre over the 20 hole"),
        # R1/R3: discs cannot overlap each other or a peg.
        (_add_north_disc(0.5, -4.7), r"state.discs: disc 1 at \(0.5000, -4.7000\) overlaps disc 0"),
        (_move_disc(3.7, 1.5), "overlaps peg 0"),
        # R2: disc 0 was shot by south (the first seat), so north cannot own it.
        (
            lambda st: st["discs"][0].__setitem__(1, "north"),
            r"disc 0 was shot by south \(turn 1 of the round\), not north",
        ),
        # Discs are listed in the order they were shot, ids below the turn.
        (_both(_add_north_disc(0.0, 6.0), lambda st: st["discs"].reverse()), "order they were"),
        (lambda st: st["discs"][0].__setitem__(0, 5), "disc id 5 must be one of the turns"),
        # R2: south opens the game, so south opens round 1.
        (_set(round_first="north"), "round 1 is opened by south, not north"),
        (_set(next_id=3), "state.next_id: 3, but after turn 2 the next disc is number 2"),
        # R6: in hand + on the board + 20s + ditch = discs per side.
        (_set(twenties=[1, 0]), "side 0 accounts for 9 discs"),
        (_set(in_hand={"south": 7, "north": 6}), r"state.in_hand.north: 6 discs"),
        # R6: the game score is the sum of the rounds' points.
        (_set(scores=[2, 0]), r"state.scores: \[2, 0\], but the rounds played add up to \[0, 0\]"),
        (
            _set(round=2, round_first="north", discs=[], ditch=[1, 1]),
            "state.history: 0 rounds, but 1 are finished",
        ),
        (_set(phase="round_over"), "does not match turn 2 of 16"),
        (_set(outcome={"winner": 0, "drawn": []}), "does not follow from the scores"),
    ],
)
def test_unreachable_states_are_refused_when_read(
    change: Callable[[dict[str, Any]], None], message: str
) -> None:
    with pytest.raises(InvalidRecordError, match=message) as info:
        Game.from_json(_record_with(change))
    assert isinstance(info.value, CrokinoleError) and isinstance(info.value, ValueError)


def _finished_round_one() -> Game:
    game = Game(Rules(rounds=2))
    while game.phase is Phase.PLAYING:
        seat = game.current_seat
        assert seat is not None
        game.timeout(seat)
    assert game.phase is Phase.ROUND_OVER and game.scores == (1, 1)  # 0-0: a tie (R6)
    return game


def _history(change: Callable[[dict[str, Any]], None]) -> str:
    def edit(state: dict[str, Any]) -> None:
        change(state["history"][0])

    return _record_with(edit, _finished_round_one())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        # R6: a tie gives 1 game point each, not 2 to one side.
        (
            lambda: _history(lambda r: r.update(points=[2, 0], scores_after=[2, 0])),
            r"state.history\[0\].points: \[2, 0\], but round totals \[0, 0\] give \[1, 1\]",
        ),
        (lambda: _history(lambda r: r.update(number=2)), r"history\[0\].number: 2, expected 1"),
        (
            lambda: _history(lambda r: r.update(counts=[[9, 0, 0, 0], [0, 0, 0, 0]])),
            "9 discs, more than the 8 a side shoots",
        ),
        # R6: the round result shown is the count of the board.
        (
            lambda: _history(
                lambda r: r.update(counts=[[1, 0, 0, 0], [1, 0, 0, 0]])
            ),  # 20-20: still a tie
            "the round result must be the count of the discs on the board",
        ),
        # R2: a four-round game with 2 rounds is not over after round 1.
        (lambda: _record_with(_set(phase="game_over"), _finished_round_one()), "is not over"),
    ],
)
def test_an_inconsistent_history_is_refused(text: Callable[[], str], message: str) -> None:
    with pytest.raises(InvalidRecordError, match=message):
        Game.from_json(text())


def test_a_game_that_went_on_after_it_was_won_is_refused() -> None:
    # R2/R6: a one-round game is over after round 1; a round 2 cannot follow.
    rules = Rules(rounds=1)
    game = Game(rules)
    data = json.loads(game.to_json())
    data["state"].update(
        round=2,
        round_first="north",
        history=[
            {"number": 1, "counts": [[1, 0, 0, 0], [0, 0, 0, 0]], "points": [2, 0],
             "scores_after": [2, 0]},
        ],
        scores=[2, 0],
    )  # fmt: skip
    with pytest.raises(InvalidRecordError, match=r"state.history\[0\]: the game was over"):
        Game.from_json(json.dumps(data))


def test_states_reached_by_play_pass_the_check_at_every_step() -> None:
    # The converse: nothing reachable is refused (a to-100 game through its end).
    rng = np.random.default_rng(7)
    rules = Rules(scoring=Scoring.TO_100, target=25)
    game = Game(rules)
    while not game.is_over:
        if game.phase is Phase.ROUND_OVER:
            game.next_round()
        else:
            seat = game.current_seat
            assert seat is not None
            shot = Shot(
                float(rng.uniform(-30, 30)), float(rng.normal(0, 8)), float(rng.uniform(20, 45))
            )
            if game.placement_problem(seat, shot.position) is None:
                game.shoot(seat, shot)
            else:
                game.timeout(seat)
        check_reachable(game.state, rules, B, S)
        assert Game.from_json(game.to_json()) == game


# ------------------------------------------------------- atomic actions


def _every_failing_action(game: Game) -> list[Callable[[], object]]:
    """Actions that must raise on ``game`` (in round 1 with south to play)."""
    return [
        lambda: game.shoot(N, Shot(0.0, 0.0, 30.0)),  # not north's turn
        lambda: game.timeout(N),
        lambda: game.shoot(S, Shot(0.0, 0.0, 100.0001)),  # R3: power out of range
        lambda: game.shoot(S, Shot(0.0, 0.0, float("nan"))),
        lambda: game.shoot(S, Shot(0.0, np.bool_(True), 30.0)),  # type: ignore[arg-type]
        lambda: game.shoot(S, Shot(0.0, 181.0, 30.0)),
        lambda: game.shoot(S, Shot(45.0, 0.0, 30.0)),  # R3: beyond the quadrant line
        lambda: game.shoot(S, Shot(0.3, 0.0, 30.0)),  # R3: overlaps north's disc
        lambda: game.shoot(S, "hard"),  # type: ignore[arg-type]
        lambda: game.shoot("south", Shot()),  # type: ignore[arg-type]
        game.next_round,  # the round is still being played
    ]


def test_every_action_that_raises_leaves_the_record_unchanged() -> None:
    game = game_at(Rules(), [(N, 0.3, -11.2)], S)  # north's disc on south's line
    before = game.to_json()
    raised = 0
    for action in _every_failing_action(game):
        try:
            action()
        except CrokinoleError:
            raised += 1
        assert game.to_json() == before
    assert raised == len(_every_failing_action(game))


def test_actions_after_the_round_or_the_game_raise_and_change_nothing() -> None:
    game = _finished_round_one()
    before = game.to_json()
    for action in (lambda: game.shoot(N, Shot()), lambda: game.timeout(S)):
        with pytest.raises(CrokinoleError, match="round 1 is over"):
            action()
        assert game.to_json() == before
    game.next_round()
    while not game.is_over:
        seat = game.current_seat
        assert seat is not None
        game.timeout(seat)
    before = game.to_json()
    for action in (game.next_round, lambda: game.timeout(N), lambda: game.shoot(N, Shot())):
        with pytest.raises(CrokinoleError, match="the game is over"):
            action()
        assert game.to_json() == before


def test_a_round_end_that_cannot_be_counted_changes_nothing() -> None:
    # The reader refuses a disc resting on the shooting line (above), so no
    # record leads here; the state is built behind its back to show that the
    # round-ending action computes the count before it changes anything:
    # it raises, and the game (turn, discs in hand, ditch, actions) is as it was.
    game = game_at(Rules(), [(S, 0.0, -6.0)], N, turn=15)
    assert game.upcoming == (N,)  # north's last disc ends the round
    on_line = Disc(0, S, 0.0, -11.6)
    game._state = dataclasses.replace(game.state, discs=(on_line,))
    before = game.to_json()
    with pytest.raises(CrokinoleError, match="cannot score"):
        game.timeout(N)
    assert game.to_json() == before
    assert game.phase is Phase.PLAYING and game.current_seat is N
