// Tests of the review's and the replay's plain words (src/crokinole/web/static/lib/words.js;
// issue 22, point 6): one name per player, each costly shot in a sentence a player understands.
// The expected sentences are written from what a player would say about the shot, not copied
// from the code's output. Run by `node --test tests/web/js/`.

import assert from "node:assert/strict";
import test from "node:test";

import {
  bestWords, costliest, costliestTitle, costSentence, effectWords, gainWords, gradeWords,
  namesViewer, playerName, powerFeel, seatTitle, shotStyle,
} from "../../../src/crokinole/web/static/lib/words.js";

const MISS = { lands: 0, foul: null, hit: false, taken: [], lost: [] };
const TAKE_15 = { lands: 10, foul: null, hit: true, taken: [15], lost: [] };

function shot(over = {}) {
  return {
    index: 8, round: 2, turn: 5, seat: "south",
    shot: { position: 0, direction: 0, power: 30 },
    best: { shot: { position: 0, direction: -2.2, power: 55 } },
    loss_margin: 1.83, loss_win: 0.12, grade: "mistake",
    played_effect: MISS, best_effect: TAKE_15,
    ...over,
  };
}

test("a player is called by the name they chose, else by their seat", () => {
  const names = { south: "Ann", north: "CPU Easy", east: "", west: "You" };
  assert.equal(playerName(names, "south"), "Ann");
  assert.equal(playerName(names, "north"), "CPU Easy");
  // No name given, or the browser's "You" (a pronoun, not a name): the seat, as the server says.
  assert.equal(playerName(names, "east"), "East");
  assert.equal(playerName(names, "west"), "West");
  assert.equal(playerName({}, "north"), "North");
  assert.equal(playerName(null, "south"), "South");
  assert.equal(seatTitle("west"), "West");
});

test("the person reading is 'you' only when they held one seat", () => {
  const names = { south: "Ann", north: "Bob" };
  assert.deepEqual(namesViewer(names, ["south"]).you, ["south"]);
  // One device for both players (hot seat): everyone is named.
  assert.deepEqual(namesViewer(names, ["south", "north"]).you, []);
  assert.deepEqual(namesViewer(names).you, []);
});

test("a shot's strength and aim in a few words", () => {
  assert.equal(powerFeel(28), "soft");
  assert.equal(powerFeel(50), "firm");
  assert.equal(powerFeel(90), "hard");
  assert.equal(shotStyle({ position: 0, direction: 0.2, power: 29 }), "a soft straight shot");
  assert.equal(shotStyle({ position: 0, direction: -3.4, power: 80 }), "a hard shot aimed 3° left");
  assert.equal(shotStyle({ position: 20, direction: 2, power: 45 }), "a firm shot placed 20° right, aimed 2° right");
  assert.equal(shotStyle({ position: -12, direction: 0, power: 26 }), "a soft straight shot placed 12° left");
});

test("what a shot did, as the end of the sentence", () => {
  assert.equal(effectWords(MISS), "that missed and went into the ditch");
  assert.equal(effectWords({ ...MISS, lands: 20 }), "that dropped into the 20");
  assert.equal(effectWords({ ...MISS, lands: 15 }), "that stopped in the 15");
  assert.equal(effectWords({ ...MISS, lands: 5, hit: true }), "that hit their disc and stopped in the 5");
  assert.equal(effectWords(TAKE_15), "that took out their 15 and stayed in the 10");
  assert.equal(effectWords({ ...TAKE_15, taken: [15, 15], lands: 0 }), "that took out both their 15s and went into the ditch");
  assert.equal(
    effectWords({ ...TAKE_15, taken: [15, 10], lost: [5] }, { theirs: "your", own: "their own" }),
    "that took out your 15 and 10 and stayed in the 10, but knocked out their own 5",
  );
  assert.equal(effectWords({ ...MISS, foul: "no_contact" }), "that touched no opposing disc (a foul)");
  assert.equal(effectWords({ ...MISS, foul: "not_in_fifteen" }), "that left no disc in the 15 on an open board (a foul)");
});

test("what the best shot does, as a thing", () => {
  assert.equal(bestWords(TAKE_15), "a takeout of their 15");
  assert.equal(bestWords({ ...MISS, lands: 20 }), "a 20");
  assert.equal(bestWords({ ...MISS, lands: 15 }), "a shot to the 15");
  assert.equal(bestWords({ ...TAKE_15, lands: 20 }, { theirs: "your" }), "a takeout of your 15 that drops into the 20");
  assert.equal(bestWords(null), "another shot");
});

