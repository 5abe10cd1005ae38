// Tests of how a foul reads to each viewer (src/crokinole/web/static/lib/words.js foulTone;
// issue 22, point 5: the opponent's fouls in a neutral tone, yours in red). Run by `node --test`.

import assert from "node:assert/strict";
import test from "node:test";

import { foulTone } from "../../../src/crokinole/web/static/lib/words.js";

const foul = (seat) => ({ seat, report: { valid: false, foul: "no_contact", discs: [] } });
const valid = (seat) => ({ seat, report: { valid: true, discs: [] } });

test("your own foul is yours, another seat's is theirs", () => {
  assert.equal(foulTone(foul("south"), ["south"]), "mine");
  assert.equal(foulTone(foul("north"), ["south"]), "theirs");
});

test("on one device every seat the device plays is its own", () => {
  assert.equal(foulTone(foul("north"), ["south", "north"]), "mine");
});

test("a spectator sees every foul in the plain tone", () => {
  assert.equal(foulTone(foul("south"), []), "theirs");
  assert.equal(foulTone(foul("south"), undefined), "theirs");
});

test("a valid shot, or no shot, has no foul tone", () => {
  assert.equal(foulTone(valid("south"), ["south"]), null);
  assert.equal(foulTone({ seat: "south" }, ["south"]), null);
  assert.equal(foulTone(null, ["south"]), null);
});
