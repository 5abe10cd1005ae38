// Tests of the hints' pure parts (src/crokinole/web/static/views/hints.js, board.js's heat scale and
// fan, state.js's hints_used, dialogs.js's summary line; issue 13). Run by `node --test` from
// tests/web/test_state_js.py; the messages are written from docs/protocol.md and the contract.

import assert from "node:assert/strict";
import test from "node:test";

import { HINT_COLOURS, heatFan, heatScale } from "../../../src/crokinole/web/static/views/board.js";
import { hintsUsedLine } from "../../../src/crokinole/web/static/views/dialogs.js";
import { aimVector, placement } from "../../../src/crokinole/web/static/lib/geometry.js";
import {
  ACCURACIES, accuracyWords, hintLabel, hintLines, hintStop, hintsAllowed, legendTicks, refusalWords, signedPoints, turnKey,
} from "../../../src/crokinole/web/static/views/hints.js";
import { initialState, reduce } from "../../../src/crokinole/web/static/lib/state.js";
import {
  directionWords, hintNumbers, hintSentence, hintTag, outcomeWords, placeWords, powerWords,
} from "../../../src/crokinole/web/static/lib/words.js";

const T = "f".repeat(32);
const BOARD = { shooting_line_radius: 12, surface_radius: 13, ditch_width: 1.5, disc_radius: 0.625 };

function game(over = {}) {
  return {
    rules: { layout: "singles", discs_per_side: 8, scoring: "four_rounds", rounds: 1 },
    phase: "playing", round: 1, current_seat: "south", board: BOARD,
    seats: [
      { seat: "south", side: 0, name: "You", cpu: null, in_hand: 8 },
      { seat: "north", side: 1, name: "CPU Easy", cpu: "easy", in_hand: 8 },
    ],
    sides: [{ side: 0, score: 0 }, { side: 1, score: 0 }],
    discs: [], history: [], outcome: null, placement_limit: 41.86,
    ...over,
  };
}

function view(over = {}) {
  return {
    table: T, kind: "solo", stage: "playing", host: "m1",
    you: { member: "m1", seats: ["south"], spectator: false, host: true },
    members: [], spectators: 0, seats: [], server_time: 1000, game: game(),
    settings: { layout: "singles", hints: true }, hints_used: {},
    ...over,
  };
}

const FULL_BOARD = { ...BOARD, hole_radius: 0.6875, fifteen_radius: 3.5, ten_radius: 7, line_width: 0.125 };

test("a hint's aim in words: straight within half a degree, else degrees left or right (R3)", () => {
  assert.equal(directionWords(0.3), "straight");
  assert.equal(directionWords(-0.49), "straight");
  assert.equal(directionWords(3.4), "3° right");
  assert.equal(directionWords(-2.6), "3° left");
  assert.equal(placeWords(0.2), "the middle");
  assert.equal(placeWords(-20), "20° left");
  assert.equal(powerWords(29.1), "29% power");
  assert.equal(powerWords(140), "100% power");
});

test("what a hint does, in words: a sure 20 from 95%, likely below, a takeout, the zone it stops in", () => {
  assert.equal(outcomeWords({ twenty: 0.95, margin: 20 }), "a sure 20");
  assert.equal(outcomeWords({ twenty: 0.7, margin: 14 }), "likely a 20 (70%)");
  const hit = { twenty: 0, margin: 5, stop: { x: 0, y: -6, status: "on_board", zone: 10, theirs_out: 1 } };
  assert.equal(outcomeWords(hit), "takes out their disc");
  assert.equal(outcomeWords({ ...hit, stop: { ...hit.stop, theirs_out: 2 } }), "takes out 2 of their discs");
  assert.equal(outcomeWords({ ...hit, stop: { ...hit.stop, theirs_out: 0 } }), "stops in the 10");
  // Without the server's zone, the board tells it (R6 by the rim: 2 in from the centre is the 15).
  const bare = { twenty: 0, margin: 15, stop: { x: 0, y: -2, status: "on_board" } };
  assert.equal(outcomeWords(bare, FULL_BOARD), "stops in the 15");
  assert.equal(outcomeWords(bare), "+15 expected");
  assert.equal(outcomeWords({ twenty: 0.1, margin: -2.5, stop: { x: 0, y: 13, status: "in_ditch", zone: 0 } }), "\u22123 expected");
});

test("a hint in a sentence: its rank, aim, power and outcome, the round's chance in brackets", () => {
  const best = { rank: 1, shot: { position: 0, direction: 0.3, power: 29.1 }, margin: 20, round_win: 0.68, valid: 1, twenty: 1 };
  assert.equal(hintSentence(best), "Best: straight, 29% power \u2014 a sure 20 (68% to win the round)");
  const second = { rank: 2, shot: { position: -20, direction: -3.4, power: 41 }, margin: 6, round_win: 0.552, valid: 0.8, twenty: 0, stop: { x: 1, y: 5, status: "on_board", zone: 10, theirs_out: 1 } };
  assert.equal(hintSentence(second), "Second: place 20° left, aim 3° left, 41% power \u2014 takes out their disc, a foul 20% of the time (55% to win the round)");
  assert.equal(hintTag(best), "1 \u00b7 a sure 20");
  assert.equal(hintLabel(second), "2 \u00b7 takes out their disc");
  // The exact figures stay one look away.
  assert.equal(hintNumbers(best), "Place 0.0°, aim 0.3°, power 29.1% \u00b7 margin +20 pts \u00b7 round 68% \u00b7 a 20 100% \u00b7 valid 100%");
  assert.equal(signedPoints(0.4), "0");
  assert.equal(signedPoints(-0.4), "0");
});

