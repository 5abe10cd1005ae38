// Tests of "your turn, even in another tab" (src/crokinole/web/static/lib/attention.js): which
// turns call the player back, and what the page does as the turn and its visibility change.
// The states are written from docs/protocol.md (v2) as state.js keeps them.

import assert from "node:assert/strict";
import test from "node:test";

import {
  START, TURN_FAVICON, TURN_TITLE, attend, awaitedTurn, notificationText, onlineGame, vibrationWanted,
} from "../../../src/crokinole/web/static/lib/attention.js";
import { initialState } from "../../../src/crokinole/web/static/lib/state.js";

const T = "c".repeat(32);

function seatsOf(names) {
  return names.map(([seat, side, name, cpu = null, inHand = 4]) => ({ seat, side, name, cpu, in_hand: inHand }));
}

/** A table this screen sits at: `you` its seats, `current` the seat to move. */
function table({ kind = "party", you = ["south"], current = "south", inHand = 4, spectator = false, over = {} } = {}) {
  const seats = seatsOf([["south", 0, "Ann", null, inHand], ["north", 1, "Bob", null, inHand]]);
  return {
    ...initialState(),
    connection: "open",
    table: T,
    kind,
    stage: "playing",
    gameNumber: 1,
    you: { member: "m1", seats: you, spectator, host: true },
    seats: seats.map((x) => ({ seat: x.seat, side: x.side, occupant: { kind: "person", member: x.seat === "south" ? "m1" : "m2", name: x.name, connected: true, stand_in: false } })),
    game: { phase: "playing", round: 1, current_seat: current, seats, sides: [{ side: 0 }, { side: 1 }], discs: [], history: [], placement_limit: 40 },
    ...over,
  };
}

const looked = { visible: true, focused: true };
const hidden = { visible: false, focused: false };
const blurred = { visible: true, focused: false };

/** Run `attend` over steps of {state, page, notify, vibrate}; returns every result. */
function run(steps) {
  let memo = START;
  return steps.map(({ state, page, notify = true, vibrate = false }) => {
    const r = attend(memo, { turn: awaitedTurn(state), ...page, notify, vibrate });
    memo = r.memo;
    return r;
  });
}

test("only a party's or a ranked table's player at their own turn is waited for", () => {
  assert.equal(awaitedTurn(table()).key, `${T}/1/1/south/4`);
  assert.deepEqual(awaitedTurn(table()).opponents, ["Bob"]);
  assert.equal(awaitedTurn(table({ current: "north" })), null); // Bob's turn
  assert.equal(awaitedTurn(table({ kind: "solo" })), null); // against the CPU on this device
  assert.equal(awaitedTurn(table({ kind: "solo", you: ["south", "north"] })), null); // pass and play
  assert.equal(awaitedTurn(table({ you: ["south", "north"] })), null); // two seats on one device
  assert.equal(awaitedTurn(table({ spectator: true, you: [] })), null);
  assert.equal(awaitedTurn(table({ over: { stage: "finished" } })), null);
  assert.equal(awaitedTurn(initialState()), null); // no table
  // A ranked table: the view's kind says so.
  assert.ok(onlineGame(table({ kind: "ranked" })));
  assert.ok(awaitedTurn(table({ kind: "ranked", over: { ranked: true } })));
  // A seat the CPU plays for its player meanwhile (a stand-in) waits for nobody here.
  const standIn = table();
  standIn.seats[0].occupant.stand_in = true;
  assert.equal(awaitedTurn(standIn), null);
});

test("each turn is its own: the next disc of the same player is a new turn", () => {
  const first = awaitedTurn(table({ inHand: 4 })).key;
  assert.notEqual(awaitedTurn(table({ inHand: 3 })).key, first);
  assert.notEqual(awaitedTurn(table({ over: { gameNumber: 2 } })).key, first); // a rematch
});

test("the notification names the opponents when they are known", () => {
  assert.deepEqual(notificationText({ key: "k", opponents: ["Bob"] }), { title: "Your turn in crokinole", body: "Against Bob." });
  assert.deepEqual(notificationText({ key: "k", opponents: ["Bob", "Dee"] }).body, "Against Bob & Dee.");
  assert.deepEqual(notificationText({ key: "k", opponents: [] }).body, "");
});

