// Tests of the shot's feedback (issue 22, point 5), the pure parts: which events of a shot make
// which sound (views/anim.js shotCues), which drops pop a "+20" and where on the page it goes
// (views/pop.js), the limit on contacts close together and the length of every sound
// (lib/sound.js), and the winner's mark of the result (views/dialogs.js). The trajectories and
// reports are written from docs/protocol.md ("Shot report", "trajectory").

import assert from "node:assert/strict";
import test from "node:test";

import { shotCues, twentyDrops } from "../../../src/crokinole/web/static/views/anim.js";
import { BoardView } from "../../../src/crokinole/web/static/views/board.js";
import { celebrates, gameBody, gameHero, heroSides } from "../../../src/crokinole/web/static/views/dialogs.js";
import { popPlace } from "../../../src/crokinole/web/static/views/pop.js";
import { CONTACTS, CUES, CueLimiter, VOLUME, cueLength } from "../../../src/crokinole/web/static/lib/sound.js";

// A shot: the shot disc (id 8) touches disc 3, which touches a peg and falls in the ditch;
// the shot disc drops into the 20 hole.
const TRAJ = {
  deceleration: 46.3, duration: 1.4,
  discs: [
    { id: 3, owner: "north", segments: [[0.3, 0, 4, 0, 20]], leaves: { t: 0.9, how: "ditch" } },
    { id: 8, owner: "south", segments: [[0, 0, -12, 0, 40], [0.3, 0, 3.9, 0, 5]], leaves: { t: 1.2, how: "hole" } },
  ],
  sounds: [[0.3, "disc"], [0.55, "peg"], [1.2, "hole"]],
};

function report(shotResult) {
  const d = (id, owner, shot, result) => ({
    id, owner, side: owner === "south" ? 0 : 1, shot, from_zone: null, result,
    zone: result === "hole" ? 20 : null, reason: result === "ditch" ? (shot ? "foul" : "off_board") : null,
    cancelled_twenty: shot && result === "ditch",
  });
  return { seat: "south", valid: shotResult === "hole", foul: shotResult === "hole" ? null : "no_contact", unplayed: false,
    discs: [d(8, "south", true, shotResult), d(3, "north", false, "ditch")], hit: [3] };
}

test("a shot's sounds: a click per contact, a thud into the ditch, the 20's sound as the disc drops", () => {
  assert.deepEqual(shotCues(TRAJ, report("hole")), [[0.3, "disc"], [0.55, "peg"], [0.9, "ditch"], [1.2, "twenty"]]);
  // Without a report (practice, the replay), a drop into the hole is a 20.
  assert.deepEqual(shotCues(TRAJ).map((c) => c[1]), ["disc", "peg", "ditch", "twenty"]);
});

test("a drop that a foul cancels falls into the hole without the 20's sound, and pops nothing", () => {
  const cancelled = report("ditch");
  assert.deepEqual(shotCues(TRAJ, cancelled).map((c) => c[1]), ["disc", "peg", "ditch", "hole"]);
  assert.deepEqual(twentyDrops(TRAJ, cancelled), []);
});

test("each 20 of a shot pops once, when its disc drops, in the order they drop", () => {
  assert.deepEqual(twentyDrops(TRAJ, report("hole")), [{ t: 1.2, id: 8, owner: "south" }]);
  const two = {
    ...TRAJ,
    discs: [
      { id: 5, owner: "south", segments: [[0.2, 0, 2, 0, 3]], leaves: { t: 0.7, how: "hole" } },
      { id: 8, owner: "south", segments: [[0, 0, -12, 0, 40]], leaves: { t: 0.4, how: "hole" } },
    ],
  };
  assert.deepEqual(twentyDrops(two).map((d) => [d.id, d.t]), [[8, 0.4], [5, 0.7]]);
  // A shot with no drop (or a timeout's empty trajectory) pops nothing.
  assert.deepEqual(twentyDrops({ discs: [], sounds: [] }), []);
});

function contactsIn(allowed, from, to) {
  return allowed.filter((c) => CONTACTS.has(c.kind) && c.t >= from && c.t < to).length;
}

test("many contacts close together do not stack: at most 3 in any 300 ms, none 60 ms after another", () => {
  const limiter = new CueLimiter();
  const allowed = [];
  // A break shot: a contact every 10 ms for a second, discs and pegs mixed.
  for (let t = 0; t < 1000; t += 10) {
    const kind = t % 20 ? "peg" : "disc";
    if (limiter.allow(kind, t)) allowed.push({ kind, t });
  }
  assert.ok(allowed.length >= 4, "some contacts still sound");
  for (let from = 0; from < 1000; from += 10) assert.ok(contactsIn(allowed, from, from + 300) <= 3, `from ${from} ms`);
  for (let i = 1; i < allowed.length; i += 1) assert.ok(allowed[i].t - allowed[i - 1].t >= 60);
  // Five discs touching in the same instant: one click.
  const same = new CueLimiter();
  assert.equal([0, 0, 0, 0, 0].filter((t) => same.allow("disc", t)).length, 1);
});

test("contacts spread out all sound, and a 20 or a thud in the middle of clicks is never dropped", () => {
  const limiter = new CueLimiter();
  assert.equal([0, 400, 800, 1200].filter((t) => limiter.allow("disc", t)).length, 4);
  const busy = new CueLimiter();
  for (let t = 0; t < 100; t += 5) busy.allow("disc", t);
  assert.equal(busy.allow("twenty", 100), true);
  assert.equal(busy.allow("ditch", 101), true);
  // Two discs into the ditch at the same moment: one thud, not a doubled one.
  assert.equal(busy.allow("ditch", 102), false);
});