test("a hint's line ends where its disc stops: the path from the placement, through its contacts, to the stop", () => {
  const from = placement(BOARD, "south", 0);
  const stop = hintStop({ stop: { x: 0.5, y: 1, status: "on_board", path: [[0, -12.001], [0, -3], [0.5, 1]] } }, from);
  assert.deepEqual(stop.path, [from, { x: 0, y: -3 }, { x: 0.5, y: 1 }]);
  assert.equal(stop.status, "on_board");
  // Missing or not numbers: no stop (the line runs to the edge, as before).
  assert.equal(hintStop({}, from), null);
  assert.equal(hintStop({ stop: { x: "a", y: 1 } }, from), null);
  const [line] = hintLines(BOARD, "south", [{ rank: 1, shot: { position: 0, direction: 0, power: 80 }, margin: 0, round_win: 0.5, stop: { x: 0, y: 13, status: "in_ditch", path: [[0, -12], [0, 13]] } }]);
  assert.deepEqual(line.stop.path, [from, { x: 0, y: 13 }]);
  assert.equal(line.stop.status, "in_ditch");
});

test("hints are asked for where the settings allow them: never ranked, never by a spectator", () => {
  const s = reduce(initialState(), { type: "table", table: T, event: 1, view: view() }, 0);
  assert.equal(hintsAllowed(s), true);
  const off = reduce(initialState(), { type: "table", table: T, event: 1, view: view({ settings: { hints: false } }) }, 0);
  assert.equal(hintsAllowed(off), false);
  // A ranked table never offers them, whatever its settings say.
  const ranked = reduce(initialState(), { type: "table", table: T, event: 1, view: view({ kind: "ranked" }) }, 0);
  assert.equal(hintsAllowed(ranked), false);
  const watching = reduce(initialState(), { type: "table", table: T, event: 1, view: view({ you: { member: "m2", seats: [], spectator: true, host: false } }) }, 0);
  assert.equal(hintsAllowed(watching), false);
});

test("each hint's line starts at its placement and runs along its direction (R3), in its own colour", () => {
  const hints = [
    { rank: 1, shot: { position: 0, direction: 0, power: 40 }, margin: 10, round_win: 0.7 },
    { rank: 2, shot: { position: -20, direction: -8, power: 42 }, margin: 6, round_win: 0.6 },
    { rank: 3, shot: { position: 25, direction: 9.5, power: 30 }, margin: -1, round_win: 0.45 },
  ];
  const lines = hintLines(BOARD, "south", hints);
  assert.equal(lines.length, 3);
  assert.equal(new Set(lines.map((l) => l.colour)).size, 3);
  assert.deepEqual(lines.map((l) => l.colour), HINT_COLOURS);
  // South's middle of the quarter is straight below the centre; direction 0 points at the centre.
  assert.ok(Math.abs(lines[0].x) < 1e-9 && Math.abs(lines[0].y + 12) < 1e-9);
  assert.ok(Math.abs(lines[0].ux) < 1e-9 && Math.abs(lines[0].uy - 1) < 1e-9);
  // Position −20° is 20° clockwise of south (the shooter's left); a positive direction turns right.
  const a = ((270 - 20) * Math.PI) / 180;
  assert.ok(Math.abs(lines[1].x - 12 * Math.cos(a)) < 1e-9 && Math.abs(lines[1].y - 12 * Math.sin(a)) < 1e-9);
  const inward = Math.atan2(-lines[2].y, -lines[2].x);
  const turned = Math.atan2(lines[2].uy, lines[2].ux);
  assert.ok(Math.abs(((inward - turned) * 180) / Math.PI - 9.5) < 1e-9);
});

