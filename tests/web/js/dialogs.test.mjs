// Tests of the end-of-game result's pure parts (src/crokinole/web/static/dialogs.js): the replay
// link names the table's game, so after a rematch it still shows the game that ended. Run by
// `node --test` from tests/web/test_state_js.py; the messages are written from docs/protocol.md.

import assert from "node:assert/strict";
import test from "node:test";

import { replayLink } from "../../../src/crokinole/web/static/dialogs.js";
import { initialState, reduce } from "../../../src/crokinole/web/static/state.js";

const T = "d".repeat(32);

function game(over = {}) {
  return {
    rules: { layout: "singles", discs_per_side: 8, scoring: "four_rounds", rounds: 1 },
    phase: "playing", round: 1, current_seat: "south",
    seats: [
      { seat: "south", side: 0, name: "Ann", cpu: null, in_hand: 8 },
      { seat: "north", side: 1, name: "Bob", cpu: null, in_hand: 8 },
    ],
    sides: [{ side: 0, score: 0 }, { side: 1, score: 0 }],
    discs: [], history: [], outcome: null, placement_limit: 41.86,
    ...over,
  };
}

function view(over = {}) {
  return {
    table: T, kind: "party", stage: "playing", host: "m1",
    you: { member: "m1", seats: ["south"], spectator: false, host: true },
    members: [], spectators: 0, seats: [], server_time: 1000, game: game(), ...over,
  };
}

function href(html) {
  return /href="([^"]+)"/.exec(html)[1];
}

test("the state keeps the view's game number, and a rematch's game_started moves it on", () => {
  let s = reduce(initialState(), { type: "table", table: T, event: 3, view: view({ game_number: 1 }) }, 0);
  assert.equal(s.gameNumber, 1);
  assert.equal(href(replayLink(s)), `/replay/${T}?game=1`);
  // An event message without a view keeps it.
  s = reduce(s, { type: "finished", table: T, event: 9, winner: 0, drawn: [], abandoned: false, game: game({ phase: "game_over" }) }, 0);
  assert.equal(s.gameNumber, 1);
  s = reduce(s, { type: "game_started", table: T, event: 12, view: view({ game_number: 2 }) }, 0);
  assert.equal(s.gameNumber, 2);
  assert.equal(href(replayLink(s)), `/replay/${T}?game=2`);
});

test("another table's view without a number forgets the old one; the link then names no game", () => {
  let s = reduce(initialState(), { type: "table", table: T, event: 3, view: view({ game_number: 3 }) }, 0);
  const other = "e".repeat(32);
  s = reduce(s, { type: "table", table: other, event: 1, view: view({ table: other }) }, 0);
  assert.equal(s.gameNumber, null);
  assert.equal(href(replayLink(s)), `/replay/${other}`);
  // Not a table id, or no game: no link at all.
  assert.equal(replayLink({ ...s, table: "nope" }), "");
  assert.equal(replayLink({ ...s, game: null }), "");
});