test("what the best would have gained", () => {
  assert.equal(gainWords(1.83, 0.12), "about 1.8 points more and 12% more chance to win the round");
  assert.equal(gainWords(1.0, 0.004), "about 1.0 point more");
  assert.equal(gainWords(23.4, 0.52), "about 23 points more and 52% more chance to win the round");
  // The best gives up points for a safer round.
  assert.equal(gainWords(-2.04, 0.3), "30% more chance to win the round, for about 2.0 points less");
  assert.equal(gainWords(0, 0), "about as much");
});

test("a costly shot of yours in one sentence", () => {
  const v = namesViewer({ south: "South", north: "CPU Easy" }, ["south"]);
  assert.equal(
    costSentence(shot(), v),
    "Round 2, shot 5: you played a soft straight shot that missed and went into the ditch; "
      + "the best was a takeout of their 15 (a firm shot aimed 2° left), "
      + "about 1.8 points more and 12% more chance to win the round.",
  );
});

test("the opponent's costly shot names them, and your discs are yours", () => {
  const v = namesViewer({ south: "Ann", north: "CPU Easy" }, ["south"]);
  const cpu = shot({
    seat: "north", round: 1, turn: 4,
    shot: { position: 0, direction: 1, power: 28 },
    played_effect: { ...MISS, lands: 5 },
    best_effect: { ...TAKE_15, lands: 0 },
    best: { shot: { position: 0, direction: 0, power: 90 } },
    loss_margin: 4.2, loss_win: 0.25,
  });
  assert.equal(
    costSentence(cpu, v),
    "Round 1, shot 4: CPU Easy played a soft shot aimed 1° right that stopped in the 5; "
      + "the best was a takeout of your 15 (a hard straight shot), "
      + "about 4.2 points more and 25% more chance to win the round.",
  );
  // Read by someone who did not play: everyone is named, the discs are "the opposing" ones.
  const anyone = namesViewer({ south: "Ann", north: "Bob" });
  assert.match(costSentence(shot(), anyone), /^Round 2, shot 5: Ann played .* the best was a takeout of the opposing 15 /);
});

test("in doubles a partner's takeout is of the opponents' discs, not of yours", () => {
  const v = namesViewer({ south: "Ann", west: "Bob", north: "Cy", east: "Di" }, ["south"]);
  const side = (seat) => ({ south: 0, north: 0, west: 1, east: 1 })[seat];
  const played = { ...TAKE_15 };
  assert.match(costSentence(shot({ seat: "north", played_effect: played }), v, side), /^Round 2, shot 5: Cy played .* took out their 15 /);
  assert.match(costSentence(shot({ seat: "west", played_effect: played }), v, side), /^Round 2, shot 5: Bob played .* took out your 15 /);
});

test("the costliest shots: a seat's own, the most round-win chance lost first, at most three", () => {
  const shots = [
    shot({ index: 0, seat: "south", loss_win: 0.02, loss_margin: 0.1 }),
    shot({ index: 1, seat: "north", loss_win: 0.5, loss_margin: 9 }),
    shot({ index: 2, seat: "south", loss_win: 0.3, loss_margin: 2 }),
    shot({ index: 4, seat: "south", loss_win: 0.0, loss_margin: 0.0 }), // as good as the best
    shot({ index: 6, seat: "south", loss_win: 0.0, loss_margin: 3 }), // points, not the round
    shot({ index: 8, seat: "south", loss_win: 0.3, loss_margin: 1 }),
  ];
  assert.deepEqual(costliest(shots, "south").map((s) => s.index), [2, 8, 0]);
  assert.deepEqual(costliest(shots, "south", 5).map((s) => s.index), [2, 8, 0, 6]);
  assert.deepEqual(costliest(shots, "north").map((s) => s.index), [1]);
  assert.deepEqual(costliest(shots, "east"), []);
});

test("the titles and the grade counts read as a player says them", () => {
  const v = namesViewer({ south: "Ann", north: "CPU Easy" }, ["south"]);
  assert.equal(costliestTitle(v, "south", 3), "Your three costliest shots");
  assert.equal(costliestTitle(v, "south", 1), "Your costliest shot");
  assert.equal(costliestTitle(v, "north", 2), "CPU Easy's two costliest shots");
  assert.equal(costliestTitle(namesViewer({ south: "Ann", north: "Charles" }), "north", 3), "Charles' three costliest shots");
  // One name per person: a username written in small letters stays so in the heading too.
  assert.equal(costliestTitle(namesViewer({ south: "ann", north: "bob" }), "south", 3), "ann's three costliest shots");
  assert.equal(gradeWords({ good: 5, inaccuracy: 2, mistake: 1, blunder: 0 }, 8), "8 shots: 5 good, 2 inaccuracies and 1 mistake.");
  assert.equal(gradeWords({ good: 8, inaccuracy: 0, mistake: 0, blunder: 0 }, 8), "8 shots: 8 good.");
  assert.equal(gradeWords({ good: 0, blunder: 1 }, 1), "1 shot: 1 blunder.");
});
