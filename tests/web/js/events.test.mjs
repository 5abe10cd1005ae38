// Tests of the event pages' words and figures (src/crokinole/web/static/lib/events.js; issue 23:
// "every standing shows the tie-break values that decided it", "the bracket drawn as a
// bracket", hall boards through the score keeper). Expectations are worked by hand from the
// view's JSON in docs/events.md, not copied from the code's output. Run by `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import {
  botEntrants, bracketLayout, decidedCaption, decidedWords, eventDay, eventFromPath, formatWords, gamePoints, moveItem, nextSteps,
  pairingPlace, pairingStateWords, reachedWords, resultWords, settingsFrom, sheetResult, sideHasBot, sideOf, swapEntrants,
  tieBreakValue,
} from "../../../src/crokinole/web/static/lib/events.js";

test("the formats in plain words", () => {
  assert.equal(formatWords({ format: "swiss", rounds: 5 }), "Swiss, 5 rounds");
  assert.equal(formatWords({ format: "swiss", rounds: 1 }), "Swiss, 1 round");
  assert.equal(formatWords({ format: "pools", pools: 3 }), "Round robin in 3 pools");
  assert.equal(
    formatWords({ format: "pools_playoffs", pools: 2, playoff_size: 4, best_of: 3 }),
    "2 pools, then the top 4 of each into playoffs (best of 3 games)",
  );
  assert.equal(formatWords({ format: "elimination", best_of: 1 }), "Single elimination (one game a match)");
});

test("a standing says which tie-break set it apart (issue 23: the values that decided it)", () => {
  const order = ["match_points", "twenties", "head_to_head", "differential"];
  assert.equal(decidedCaption({ decided_by: "twenties", played: 2 }), "decided by 20s");
  assert.equal(decidedCaption({ decided_by: null, played: 3 }), "level on every tie-break");
  assert.equal(decidedCaption({ decided_by: null, played: 0 }), "");
  assert.equal(decidedWords({ decided_by: "match_points", played: 2 }, order), "decided by match points");
  assert.equal(decidedWords({ decided_by: "twenties", played: 2 }, order), "level on match points; decided by 20s");
  assert.equal(
    decidedWords({ decided_by: "differential", played: 2 }, order),
    "level on match points, 20s, head-to-head; decided by points differential",
  );
});

test("tie-break values: the differential signed, halves kept", () => {
  assert.equal(tieBreakValue("differential", 25), "+25");
  assert.equal(tieBreakValue("differential", -10), "−10");
  assert.equal(tieBreakValue("differential", 0), "0");
  assert.equal(tieBreakValue("match_points", 3), "3");
  assert.equal(tieBreakValue("buchholz", 4.5), "4.5");
  assert.equal(tieBreakValue("twenties", null), "–");
});

test("the tie-break order is reordered one place at a time", () => {
  const order = ["match_points", "twenties", "head_to_head", "differential"];
  assert.deepEqual(moveItem(order, 2, -1), ["match_points", "head_to_head", "twenties", "differential"]);
  assert.deepEqual(moveItem(order, 3, 1), order); // the last cannot go further down
  assert.deepEqual(moveItem(order, 0, -1), order);
  assert.deepEqual(order, ["match_points", "twenties", "head_to_head", "differential"]); // untouched
});

test("the create form's settings: tournament rules and the default tie-breaks by default (R2)", () => {
  const s = settingsFrom({ name: "  Tuesday league ", format: "swiss", rounds: "5" });
  assert.equal(s.name, "Tuesday league");
  assert.equal(s.rounds, 5);
  assert.deepEqual(s.tie_breaks, ["match_points", "twenties", "head_to_head", "differential"]);
  assert.equal(s.rules.discs_per_side, 8);
  assert.equal(s.rules.rounds, 4);
  assert.equal(s.rules.required_contact, true);
  assert.equal(s.rules.layout, "singles");
  assert.equal(s.venue, "online");
  assert.equal("pools" in s, false); // a Swiss has no pools to send
  const d = settingsFrom({ name: "Doubles", format: "swiss", teams: "rotating" });
  assert.equal(d.rules.layout, "doubles");
  assert.equal(d.rules.discs_per_side, 12); // R2: 12 a team in doubles
  const w = settingsFrom({ name: "Worlds", format: "pools_playoffs", pools: "4", playoff_size: "2" });
  assert.deepEqual([w.pools, w.playoff_size, w.best_of], [4, 2, 3]); // the playoffs: best of 3
  const e = settingsFrom({ name: "Cup", format: "elimination" });
  assert.equal(e.best_of, 1);
  assert.equal("rounds" in e, false);
});