test("every sound is short (under 200 ms) and soft", () => {
  for (const kind of ["disc", "peg", "ditch", "hole", "twenty", "shoot"]) {
    assert.ok(CUES[kind], kind);
    assert.ok(cueLength(kind) > 0 && cueLength(kind) < 0.2, `${kind}: ${cueLength(kind)} s`);
    const loudest = Math.max(...CUES[kind].map((l) => l.gain)) * VOLUME;
    assert.ok(loudest <= 0.3, `${kind} peaks at ${loudest}`);
  }
  assert.equal(cueLength("nothing"), 0);
});

const BOARD = {
  surface_radius: 13, shooting_line_radius: 12, ten_radius: 8, fifteen_radius: 4, hole_radius: 0.6875,
  line_width: 0.0625, peg_radius: 0.1875, pegs: [], disc_radius: 0.625, ditch_width: 2,
};

function boardView(size, bottom) {
  const v = new BoardView({ getContext: () => ({}) });
  v.setBoard(BOARD);
  v.cssSize = size;
  v.setBottom(bottom);
  return v;
}

test("the +20 pops at the hole: the centre of the board's canvas on the page, whichever seat is at the bottom", () => {
  for (const bottom of ["south", "east", "north", "west"]) {
    const v = boardView(400, bottom);
    // A 400 px canvas 10 px from the left, 50 px from the top, the page scrolled 100 px down.
    const p = popPlace(v, { left: 10, top: 50 }, { x: 0, y: 100 });
    assert.deepEqual([p.x, p.y], [210, 350], bottom);
  }
  // A second 20 of the same shot stands above the first, not on top of it.
  const v = boardView(400, "south");
  const first = popPlace(v, { left: 0, top: 0 });
  const second = popPlace(v, { left: 0, top: 0 }, { x: 0, y: 0 }, 1);
  assert.equal(second.x, first.x);
  assert.ok(second.y <= first.y - first.size, [first, second]);
});

test("the +20 is drawn larger on a larger board, and readable on a small one", () => {
  const small = popPlace(boardView(300, "south"), { left: 0, top: 0 }).size;
  const large = popPlace(boardView(800, "south"), { left: 0, top: 0 }).size;
  assert.ok(small >= 20 && large > small, [small, large]);
});

function ended(outcome, scores = [4, 2]) {
  return {
    table: "d".repeat(32), kind: "solo", stage: "finished", settings: { hints: false }, hintsUsed: {},
    you: { member: "m1", seats: ["south"], spectator: false, host: true },
    game: {
      rules: { layout: "singles", discs_per_side: 8, scoring: "four_rounds", rounds: 4 },
      phase: "game_over",
      seats: [
        { seat: "south", side: 0, name: "Ann", cpu: null, in_hand: 0 },
        { seat: "north", side: 1, name: "CPU Easy", cpu: "easy", in_hand: 0 },
      ],
      sides: [{ side: 0, score: scores[0], colour: "light", mark: "circle" }, { side: 1, score: scores[1], colour: "dark", mark: "triangle" }],
      discs: [], history: [], outcome,
    },
  };
}

test("the result shows the winner's disc large; a draw shows both; a game with no result, none", () => {
  assert.deepEqual(heroSides(ended({ winner: 1, drawn: [] }).game), [1]);
  const won = gameHero(ended({ winner: 1, drawn: [] }));
  assert.equal((won.match(/<svg/g) || []).length, 1);
  assert.match(won, /data-side="1"/);
  assert.match(won, /width="88"/); // large: the final score's marks are 16 px
  const drawn = gameHero(ended({ winner: null, drawn: [0, 1] }, [3, 3]));
  assert.equal((drawn.match(/<svg/g) || []).length, 2);
  assert.equal(gameHero(ended(null)), "");
});

test("the final score puts the winner's number first in colour, with every name and score", () => {
  const body = gameBody(ended({ winner: 0, drawn: [] }), (x) => x);
  const line = /<p class="result-line final-score">(.*?)<\/p>/s.exec(body)[1];
  assert.match(line, /<span class="side-score top">.*Ann <b>4<\/b><\/span>/s);
  assert.match(line, /<span class="side-score">.*CPU Easy <b>2<\/b><\/span>/s);
});

test("the result celebrates your win, and on one device any person's, never the CPU's or a spectator's", () => {
  assert.equal(celebrates(ended({ winner: 0, drawn: [] })), true);
  assert.equal(celebrates(ended({ winner: 1, drawn: [] })), false);
  assert.equal(celebrates(ended({ winner: null, drawn: [0, 1] })), false);
  assert.equal(celebrates(ended(null)), false);
  const watching = { ...ended({ winner: 0, drawn: [] }), you: { member: "m9", seats: [], spectator: true, host: false } };
  assert.equal(celebrates(watching), false);
  // Two people on one device: whoever wins is at this screen.
  const both = (winner) => {
    const s = ended({ winner, drawn: [] });
    return { ...s, you: { ...s.you, seats: ["south", "north"] }, game: { ...s.game, seats: s.game.seats.map((x) => ({ ...x, cpu: null })) } };
  };
  assert.equal(celebrates(both(1)), true);
  assert.equal(celebrates(both(0)), true);
});
