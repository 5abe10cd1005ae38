// Tests of ranked play's pure parts: ranked.js's helpers (the queue's wait by the server's
// clock, the window, rating changes, the chart) and state.js's ranked fields, written from the
// contract (docs/protocol.md#ranked-play) and run by `node --test` from tests/web/test_state_js.py.

import assert from "node:assert/strict";
import test from "node:test";

import {
  dateOf, deltaText, outcomeKey, outcomeWord, partnerName, partnerProblem, partnerText, queueMessage,
  RANKED_ERRORS, ratingChart, waitText, waited, windowText,
} from "../../../src/crokinole/web/static/views/ranked.js";
import { initialState, leaveTable, reduce, seatRating } from "../../../src/crokinole/web/static/lib/state.js";

const T = "c".repeat(32);

test("the wait is the server's: since and server_time, plus only the time since the message", () => {
  // The page's clock (1e6 s) is nothing like the server's (1000 s): only differences count.
  const q = { since: 1000, server_time: 1065, receivedAt: 1_000_000 };
  assert.equal(waited(q, 1_000_000), 65);
  assert.equal(waited(q, 1_000_002.5), 67.5);
  assert.equal(waitText(waited(q, 1_000_002.5)), "1:07");
  assert.equal(waited({ since: 10, server_time: 5, receivedAt: 0 }, 0), 0); // never negative
  assert.equal(waited(null, 5), 0);
  assert.equal(waitText(0), "0:00");
  assert.equal(waitText(3725), "1:02:05");
});

test("the window is the rating plus or minus the server's number, never below 0", () => {
  assert.equal(windowText(1000, 50), "950–1050");
  assert.equal(windowText(30, 50), "0–80");
  assert.equal(windowText(undefined, 50), "");
});

test("rating changes and outcomes in words", () => {
  assert.equal(deltaText(1000, 1012), "+12");
  assert.equal(deltaText(1012, 1000), "−12");
  assert.equal(deltaText(1000, 1000), "±0");
  assert.deepEqual(["win", "draw", "loss"].map(outcomeWord), ["Won", "Drawn", "Lost"]);
  assert.deepEqual(["won", "drawn", "lost", "?"].map(outcomeKey), ["win", "draw", "loss", "other"]);
  assert.equal(dateOf(1_700_000_000).getUTCFullYear(), 2023);
  assert.equal(dateOf("2024-05-01T10:00:00Z").getUTCMonth(), 4);
  assert.equal(dateOf("not a date"), null);
});

test("the chart has a point per game, the line through them, and says what it shows", () => {
  const svg = ratingChart([{ rating: 1000, outcome: "win" }, { rating: 1030, outcome: "loss" }, { rating: 1010 }], { width: 300, height: 150 });
  assert.equal((svg.match(/<circle /g) || []).length, 3);
  assert.match(svg, /<path class="line" d="M[\d.]+ [\d.]+ L[\d.]+ [\d.]+ L[\d.]+ [\d.]+"/);
  assert.match(svg, /aria-label="Rating over time: 3 games, from 1000 to 1010 \(lowest 1000, highest 1030\)\."/);
  assert.match(svg, /class="dot win"/);
  assert.match(svg, /viewBox="0 0 300 150"/);
  // The highest rating is drawn highest (smallest y).
  const ys = [...svg.matchAll(/<circle [^>]*cy="([\d.]+)"/g)].map((m) => Number(m[1]));
  assert.ok(ys[1] < ys[2] && ys[2] < ys[0]);
  assert.equal(ratingChart([]), "");
  assert.equal((ratingChart([{ rating: 990 }]).match(/<circle /g) || []).length, 1);
});

