// Tests of the end-of-game result's pure parts (src/crokinole/web/static/views/dialogs.js): the replay
// link names the table's game, so after a rematch it still shows the game that ended. Run by
// `node --test` from tests/web/test_state_js.py; the messages are written from docs/protocol.md.

import assert from "node:assert/strict";
import test from "node:test";

import { gameBody, gameTitle, ratingsBlock, replayLink } from "../../../src/crokinole/web/static/views/dialogs.js";
import { gameEnded, initialState, reduce } from "../../../src/crokinole/web/static/lib/state.js";

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

// A ranked game abandoned: the server empties the seat of the player who resigned or left
// (and names them no more: "South"); the ratings' outcome says what it counted as.
const M1 = "m1", M2 = "m2";

function rankedSeat(seat, side, member, name, rating) {
  return {
    seat, side, username: member ? name : null, rating, provisional: true,
    occupant: member ? { kind: "person", member, name, connected: true, stand_in: false, level: null } : null,
  };
}

function rankedView(me, seats, over = {}) {
  return {
    table: T, kind: "ranked", ranked: true, stage: "playing", host: null,
    you: me ? { member: me, seats: [me === M1 ? "south" : "north"], spectator: false, host: false }
      : { member: null, seats: [], spectator: false, host: false },
    members: [], spectators: 0, seats, server_time: 1000, game: game(), ...over,
  };
}

const BOTH = [rankedSeat("south", 0, M1, "ann", 1000), rankedSeat("north", 1, M2, "bob", 1000)];
const ANN_GONE = [rankedSeat("south", 0, null, "", 1000), rankedSeat("north", 1, M2, "bob", 1000)];
const RATINGS = [
  { username: "ann", ladder: "singles", before: 1000, after: 940, provisional: true, outcome: "loss" },
  { username: "bob", ladder: "singles", before: 1000, after: 1060, provisional: true, outcome: "win" },
];

function abandoned(me) {
  let s = reduce(initialState(), { type: "table", table: T, event: 3, view: rankedView(me, BOTH) }, 0);
  const left = game({ seats: [{ ...game().seats[0], name: "South" }, { ...game().seats[1], name: "bob" }] });
  const lobby = { stage: "finished", seats: ANN_GONE, you: me === M2 ? rankedView(M2, ANN_GONE).you : rankedView(null, ANN_GONE).you };
  s = reduce(s, { type: "finished", table: T, event: 4, winner: null, drawn: [], abandoned: true, game: left, lobby, ratings: RATINGS }, 0);
  return s;
}

test("a ranked game ann resigned: bob reads that his opponent left and he wins, ann that she resigned", () => {
  const bob = abandoned(M2);
  assert.equal(gameTitle(bob), "Your opponent left: you win");
  const ann = abandoned(M1);
  assert.equal(gameTitle(ann), "You resigned: a loss");
});

test("the player who left is still named in the final score, not by their seat", () => {
  for (const me of [M1, M2]) {
    const s = abandoned(me);
    assert.equal(s.game.seats[0].name, "ann");
    const body = gameBody(s, (x) => x);
    assert.match(body, /ann <b>0<\/b>/);
    assert.doesNotMatch(body, /South/);
  }
});

test("a ranked doubles game a partner or an opponent left says so for the side", () => {
  const seats = (gone) => [["south", 0, "m1", "ann"], ["west", 1, "m2", "bob"], ["north", 0, "m3", "cat"], ["east", 1, "m4", "dee"]]
    .map(([seat, side, m, n]) => rankedSeat(seat, side, seat === gone ? null : m, seat === gone ? "" : n, 1000));
  const g4 = game({
    rules: { layout: "doubles", discs_per_side: 12, scoring: "four_rounds", rounds: 1 },
    seats: [["south", 0, "ann"], ["west", 1, "bob"], ["north", 0, "cat"], ["east", 1, "dee"]]
      .map(([seat, side, name]) => ({ seat, side, name, cpu: null, in_hand: 12 })),
  });
  const outcome = { ann: "win", cat: "win", bob: "loss", dee: "loss" };
  const ratings = Object.entries(outcome).map(([username, o]) => ({ username, ladder: "doubles", before: 1000, after: o === "win" ? 1030 : 970, provisional: true, outcome: o }));
  const play = (mySeat, me) => {
    const you = { member: me, seats: [mySeat], spectator: false, host: false };
    let s = reduce(initialState(), { type: "table", table: T, event: 3, view: rankedView(me, seats(null), { you, game: g4 }) }, 0);
    s = reduce(s, { type: "finished", table: T, event: 4, winner: null, drawn: [], abandoned: true, game: g4, lobby: { stage: "finished", seats: seats("west"), you }, ratings }, 0);
    return s;
  };
  assert.equal(gameTitle(play("south", "m1")), "An opponent left: your side wins");
  assert.equal(gameTitle(play("east", "m4")), "Your partner left: a loss");
});

