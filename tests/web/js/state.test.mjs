// Tests of the pure client state (src/crokinole/web/static/lib/state.js), run by `node --test`
// from tests/web/test_state_js.py. The messages are written from docs/protocol.md (v2),
// independently of the server's code.

import assert from "node:assert/strict";
import test from "node:test";

import {
  LAYOUTS, allSeatsFilled, bottomSeat, canStart, clock, codeFromPath, eventGap, initialState, isHotSeat, leaveTable,
  nearestFree, normalizeCode, occupantName, placementFree, placementProblem, reactionLine, reduce, shooter,
  soloSeats, standInText, tableSettings, turnText, withDistinctNames,
} from "../../../src/crokinole/web/static/lib/state.js";

const T = "a".repeat(32);

function game(over = {}) {
  return {
    rules: { layout: "doubles", discs_per_side: 12, scoring: "four_rounds", rounds: 4 },
    phase: "playing",
    round: 1,
    current_seat: "south",
    seats: [
      { seat: "south", side: 0, name: "Ann", cpu: null, in_hand: 6 },
      { seat: "west", side: 1, name: "Bob", cpu: null, in_hand: 6 },
      { seat: "north", side: 0, name: "CPU Hard", cpu: "hard", in_hand: 6 },
      { seat: "east", side: 1, name: "Cy", cpu: null, in_hand: 6 },
    ],
    sides: [{ side: 0, score: 0 }, { side: 1, score: 0 }],
    discs: [],
    history: [],
    outcome: null,
    placement_limit: 41.86,
    ...over,
  };
}

function person(member, name, extra = {}) {
  return { kind: "person", member, name, connected: true, stand_in: false, ...extra };
}

function view(over = {}) {
  return {
    table: T,
    kind: "party",
    code: "ABC234",
    invite: "/join/ABC234",
    stage: "lobby",
    host: "m1",
    you: { member: "m2", seats: ["west"], spectator: false, host: false },
    members: [
      { member: "m1", name: "Ann", spectator: false, connected: true, seat: "south", host: true },
      { member: "m2", name: "Bob", spectator: false, connected: true, seat: "west", host: false },
    ],
    spectators: 0,
    seats: [
      { seat: "south", side: 0, occupant: person("m1", "Ann") },
      { seat: "west", side: 1, occupant: person("m2", "Bob") },
      { seat: "north", side: 0, occupant: null },
      { seat: "east", side: 1, occupant: null },
    ],
    settings: { layout: "doubles", discs: 12, scoring: "four_rounds", rounds: 4, turn_time: 30 },
    deadline: null,
    server_time: 1000,
    game: null,
    placement: {},
    next_pressed: [],
    rematch_votes: [],
    ...over,
  };
}

function lobby() {
  return reduce(initialState(), { type: "table", table: T, event: 3, view: view() }, 5000);
}

/** An event message's `lobby` part (docs/protocol.md: every event message carries one). */
function lobbyPart(over = {}) {
  const { table, kind, code, invite, server_time, game, ...part } = view(over);
  return part;
}

test("a table snapshot fills the lobby and measures the clock offset", () => {
  const s = lobby();
  assert.equal(s.table, T);
  assert.equal(s.code, "ABC234");
  assert.equal(s.event, 3);
  assert.deepEqual(s.you.seats, ["west"]);
  assert.equal(s.offset, 1000 - 5000);
  assert.equal(occupantName(s, "south"), "Ann");
  assert.equal(occupantName(s, "north"), "Empty seat");
  assert.equal(allSeatsFilled(s), false);
  assert.equal(canStart(s), false); // not the host, and seats are empty
});

test("the host may start only when every seat is filled", () => {
  let s = reduce(initialState(), {
    type: "table", table: T, event: 1, view: view({ you: { member: "m1", seats: ["south"], host: true } }),
  });
  assert.equal(canStart(s), false);
  const seats = view().seats.map((x) => (x.occupant ? x : { ...x, occupant: { kind: "cpu", level: "easy", name: "CPU Easy", stand_in: false } }));
  s = reduce(s, { type: "seat", table: T, event: 2, lobby: { seats } });
  assert.equal(allSeatsFilled(s), true);
  assert.equal(canStart(s), true);
});

test("events older than the state, or of another table, change nothing", () => {
  const s = lobby();
  assert.equal(reduce(s, { type: "seat", table: T, event: 3, lobby: { seats: [] } }), s);
  assert.equal(reduce(s, { type: "seat", table: "b".repeat(32), event: 9, lobby: { seats: [] } }), s);
  const away = view();
  away.members[0] = { ...away.members[0], connected: false };
  away.seats[0] = { ...away.seats[0], occupant: person("m1", "Ann", { connected: false }) };
  const part = lobbyPart({ members: away.members, seats: away.seats });
  const later = reduce(s, { type: "presence", table: T, event: 4, member: "m1", connected: false, lobby: part });
  assert.equal(later.event, 4);
  assert.equal(later.members[0].connected, false);
  assert.equal(later.seats[0].occupant.connected, false);
  assert.equal(s.members[0].connected, true); // the old state is untouched
});