test("a pairing's state, and which side an entrant plays", () => {
  const p = { sides: [["e1"], ["e4"]], names: ["Ann", "Dee"], state: "reported", reported_by: 1 };
  assert.equal(pairingStateWords(p), "Result entered by Dee's side: waiting for a confirmation");
  assert.equal(pairingStateWords({ ...p, state: "confirmed" }), "Finished");
  assert.equal(sideOf(p, "e4"), 1);
  assert.equal(sideOf(p, "e9"), null);
  assert.equal(sideOf(p, null), null);
});

test("online or hall: the venue decides, and in 'both' the entrants' being online", () => {
  const entrants = [
    { id: "e1", online: true }, { id: "e2", online: true }, { id: "e3", online: false },
  ];
  const view = (venue) => ({ settings: { venue }, entrants });
  assert.equal(pairingPlace(view("hall"), { sides: [["e1"], ["e2"]], tables: [] }), "hall");
  assert.equal(pairingPlace(view("online"), { sides: [["e1"], ["e3"]], tables: [] }), "online");
  assert.equal(pairingPlace(view("both"), { sides: [["e1"], ["e2"]], tables: [] }), "online");
  assert.equal(pairingPlace(view("both"), { sides: [["e1"], ["e3"]], tables: [] }), "hall");
});

test("a result's game score worked out by R2 (2 a round won, 1 each a tie)", () => {
  // Rounds 35–10, 0–15, 20–20, 45–5: Ann wins two, Dee one, one tied: 5–3.
  const rounds = [
    { totals: [35, 10], twenties: [1, 0] }, { totals: [0, 15], twenties: [0, 0] },
    { totals: [20, 20], twenties: [1, 1] }, { totals: [45, 5], twenties: [2, 0] },
  ];
  assert.deepEqual(gamePoints(rounds), [5, 3]);
  assert.deepEqual(resultWords({ names: ["Ann", "Dee"], result: { games: [{ rounds, forfeit: null }] } }), ["5–3"]);
});

test("a score sheet's rounds become the event's result, 20s from the counted discs", () => {
  const sheet = {
    rounds: [
      { game: 1, totals: [35, 10], counts: [[1, 1, 0, 0], [0, 0, 1, 0]] },
      { game: 1, totals: [0, 15], counts: null },
      { game: 2, totals: [40, 0], counts: [[2, 0, 0, 0], [0, 0, 0, 0]] },
    ],
  };
  assert.deepEqual(sheetResult(sheet), {
    games: [
      { rounds: [{ totals: [35, 10], twenties: [1, 0] }, { totals: [0, 15], twenties: [0, 0] }] },
      { rounds: [{ totals: [40, 0], twenties: [2, 0] }] },
    ],
  });
});

test("the bracket's layout: columns, each match between the two it follows, a line from each", () => {
  // 8 entrants: 4 quarter-finals, 2 semi-finals, a final.
  const match = (r, k) => ({ slot: [r, k], names: ["A", "B"], sides: ["a", "b"], winner: null, bye: false });
  const bracket = {
    size: 8,
    rounds: [
      { name: "Quarter-final", matches: [1, 2, 3, 4].map((k) => match(1, k)) },
      { name: "Semi-final", matches: [1, 2].map((k) => match(2, k)) },
      { name: "Final", matches: [match(3, 1)] },
    ],
  };
  const box = 50;
  const space = 10;
  const top = 20;
  const L = bracketLayout(bracket, { column: 100, gap: 20, box, space, top });
  assert.equal(L.columns.length, 3);
  assert.deepEqual(L.columns.map((c) => c.x), [0, 120, 240]);
  assert.deepEqual(L.columns[0].matches.map((m) => m.y), [20, 80, 140, 200]);
  assert.deepEqual(L.columns[1].matches.map((m) => m.y), [50, 170]); // halfway between each pair
  assert.deepEqual(L.columns[2].matches.map((m) => m.y), [110]);
  assert.equal(L.lines.length, 6); // 4 into the semi-finals, 2 into the final
  assert.equal(L.width, 340);
  assert.equal(L.height, 20 + 4 * 60);
  // The first line leaves quarter-final 1's right edge at its middle and reaches semi-final 1's.
  assert.equal(L.lines[0].d, "M100 45H110V75H120");
});

test("the event's page address: an id, or a join code", () => {
  assert.deepEqual(eventFromPath("/events/ab12cd"), { id: "ab12cd" });
  assert.deepEqual(eventFromPath("/events/join/k7qm2p"), { code: "K7QM2P" });
  assert.equal(eventFromPath("/events"), null);
});