test("an unranked party abandoned keeps its wording", () => {
  let s = reduce(initialState(), { type: "table", table: T, event: 3, view: view() }, 0);
  s = reduce(s, { type: "finished", table: T, event: 4, winner: null, drawn: [], abandoned: true, game: game() }, 0);
  assert.equal(gameTitle(s), "Game abandoned");
});

test("a reload's snapshot of the abandoned ranked table keeps it ended, with its result", () => {
  let s = abandoned(M2);
  assert.ok(gameEnded(s));
  const left = game({ seats: [{ ...game().seats[0], name: "South" }, { ...game().seats[1], name: "bob" }] });
  s = reduce(s, { type: "table", table: T, event: 4, view: rankedView(M2, ANN_GONE, { stage: "finished", game: left }) }, 0);
  assert.ok(s.abandoned);
  assert.ok(gameEnded(s));
  assert.equal(gameTitle(s), "Your opponent left: you win");
  assert.equal(s.game.seats[0].name, "ann");
  // Even a page that never saw the `finished` message (no saved state) knows the ranked game ended.
  const fresh = reduce(initialState(), { type: "table", table: T, event: 4, view: rankedView(M2, ANN_GONE, { stage: "finished", game: left }) }, 0);
  assert.ok(gameEnded(fresh));
  // An unranked party's finished lobby is not an end by itself.
  const party = reduce(initialState(), { type: "table", table: T, event: 4, view: view({ stage: "finished" }) }, 0);
  assert.ok(!gameEnded(party));
});

// A ranked no-show (issue 19): bob never took his first shot; the game is aborted, not rated,
// and both are told why in words, whether they follow the game or open it again afterwards.
test("a ranked game aborted for a no-show says so in words, for both players, and rates nobody", () => {
  const why = { reason: "no_show", seat: "north", name: "bob",
    message: "bob (north) did not take a first shot within the first turn's clock: the game is aborted and not rated, nobody's rating changes" };
  for (const me of [M1, M2]) {
    let s = reduce(initialState(), { type: "table", table: T, event: 3, view: rankedView(me, BOTH) }, 0);
    s = reduce(s, { type: "aborted", table: T, event: 4, ...why }, 0);
    s = reduce(s, { type: "finished", table: T, event: 5, winner: null, drawn: [], abandoned: true, aborted: why, game: game(), lobby: { stage: "finished", seats: BOTH, you: rankedView(me, BOTH).you }, ratings: [] }, 0);
    assert.equal(gameTitle(s), "Game aborted: not rated");
    const block = ratingsBlock(s);
    assert.match(block, /bob \(north\) did not take a first shot .* not rated, nobody&#39;s rating changes\./);
    assert.doesNotMatch(block, /being worked out|counts as a loss/);
    // Opened again later: the view says it too.
    const later = reduce(initialState(), { type: "table", table: T, event: 5, view: rankedView(me, BOTH, { stage: "finished", aborted: why }) }, 0);
    assert.equal(gameTitle(later), "Game aborted: not rated");
  }
  // An abandoned game that was not aborted keeps its own words.
  assert.equal(gameTitle(abandoned(M2)), "Your opponent left: you win");
});

test("an event's game says where its result goes and links back to the event (docs/protocol.md, Event tables)", () => {
  const link = {
    id: "0123456789abcdef", name: "Tuesday league", stage: "Round 1", round: 1, table: 2, game: 1,
    best_of: 1, rated: false, label: "Tuesday league · Round 1 · Table 2", page: "/events/0123456789abcdef",
  };
  const over = game({ phase: "game_over", current_seat: null, outcome: { winner: 0, drawn: [] } });
  let s = reduce(initialState(), { type: "table", table: T, event: 3, view: rankedView(M1, BOTH, { event_link: link }) }, 0);
  s = reduce(s, { type: "finished", table: T, event: 4, winner: 0, drawn: [], abandoned: false, game: over, lobby: { stage: "finished" }, ratings: [] }, 0);
  const block = ratingsBlock(s);
  assert.match(block, /This game of Tuesday league is not rated: its result goes to the event by itself\./);
  assert.match(block, /href="\/events\/0123456789abcdef"[^>]*>Back to Tuesday league</);
  assert.doesNotMatch(block, /being worked out/);
  // A rated event's game shows its ratings as a ranked game does, and the way back.
  let rated = reduce(initialState(), { type: "table", table: T, event: 3, view: rankedView(M1, BOTH, { event_link: { ...link, rated: true } }) }, 0);
  rated = reduce(rated, { type: "finished", table: T, event: 4, winner: 0, drawn: [], abandoned: false, game: over, lobby: { stage: "finished" }, ratings: RATINGS }, 0);
  assert.match(ratingsBlock(rated), /data-testid="rating-change"[\s\S]*Back to Tuesday league/);
  // A ranked game outside events has no such link.
  assert.doesNotMatch(ratingsBlock(abandoned(M2)), /Back to/);
});