test("shots advance the game and the log; a new round empties the log", () => {
  let s = reduce(lobby(), {
    type: "game_started", table: T, event: 4,
    view: view({ stage: "playing", game: game(), deadline: { kind: "turn", at: 1032 }, placement: { south: [[-41.86, 41.86]] } }),
  });
  assert.equal(s.stage, "playing");
  assert.equal(s.log.length, 0);
  const g2 = game({ current_seat: "west" });
  s = reduce(s, {
    type: "shot", table: T, event: 5, seat: "south", by: "person", game: g2,
    report: { seat: "south", valid: true, discs: [] }, trajectory: { discs: [] },
    lobby: lobbyPart({ stage: "playing", deadline: { kind: "turn", at: 1040 }, placement: { west: [[-41.86, 41.86]] } }),
  });
  assert.equal(s.game.current_seat, "west");
  assert.equal(s.log.length, 1);
  assert.deepEqual(s.deadline, { kind: "turn", at: 1040 });
  assert.equal(shooter(s), "west"); // Bob's turn, on Bob's screen
  s = reduce(s, { type: "timeout", table: T, event: 6, seat: "west", reason: "clock", game: game({ current_seat: "north" }), report: { unplayed: true } });
  assert.equal(s.log.length, 2);
  assert.equal(s.log[1].reason, "clock");
  assert.equal(shooter(s), null);
  s = reduce(s, { type: "round", table: T, event: 7, game: game({ round: 2 }) });
  assert.equal(s.log.length, 0);
  assert.equal(s.game.round, 2);
});

test("the turn clock counts down from the server's deadline, with the offset", () => {
  let s = reduce(lobby(), {
    type: "game_started", table: T, event: 4,
    view: view({ stage: "playing", game: game(), deadline: { kind: "turn", at: 1030 }, server_time: 1000 }),
  }, 200);
  // The page's clock says 200 when the server's says 1000: 10 s later on the page, 20 s left.
  assert.deepEqual(clock(s, 210), { kind: "turn", left: 20 });
  assert.equal(clock(s, 260).left, 0); // never below zero; the server decides the timeout
  s = reduce(s, { type: "pong", server_time: 1100 }, 290);
  assert.equal(clock(s, 290).left, 0);
  assert.equal(clock({ ...s, deadline: null }, 0), null);
});

test("placement comes from the server's free stretches", () => {
  const s = reduce(lobby(), {
    type: "game_started", table: T, event: 4,
    view: view({ stage: "playing", game: game(), placement: { south: [[-41.86, -3.0], [5.5, 41.86]] } }),
  });
  assert.equal(placementFree(s, "south", -10), true);
  assert.equal(placementFree(s, "south", 0), false);
  assert.equal(placementFree(s, "south", 5.5), true);
  assert.equal(nearestFree(s, "south", 0), -3.0);
  assert.equal(nearestFree(s, "south", 3), 5.5);
  assert.equal(placementProblem(s, "south", 10), null);
  assert.match(placementProblem(s, "south", 1, "one of your discs"), /overlap one of your discs/);
  assert.match(placementProblem(s, "south", 44), /quadrant line/);
  const full = { ...s, placement: { south: [] } };
  assert.equal(nearestFree(full, "south", 0), null);
  assert.match(placementProblem(full, "south", 0), /no room/);
});

test("a stand-in CPU plays a missing seat, and it is said so", () => {
  let s = reduce(lobby(), {
    type: "game_started", table: T, event: 4,
    view: view({ stage: "playing", game: game({ current_seat: "south" }) }),
  });
  const standIn = (on) => lobbyPart({
    stage: "playing",
    seats: view().seats.map((x) => (x.seat === "south" ? { ...x, occupant: person("m1", "Ann", { stand_in: on }) } : x)),
  });
  s = reduce(s, { type: "stand_in", table: T, event: 5, seat: "south", on: true, lobby: standIn(true) });
  assert.equal(standInText(s, "south"), "CPU playing for Ann");
  assert.equal(turnText(s), "CPU playing for Ann…");
  s = reduce(s, { type: "stand_in", table: T, event: 6, seat: "south", on: false, lobby: standIn(false) });
  assert.equal(standInText(s, "south"), null);
  assert.equal(turnText(s), "Ann to shoot");
});

