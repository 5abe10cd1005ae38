// Tests of where the board draws the discs in the ditch (src/crokinole/web/static/views/board.js
// ditchSpots; issue 22): the board's figures are BOARD.md's (the playing surface 13 in., the
// ditch 2 in. wide, discs 1.25 in. across), written here, not read from the code.

import assert from "node:assert/strict";
import test from "node:test";

import { ditchSpots } from "../../../src/crokinole/web/static/views/board.js";

const BOARD = { surface_radius: 13.0, ditch_width: 2.0, disc_radius: 0.625 };
const SEAT_ANGLE = { south: 270, west: 180, north: 90, east: 0 };

function angleOf(p) {
  return ((Math.atan2(p.y, p.x) * 180) / Math.PI + 360) % 360;
}

test("each disc in the ditch is drawn once, whole, in the gutter ring", () => {
  const sides = [{ side: 0, seats: ["south"], count: 8 }, { side: 1, seats: ["north"], count: 3 }];
  const spots = ditchSpots(BOARD, sides);
  assert.equal(spots.filter((p) => p.side === 0).length, 8);
  assert.equal(spots.filter((p) => p.side === 1).length, 3);
  for (const p of spots) {
    const r = Math.hypot(p.x, p.y);
    assert.ok(r - BOARD.disc_radius >= BOARD.surface_radius - 1e-9, `${r}: over the playing surface`);
    assert.ok(r + BOARD.disc_radius <= BOARD.surface_radius + BOARD.ditch_width + 1e-9, `${r}: past the ditch`);
  }
});

test("no two discs in the ditch are drawn over each other, even a full doubles round", () => {
  const sides = [
    { side: 0, seats: ["south", "north"], count: 12 },
    { side: 1, seats: ["west", "east"], count: 12 },
  ];
  const spots = ditchSpots(BOARD, sides);
  assert.equal(spots.length, 24);
  for (let i = 0; i < spots.length; i += 1) {
    for (let j = i + 1; j < spots.length; j += 1) {
      const d = Math.hypot(spots[i].x - spots[j].x, spots[i].y - spots[j].y);
      assert.ok(d >= 2 * BOARD.disc_radius, `${i} and ${j} overlap (${d})`);
    }
  }
});

test("a side's discs lie in front of its own seats, shared between them", () => {
  const sides = [{ side: 0, seats: ["south", "north"], count: 4 }, { side: 1, seats: ["east"], count: 2 }];
  const spots = ditchSpots(BOARD, sides);
  const nearest = (p) => Object.entries(SEAT_ANGLE).reduce((best, [seat, a]) => {
    const off = Math.abs(((angleOf(p) - a + 540) % 360) - 180);
    return off < best.off ? { seat, off } : best;
  }, { seat: null, off: 360 });
  const mine = spots.filter((p) => p.side === 0).map((p) => nearest(p).seat);
  assert.deepEqual(mine.sort(), ["north", "north", "south", "south"]);
  for (const p of spots.filter((q) => q.side === 1)) {
    assert.equal(nearest(p).seat, "east");
    assert.ok(nearest(p).off < 45, "within the seat's quarter");
  }
});