test("the heat map's fan: a cell of direction d and power p lies travel[p] inches along d", () => {
  const map = {
    position: 10, metric: "twenty", accuracy: "hand",
    directions: [-10, 0, 10], powers: [20, 40], travel: [5, 9],
    values: [[0, 0.5, 1], [0.2, 0.4, 0.6]],
  };
  const fan = heatFan(BOARD, "south", map);
  assert.deepEqual(fan.origin, placement(BOARD, "south", 10));
  // Edges halfway between the values (and half a step beyond the outer ones).
  assert.deepEqual(fan.reach, [3, 7, 11]);
  assert.equal(fan.rays.length, 4);
  const mid = aimVector(BOARD, "south", 10, -5);
  assert.ok(Math.abs(fan.rays[1].x - mid.x) < 1e-12 && Math.abs(fan.rays[1].y - mid.y) < 1e-12);
  // Chances run 0..1 from dark to bright; expected points are symmetric around an even round.
  const chance = heatScale(map);
  assert.deepEqual([chance.min, chance.max], [0, 1]);
  assert.deepEqual(legendTicks(map), ["0%", "50%", "100%"]);
  // Expected points: from the lowest to the highest, white at 0 (an even round), red below, green above.
  const points = { ...map, metric: "points", values: [[-3, 1, 8], [0, 2, 4]] };
  const sc = heatScale(points);
  assert.deepEqual([sc.min, sc.max], [-3, 8]);
  assert.deepEqual(sc.colour(0), [247, 247, 247]);
  assert.deepEqual(sc.colour(-3), [178, 24, 43]);
  assert.deepEqual(sc.colour(8), [27, 120, 55]);
  assert.deepEqual(legendTicks(points), ["−3 pts", "0 pts", "+8 pts"]);
  // All above 0: yellow (the lowest) to blue (the highest).
  const ahead = heatScale({ ...points, values: [[10, 20], [30, 30]] });
  assert.deepEqual(ahead.colour(10), [255, 255, 204]);
  assert.deepEqual(ahead.colour(30), [12, 44, 132]);
  assert.deepEqual(legendTicks({ ...points, values: [[10, 20], [30, 30]] }), ["+10 pts", "+20 pts", "+30 pts"]);
});

test("a refusal reads as a sentence: the server's words for no_hints, plain words for busy", () => {
  assert.equal(refusalWords("no_hints", "hints are off: ranked games never allow them"), "Hints are off: ranked games never allow them.");
  assert.equal(refusalWords("no_hints", ""), "Hints are off at this table.");
  assert.match(refusalWords("busy", "the table's process did not answer"), /^The server is still working on your last request/);
  assert.match(refusalWords("no_accuracy", "play the open-20 drill first"), /^Play the open-20 drill first\. Until then/);
});

test("the turn key moves with every shot and round: a hint is for one turn only", () => {
  const s = reduce(initialState(), { type: "table", table: T, event: 1, view: view() }, 0);
  const k1 = turnKey(s);
  const after = { ...s, game: game({ current_seat: "north", seats: [{ ...s.game.seats[0], in_hand: 7 }, s.game.seats[1]] }) };
  assert.notEqual(turnKey(after), k1);
});

test("hints_used: from the view, then from each hint_taken's lobby part, afresh for a new game", () => {
  let s = reduce(initialState(), { type: "table", table: T, event: 1, view: view({ hints_used: { south: 1 } }) }, 0);
  assert.deepEqual(s.hintsUsed, { south: 1 });
  s = reduce(s, { type: "hint_taken", table: T, event: 2, member: "m1", seat: "south", kind: "heatmap", lobby: { hints_used: { south: 2 } } }, 0);
  assert.deepEqual(s.hintsUsed, { south: 2 });
  // A resent copy of the same event changes nothing.
  s = reduce(s, { type: "hint_taken", table: T, event: 2, member: "m1", seat: "south", kind: "heatmap", lobby: { hints_used: { south: 2 } } }, 0);
  assert.deepEqual(s.hintsUsed, { south: 2 });
  assert.equal(hintsUsedLine(s), '<p class="note hints-used" data-testid="hints-used">You used 2 hints.</p>');
  // The server's message carries the table's count in its lobby part: that count is taken.
  s = reduce(s, { type: "hint_taken", table: T, event: 3, member: "m1", seat: "south", kind: "hint", lobby: { hints_used: { south: 5 } } }, 0);
  assert.deepEqual(s.hintsUsed, { south: 5 });
  s = reduce(s, { type: "game_started", table: T, event: 9, view: view({ hints_used: {} }) }, 0);
  assert.deepEqual(s.hintsUsed, {});
  assert.match(hintsUsedLine(s), />You used no hints\.</);
  // Where hints were never allowed and none used, the summary says nothing of them.
  const off = reduce(initialState(), { type: "table", table: T, event: 1, view: view({ settings: { hints: false } }) }, 0);
  assert.equal(hintsUsedLine(off), "");
});

test("the hand an answer assumed, in words: each CPU level by its name, CPU Master's too", () => {
  // The levels of docs/protocol.md's heatmap `accuracy` (and the practice room's choices).
  const expected = {
    easy: "CPU Easy's hand", normal: "CPU Normal's hand", hard: "CPU Hard's hand",
    expert: "CPU Expert's hand", master: "CPU Master's hand",
    steady: "the steady hand", human: "the human hand", hand: "your hand", mine: "your accuracy",
  };
  for (const [name, words] of Object.entries(expected)) {
    assert.equal(accuracyWords(name), words, name);
    assert.equal(accuracyWords({ name, position: 0, direction: 0, power: 0 }), words, `${name} as the hints' accuracy`);
  }
  // The game's heat-map choice names every level the protocol takes.
  assert.deepEqual(Object.keys(ACCURACIES), ["hand", "easy", "normal", "hard", "expert", "master", "mine"]);
});