test("a seat stood in for is not shot from its own screen", () => {
  const v = view({
    stage: "playing", game: game({ current_seat: "west" }),
    seats: view().seats.map((x) => (x.seat === "west" ? { ...x, occupant: person("m2", "Bob", { stand_in: true }) } : x)),
  });
  const s = reduce(initialState(), { type: "table", table: T, event: 8, view: v });
  assert.equal(shooter(s), null);
});

test("the board is turned so the viewer's seat is at the bottom", () => {
  const s = lobby();
  assert.equal(bottomSeat(s), "west");
  const spectator = { ...s, you: { member: "m3", seats: [], spectator: true, host: false } };
  assert.equal(bottomSeat(spectator), "south");
  const hot = { ...s, you: { member: "m1", seats: ["south", "west", "north"], spectator: false, host: true }, game: game({ current_seat: "north" }) };
  assert.equal(isHotSeat(hot), true);
  assert.equal(bottomSeat(hot), "south");
  assert.equal(bottomSeat(hot, true), "north");
  assert.equal(turnText(hot), "CPU Hard to shoot"); // one device, several seats: named, not "you"
});

test("reactions are kept, a few, and said with the member's name", () => {
  let s = lobby();
  for (let i = 0; i < 9; i += 1) {
    s = reduce(s, { type: "reaction", table: T, event: 4 + i, member: "m1", reaction: "nice_shot" });
  }
  assert.ok(s.reactions.length <= 6);
  assert.equal(reactionLine(s, s.reactions[0]), "Ann: Nice shot!");
  assert.equal(reactionLine(s, { member: "m2", reaction: "thanks" }), "You: Thanks");
});

test("finished, rematch votes, closed", () => {
  let s = reduce(lobby(), { type: "game_started", table: T, event: 4, view: view({ stage: "playing", game: game() }) });
  s = reduce(s, { type: "finished", table: T, event: 5, game: game({ phase: "game_over", outcome: { winner: 0, drawn: [] } }), abandoned: false, record: { easy: {} }, lobby: lobbyPart({ stage: "finished" }) });
  assert.equal(s.stage, "finished");
  assert.deepEqual(s.record, { easy: {} });
  s = reduce(s, { type: "rematch_vote", table: T, event: 6, member: "m1", lobby: lobbyPart({ stage: "finished", rematch_votes: ["m1"] }) });
  assert.deepEqual(s.rematchVotes, ["m1"]);
  s = reduce(s, { type: "rematch_vote", table: T, event: 7, member: "m1", lobby: lobbyPart({ stage: "finished", rematch_votes: ["m1", "m2"] }) });
  assert.deepEqual(s.rematchVotes, ["m1", "m2"]);
  s = reduce(s, { type: "closed", table: T, event: 8, reason: "left", lobby: lobbyPart({ stage: "closed" }) });
  assert.equal(s.stage, "closed");
  const gone = leaveTable(s);
  assert.equal(gone.table, null);
  assert.deepEqual(gone.record, { easy: {} });
});

test("an error is kept and changes nothing else", () => {
  const s = lobby();
  const e = reduce(s, { type: "error", table: T, event: 3, code: "seat_taken", message: "That seat is taken." });
  assert.deepEqual(e.error, { code: "seat_taken", message: "That seat is taken." });
  assert.equal(e.seats, s.seats);
});

test("welcome keeps the levels, reactions and the device's tables", () => {
  const s = reduce(initialState(), {
    type: "welcome", table: null, event: null, token: "t".repeat(32), protocol: 2, server_time: 50,
    levels: [{ id: "easy", name: "Easy" }], reactions: ["nice_shot", "oops"], record: {},
    tables: [{ table: T, kind: "party", stage: "playing" }],
  }, 40);
  assert.equal(s.offset, 10);
  assert.deepEqual(s.reactionIds, ["nice_shot", "oops"]);
  assert.equal(s.myTables.length, 1);
});

test("settings follow R2 per layout", () => {
  assert.equal(tableSettings({ layout: "doubles", discs: 8 }).discs, 12);
  assert.equal(tableSettings({ layout: "three_singles", discs: 12 }).discs, 8);
  assert.equal(tableSettings({ layout: "singles", discs: 12 }).discs, 12);
  const t = tableSettings({ layout: "singles", scoring: "to_100", rounds: 2, turn_time: 45 });
  assert.equal(t.rounds, null); // R2: a game to 100 has no round count
  assert.equal(t.turn_time, null); // only none, 30 or 60
  assert.equal(tableSettings({ layout: "singles", turn_time: "60", hand: "human" }).turn_time, 60);
  assert.equal(tableSettings({ layout: "singles", rounds: 1 }).rounds, 1);
  for (const [name, l] of Object.entries(LAYOUTS)) assert.ok(l.discs.length >= 1, name);
});