test("the organiser's next steps follow the rounds", () => {
  const waiting = { status: "running", rounds: [{ number: 1, started: false, over: false }] };
  assert.deepEqual(nextSteps(waiting), { pair: false, repair: 1, start: 1, finish: true });
  const playing = { status: "running", rounds: [{ number: 1, started: true, over: false }] };
  assert.deepEqual(nextSteps(playing), { pair: false, repair: null, start: null, finish: true });
  const done = { status: "running", rounds: [{ number: 1, started: true, over: true }] };
  assert.equal(nextSteps(done).pair, true);
  assert.equal(nextSteps({ status: "open", rounds: [] }).pair, true);
  assert.equal(nextSteps({ status: "finished", rounds: [] }).pair, false);
  // The format is done (every round played): nothing more to pair, only to finish.
  assert.deepEqual(nextSteps({ ...done, complete: true }), { pair: false, repair: null, start: null, finish: true });
});

test("the organiser's own re-pairing: two entrants swap places, the rest stays", () => {
  const pairings = [
    { round: 2, table: 1, sides: [["e1"], ["e4"]], first: 0, stage: "Round 2", best_of: 1, slot: null, names: ["Ann", "Dee"], state: "waiting" },
    { round: 2, table: 2, sides: [["e2"], ["e3"]], first: 1, stage: "Round 2", best_of: 1, slot: null, names: ["Bob", "Cy"], state: "waiting" },
    { round: 2, table: 3, sides: [["e5"], []], first: 0, stage: "Round 2", best_of: 1, slot: null, names: ["Eve", ""], state: "bye" },
  ];
  const swapped = swapEntrants(pairings, "e4", "e3");
  assert.deepEqual(swapped.map((p) => p.sides), [[["e1"], ["e3"]], [["e2"], ["e4"]], [["e5"], []]]);
  assert.deepEqual(Object.keys(swapped[0]).sort(), ["best_of", "first", "round", "sides", "slot", "stage", "table"]);
  assert.equal(swapped[1].first, 1); // who shoots first stays with the board
  // The bye moves to whoever takes its place.
  assert.deepEqual(swapEntrants(pairings, "e5", "e1").map((p) => p.sides[0]), [["e5"], ["e2"], ["e1"]]);
  assert.deepEqual(swapEntrants(pairings, "e1", "e9").map((p) => p.sides), pairings.map((p) => p.sides));
  assert.deepEqual(pairings[0].sides, [["e1"], ["e4"]]); // untouched
});

test("a bracket's round reached in words: the champion, the final, the rounds before", () => {
  const bracket = { rounds: [{ name: "Quarter-final" }, { name: "Semi-final" }, { name: "Final" }] };
  assert.equal(reachedWords(bracket, 4), "Champion");
  assert.equal(reachedWords(bracket, 3), "Final");
  assert.equal(reachedWords(bracket, 1), "Quarter-final");
  assert.equal(reachedWords(bracket, 0), "–"); // not in the bracket (a pool's lower places)
  assert.equal(reachedWords(null, 2), "–");
});

test("a bot entrant's side is marked BOT, singles and rotating doubles (issue 24)", () => {
  const view = { entrants: [{ id: "e1", bot: false }, { id: "e2", bot: true }, { id: "e3" }] };
  const bots = botEntrants(view);
  assert.deepEqual([...bots], ["e2"]);
  assert.equal(sideHasBot(bots, "e2"), true); // a bracket side: one id
  assert.equal(sideHasBot(bots, "e1"), false);
  assert.equal(sideHasBot(bots, ["e1", "e2"]), true); // a doubles side with a bot partner
  assert.equal(sideHasBot(bots, ["e1", "e3"]), false);
  assert.equal(sideHasBot(bots, null), false); // a bye's empty side
  assert.equal(sideHasBot(botEntrants(null), ["e2"]), false);
});

test("an event's day in words, the same day wherever the reader is; anything else as it was", () => {
  // The 4th of December 2026 built from its numbers, in the reader's words: the list's short
  // form and the event page's long one (the list once showed the raw "2026-12-04").
  const day = new Date(2026, 11, 4, 9);
  assert.equal(eventDay("2026-12-04"), day.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" }));
  assert.equal(
    eventDay("2026-12-04", true),
    day.toLocaleDateString(undefined, { weekday: "short", year: "numeric", month: "long", day: "numeric" }),
  );
  assert.notEqual(eventDay("2026-12-04"), "2026-12-04");
  assert.match(eventDay("2026-01-31"), /31/); // not the 30th, nor February
  assert.equal(eventDay("next Tuesday"), "next Tuesday");
  assert.equal(eventDay(""), "");
});