test("a turn that comes while the page is hidden: title, favicon and one notification", () => {
  const [before, comes, still, back] = run([
    { state: table({ current: "north" }), page: hidden },
    { state: table(), page: hidden },
    { state: table(), page: hidden }, // any later refresh of the same turn
    { state: table(), page: looked },
  ]);
  assert.equal(before.alert, false);
  assert.equal(comes.alert, true);
  assert.deepEqual(comes.notify, { title: "Your turn in crokinole", body: "Against Bob.", tag: `crokinole-turn/${T}/1/1/south/4` });
  assert.equal(still.alert, true);
  assert.equal(still.notify, null); // one notification a turn
  assert.equal(still.close, false);
  // Back at the page: the title and favicon are the page's own, the notification closed.
  assert.equal(back.alert, false);
  assert.equal(back.close, true);
  assert.equal(back.notify, null);
  assert.equal(TURN_TITLE, "● Your turn — Crokinole");
  assert.match(TURN_FAVICON, /^\/static\/favicon-turn\.svg$/);
});

test("a window left for another (visible, not focused) counts as away", () => {
  const [, comes] = run([{ state: table({ current: "north" }), page: blurred }, { state: table(), page: blurred }]);
  assert.equal(comes.alert, true);
  assert.ok(comes.notify);
  assert.equal(comes.vibrate, false); // vibrate is off in these steps
});

test("the turn passing (the clock ran out) restores the page and closes the notification", () => {
  const results = run([
    { state: table({ current: "north" }), page: hidden },
    { state: table(), page: hidden },
    { state: table({ current: "north", inHand: 3 }), page: hidden },
  ]);
  assert.equal(results[2].alert, false);
  assert.equal(results[2].close, true);
  assert.equal(results[2].memo.notified, null);
});

test("the next turn, still away, gets its own notification after the first is closed", () => {
  const results = run([
    { state: table({ current: "north" }), page: hidden },
    { state: table({ inHand: 4 }), page: hidden },
    { state: table({ inHand: 3 }), page: hidden }, // e.g. a timeout, then Bob shot again
  ]);
  assert.ok(results[1].notify);
  assert.equal(results[2].close, true);
  assert.ok(results[2].notify);
  assert.notEqual(results[2].notify.tag, results[1].notify.tag);
});

test("no notification unless asked for and allowed, nor for a turn seen coming", () => {
  const off = run([{ state: table({ current: "north" }), page: hidden }, { state: table(), page: hidden, notify: false }]);
  assert.equal(off[1].notify, null);
  assert.equal(off[1].alert, true); // the title and favicon change all the same
  // The turn came while the player looked; leaving the tab then shows the turn, no reminder.
  const seen = run([
    { state: table({ current: "north" }), page: looked },
    { state: table(), page: looked },
    { state: table(), page: hidden },
  ]);
  assert.equal(seen[1].alert, false);
  assert.equal(seen[2].alert, true);
  assert.equal(seen[2].notify, null);
});

test("a game on one device asks for nothing, hidden or not", () => {
  for (const state of [table({ kind: "solo" }), table({ you: ["south", "north"] })]) {
    const r = run([{ state: table({ current: "north" }), page: hidden }, { state, page: hidden, vibrate: true }]);
    assert.deepEqual([r[1].alert, r[1].notify, r[1].vibrate], [false, null, false]);
  }
});

test("the page just opened on a waiting turn is being looked at: no notification, no buzz", () => {
  const [first] = run([{ state: table(), page: looked, vibrate: true }]);
  assert.deepEqual([first.alert, first.notify, first.vibrate], [false, null, false]);
  const [opened] = run([{ state: table(), page: hidden }]);
  assert.equal(opened.alert, true); // a tab restored in the background still shows the turn
  assert.equal(opened.notify, null);
});

test("a turn that comes to a visible page buzzes once, when vibration is wanted", () => {
  const r = run([
    { state: table({ current: "north" }), page: looked, vibrate: true },
    { state: table(), page: looked, vibrate: true },
    { state: table(), page: looked, vibrate: true },
  ]);
  assert.deepEqual(r.map((x) => x.vibrate), [false, true, false]);
  const none = run([{ state: table({ current: "north" }), page: looked }, { state: table(), page: looked, vibrate: false }]);
  assert.equal(none[1].vibrate, false);
  // A hidden page cannot vibrate (browsers refuse it): it is told by the notification.
  const away = run([{ state: table({ current: "north" }), page: hidden, vibrate: true }, { state: table(), page: hidden, vibrate: true }]);
  assert.equal(away[1].vibrate, false);
});

test("vibration: the player's choice, else on for touch screens without reduced motion", () => {
  const phone = { touch: true, reducedMotion: false, canVibrate: true };
  assert.equal(vibrationWanted(undefined, phone), true);
  assert.equal(vibrationWanted(undefined, { ...phone, reducedMotion: true }), false);
  assert.equal(vibrationWanted(undefined, { ...phone, touch: false }), false);
  assert.equal(vibrationWanted(false, phone), false);
  assert.equal(vibrationWanted(true, { ...phone, touch: false, reducedMotion: true }), true);
  assert.equal(vibrationWanted(true, { ...phone, canVibrate: false }), false);
  assert.equal(vibrationWanted(undefined), false);
});