test("solo seats: one person with a CPU partner, or several people on one device", () => {
  assert.deepEqual(soloSeats("doubles", 1, "easy"), { south: "me", west: "easy", north: "easy", east: "easy" });
  assert.deepEqual(soloSeats("three_singles", 3, "easy"), { south: "me", west: "me", north: "me" });
  assert.deepEqual(soloSeats("two_vs_one", 2, "hard"), { south: "me", west: "me", north: "hard" });
  assert.deepEqual(soloSeats("singles", 1, "normal", { north: "expert" }), { south: "me", north: "expert" });
});

test("codes are read as typed and from the address", () => {
  assert.equal(normalizeCode(" abc-234 "), "ABC234");
  assert.equal(normalizeCode("O0I1l"), ""); // never in a code
  assert.deepEqual(codeFromPath("/join/abc234"), { code: "ABC234", spectator: false });
  assert.deepEqual(codeFromPath("/watch/ABC234/"), { code: "ABC234", spectator: true });
  assert.equal(codeFromPath("/"), null);
});

test("two seats of one name are told apart by their seat", () => {
  const g = game({
    seats: [
      { seat: "south", side: 0, name: "Ann", cpu: null, in_hand: 8 },
      { seat: "west", side: 1, name: "CPU Easy", cpu: "easy", in_hand: 8 },
      { seat: "north", side: 2, name: "CPU Easy", cpu: "easy", in_hand: 8 },
    ],
  });
  assert.deepEqual(withDistinctNames(g).seats.map((x) => x.name), ["Ann", "CPU Easy (West)", "CPU Easy (North)"]);
  const once = game();
  assert.equal(withDistinctNames(once), once); // nothing to tell apart: the same object
  const s = reduce(lobby(), { type: "game_started", table: T, event: 4, view: view({ stage: "playing", game: g }) });
  assert.equal(s.game.seats[2].name, "CPU Easy (North)");
});

test("a player renamed mid-game is named so on the cards at once", () => {
  let s = reduce(initialState(), { type: "table", table: T, event: 5, view: view({ stage: "playing", game: game() }) });
  s = reduce(s, { type: "member", table: T, event: 6, change: "renamed", member: "m2", name: "Robert" });
  assert.deepEqual(s.game.seats.map((x) => x.name), ["Ann", "Robert", "CPU Hard", "Cy"]);
  // Another member's rename (no seat of theirs in the game) leaves the game alone.
  const t = reduce(s, { type: "member", table: T, event: 7, change: "renamed", member: "m9", name: "Zed" });
  assert.deepEqual(t.game.seats, s.game.seats);
});

test("eventGap: an event message more than one past the last received is a gap; snapshots and other tables never", () => {
  const s = { ...initialState(), table: "t1", event: 7 };
  assert.equal(eventGap(s, 7, { type: "shot", table: "t1", event: 8 }), false);
  assert.equal(eventGap(s, 7, { type: "shot", table: "t1", event: 7 }), false); // a copy: ignored later
  assert.equal(eventGap(s, 7, { type: "presence", table: "t1", event: 9 }), true);
  assert.equal(eventGap(s, 7, { type: "table", table: "t1", event: 12 }), false);
  assert.equal(eventGap(s, 7, { type: "game_started", table: "t1", event: 12 }), false);
  assert.equal(eventGap(s, 7, { type: "shot", table: "t2", event: 12 }), false);
  assert.equal(eventGap({ ...s, table: null }, 7, { type: "shot", table: "t1", event: 12 }), false);
  assert.equal(eventGap(s, null, { type: "shot", table: "t1", event: 12 }), false);
});

test("an event's table keeps where it stands in its event (docs/protocol.md, Event tables)", () => {
  const link = {
    id: "0123456789abcdef", name: "Tuesday league", stage: "Round 2", round: 2, table: 3, game: 1,
    best_of: 1, rated: false, label: "Tuesday league · Round 2 · Table 3", page: "/events/0123456789abcdef",
  };
  const s = reduce(initialState(), { type: "table", table: T, event: 3, view: view({ kind: "ranked", event_link: link }) }, 5000);
  assert.deepEqual(s.eventLink, link);
  assert.equal(s.ranked, true);
  // A party's view says null: another table's link is not kept.
  const other = reduce(s, { type: "table", table: "b".repeat(32), event: 1, view: view({ table: "b".repeat(32), event_link: null }) }, 5000);
  assert.equal(other.eventLink, null);
  assert.equal(initialState().eventLink, null);
});
