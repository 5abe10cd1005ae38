// Tests of why an aim cannot be shot (src/crokinole/web/static/lib/input.js aimProblem: the
// game's and the practice room's one check, R3's placement and a power above zero).

import assert from "node:assert/strict";
import test from "node:test";

import { aimProblem } from "../../../src/crokinole/web/static/lib/input.js";

const free = () => null;
const taken = () => "a disc is in the way";

test("a free place with power can be shot", () => {
  assert.equal(aimProblem(free, "south", { position: 0, direction: 0, power: 30 }), null);
});

test("a refused place is said in the player's words, before the power", () => {
  assert.equal(
    aimProblem(taken, "south", { position: 0, direction: 0, power: 0 }),
    "Can't place there: a disc is in the way.",
  );
});

test("no power (under half a percent) cannot be shot", () => {
  assert.equal(
    aimProblem(free, "south", { position: 0, direction: 0, power: 0.4 }),
    "Power is 0%: pull back further or raise the power.",
  );
  assert.equal(aimProblem(free, "south", { position: 0, direction: 0, power: 0.5 }), null);
});

test("the place asked about is the seat's and the aim's", () => {
  const asked = [];
  aimProblem((seat, position) => { asked.push([seat, position]); return null; }, "north", { position: 12.5, power: 40 });
  assert.deepEqual(asked, [["north", 12.5]]);
});