test("the queue message names a partner only for doubles and only when one is typed", () => {
  assert.deepEqual(queueMessage("doubles", "  bob "), { type: "queue", ladder: "doubles", partner: "bob" });
  assert.deepEqual(queueMessage("doubles", ""), { type: "queue", ladder: "doubles" });
  assert.deepEqual(queueMessage("doubles", "   "), { type: "queue", ladder: "doubles" });
  assert.deepEqual(queueMessage("doubles"), { type: "queue", ladder: "doubles" });
  assert.deepEqual(queueMessage("doubles", null), { type: "queue", ladder: "doubles" });
  assert.deepEqual(queueMessage("singles", "bob"), { type: "queue", ladder: "singles" }); // refused for singles
  assert.equal(partnerName(" Bob\t"), "Bob");
  assert.equal(partnerName(undefined), "");
});

test("the page's own check of the partner: not yourself (any case), a name an account can have", () => {
  assert.equal(partnerProblem("", "ann"), "");
  assert.equal(partnerProblem("  ", "ann"), "");
  assert.equal(partnerProblem("bob", "ann"), "");
  assert.equal(partnerProblem("Bob_2-x", "ann"), "");
  assert.equal(partnerProblem(" ANN ", "ann"), "You cannot be your own partner.");
  assert.equal(partnerProblem("bo", "ann"), "No player is called bo: a username is 3–20 letters, digits, _ or -.");
  assert.match(partnerProblem("bob smith", "ann"), /^No player is called bob smith/);
  assert.ok(RANKED_ERRORS.has("bad_partner"));
});

test("while queued with a partner: waiting for them until partner_ready, then queued with them", () => {
  assert.equal(partnerText({ ladder: "doubles", partner: "Bob", partner_ready: false }, "bob"), "Waiting for Bob to queue with you…");
  assert.equal(partnerText({ ladder: "doubles", partner: "Bob", partner_ready: true }, "bob"), "Queued with Bob");
  // Before the server's answer (or from a server without the field): the name typed, not ready.
  assert.equal(partnerText(null, "bob"), "Waiting for bob to queue with you…");
  assert.equal(partnerText({ ladder: "doubles" }, " bob "), "Waiting for bob to queue with you…");
  // No partner: nothing to say.
  assert.equal(partnerText({ ladder: "doubles", partner: null, partner_ready: false }), "");
  assert.equal(partnerText({ ladder: "singles" }), "");
  assert.equal(partnerText(null), "");
});

test("a ranked table's seats carry their username, rating and provisional flag", () => {
  let s = reduce(initialState(), {
    type: "table", event: 3, view: {
      table: T, kind: "ranked", ranked: true, stage: "playing",
      you: { member: "m1", seats: ["south"] },
      members: [{ member: "m1", name: "ann" }, { member: "m2", name: "bob" }],
      seats: [
        { seat: "south", side: 0, occupant: { kind: "person", member: "m1", name: "ann" }, username: "ann", rating: 1012, provisional: true },
        { seat: "north", side: 1, occupant: { kind: "person", member: "m2", name: "bob" }, username: "bob", rating: 1100, provisional: false },
      ],
    },
  }, 0);
  assert.equal(s.ranked, true);
  assert.deepEqual(seatRating(s, "south"), { username: "ann", rating: 1012, provisional: true });
  assert.deepEqual(seatRating(s, "north"), { username: "bob", rating: 1100, provisional: false });
  s = reduce(s, {
    type: "finished", table: T, event: 4,
    ratings: [{ username: "ann", ladder: "singles", before: 1012, after: 1030, provisional: true }, { bad: 1 }],
  }, 1);
  assert.deepEqual(s.ratingChanges, [{ username: "ann", ladder: "singles", before: 1012, after: 1030, provisional: true }]);
  // Another table (a party) is not ranked; leaving forgets it all.
  const party = reduce(s, { type: "table", event: 1, view: { table: "d".repeat(32), kind: "party", stage: "lobby", seats: [] } }, 2);
  assert.equal(party.ranked, false);
  assert.equal(party.ratingChanges, null);
  assert.equal(seatRating(party, "south"), null);
  assert.equal(leaveTable(s).ranked, false);
});
