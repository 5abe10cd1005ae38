// Practice positions in the browser: the links' codes, where a disc may lie, the game snapshot
// board.js draws, and the numbers' words of the practice, drills and review pages.
//
// A position is singles: south shoots; "mine" are south's discs ("s"), "theirs" north's ("n").
// Its code (docs: practice.position_code) is base64url without padding of the compact JSON
// {"v":1,"seat":"south","discs":[["s",x,y],["n",x,y]]}, x and y in inches rounded to 2 places.

/** The tournament board (BOARD.md), as the server's board payload; a server's answer replaces it. */
export const BOARD = {
  surface_radius: 13.0,
  shooting_line_radius: 12.0,
  ten_radius: 8.0,
  fifteen_radius: 4.0,
  hole_radius: 0.6875,
  line_width: 0.0625,
  peg_radius: 0.1875,
  pegs: [22.5, 67.5, 112.5, 157.5, 202.5, 247.5, 292.5, 337.5].map((deg) => {
    const a = (deg * Math.PI) / 180;
    return [4.0 * Math.cos(a), 4.0 * Math.sin(a)];
  }),
  disc_radius: 0.625,
  ditch_width: 2.0,
};

/** Largest |position| in degrees on the line: the disc then touches a quadrant line (R3). */
export function placementLimit(board) {
  const reach = (board.disc_radius + board.line_width / 2) / board.shooting_line_radius;
  return reach >= 1 ? 0 : 45 - (Math.asin(reach) * 180) / Math.PI;
}

/**
 * Discs per side in a practice round (singles, 12 discs each): to shoot, each side has at most
 * 11 on the board (the shooter keeps one in hand; a side with all 12 down has finished).
 */
export const DISCS_PER_SIDE = 12;
export const MOST_ON_BOARD = DISCS_PER_SIDE - 1;
export const MINE = "s";
export const THEIRS = "n";
const OWNER = { s: "south", n: "north" };
const SIDE = { s: 0, n: 1 };

const r2 = (v) => Math.round(v * 100) / 100;

/** The code of a position {seat, discs: [[who, x, y], ...]}. */
export function positionCode(pos) {
  const body = { v: 1, seat: pos.seat || "south", discs: pos.discs.map(([who, x, y]) => [who, r2(x), r2(y)]) };
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** The position of a code; throws an Error in plain words when the code is damaged. */
export function positionFromCode(code) {
  const damaged = new Error("This position link is damaged: it does not hold a board position. Ask for the link again, or set up the discs yourself.");
  if (typeof code !== "string" || !/^[A-Za-z0-9_-]+$/.test(code)) throw damaged;
  let body;
  try {
    const b64 = code.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((code.length + 3) % 4);
    const bin = atob(b64);
    body = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    throw damaged;
  }
  return positionFromJson(body, damaged);
}

/** A position from its JSON form ({seat, discs}); throws `error` (or a plain Error) when it is not one. */
export function positionFromJson(body, error = null) {
  const bad = error || new Error("That is not a board position.");
  if (!body || typeof body !== "object" || !Array.isArray(body.discs)) throw bad;
  if (body.v !== undefined && body.v !== 1) throw bad;
  const discs = [];
  for (const d of body.discs) {
    if (!Array.isArray(d) || d.length !== 3 || !(d[0] in OWNER)) throw bad;
    const x = Number(d[1]);
    const y = Number(d[2]);
    if (!Number.isFinite(x) || !Number.isFinite(y)) throw bad;
    discs.push([d[0], x, y]);
  }
  return { seat: typeof body.seat === "string" ? body.seat : "south", discs };
}

/**
 * The position seen from the shooter's chair: a position where north shoots (a review's
 * position before one of north's shots) turned half a turn, so that the shooter sits south and
 * its discs are "mine". The board is the same after half a turn (its pegs and lines are), and a
 * shot's numbers are the shooter's own, so every shot does the same from either.
 */
export function southView(pos) {
  if ((pos.seat || "south") === "south") return { seat: "south", discs: pos.discs.map((d) => [...d]) };
  return { seat: "south", discs: pos.discs.map(([who, x, y]) => [who === MINE ? THEIRS : MINE, -x + 0, -y + 0]) };
}

/** The JSON the server takes for a position. */
export function positionJson(pos) {
  return { seat: pos.seat || "south", discs: pos.discs.map(([who, x, y]) => [who, r2(x), r2(y)]) };
}

/**
 * Why a disc may not lie at (x, y), in plain words, or null when it may: on the board, fully
 * inside the shooting line (touching it is out, R5), not over the 20 hole (it would drop, R5),
 * overlapping no other disc and no peg. `skip` is the index in `discs` of the disc being moved.
 */
export function spotProblem(board, discs, x, y, skip = -1) {
  if (!Number.isFinite(x) || !Number.isFinite(y)) return "that is not a point on the board";
  const d = Math.hypot(x, y);
  const r = board.disc_radius;
  if (d + r >= board.shooting_line_radius - board.line_width / 2) {
    return "a disc must lie fully inside the shooting line (touching it, a disc is out)";
  }
  if (d < board.hole_radius) return "a disc over the 20 hole drops into it";
  for (const [px, py] of board.pegs) {
    if (Math.hypot(x - px, y - py) < r + board.peg_radius) return "the disc would overlap a peg";
  }
  for (let i = 0; i < discs.length; i += 1) {
    if (i === skip) continue;
    const [, ox, oy] = discs[i];
    if (Math.hypot(x - ox, y - oy) < 2 * r) return "the disc would overlap another disc";
  }
  return null;
}

/** How many discs of `who` the position holds. */
export function countOf(pos, who) {
  return pos.discs.filter((d) => d[0] === who).length;
}

/**
 * The game ids of a position's discs, as the server's practice game numbers them (the ids a
 * shot's trajectory names): the shooter's discs 0, 2, 4, … and the other side's 1, 3, 5, … each
 * in the position's order; the shot disc takes the next even id.
 */
export function discIds(pos) {
  const shooter = pos.seat === "north" ? THEIRS : MINE;
  const seen = { s: 0, n: 0 };
  return pos.discs.map(([who]) => {
    const k = seen[who];
    seen[who] += 1;
    return 2 * k + (who === shooter ? 0 : 1);
  });
}

/** The game snapshot board.js and anim.js draw for a position (disc ids as discIds). */
export function snapshotOf(pos, board = BOARD, names = { south: "You", north: "Them" }) {
  const ids = discIds(pos);
  return {
    board,
    phase: "playing",
    placement_limit: placementLimit(board),
    current_seat: "south",
    sides: [
      { side: 0, seats: ["south"], colour: "light", mark: "circle" },
      { side: 1, seats: ["north"], colour: "dark", mark: "triangle" },
    ],
    seats: [
      { seat: "south", side: 0, name: names.south },
      { seat: "north", side: 1, name: names.north },
    ],
    discs: pos.discs.map(([who, x, y], i) => ({ id: ids[i], owner: OWNER[who], side: SIDE[who], x, y })),
  };
}

/** A position from a snapshot's discs (south's are mine). */
export function positionOfDiscs(discs, seat = "south") {
  return { seat, discs: discs.map((d) => [d.owner === "south" ? MINE : THEIRS, d.x, d.y]) };
}

/** "+3.5" / "−2.0" / "0.0": a signed number with a real minus sign. */
export function signed(v, digits = 1) {
  const n = Number(v);
  if (!Number.isFinite(n)) return "–";
  const t = Math.abs(n).toFixed(digits);
  if (Number(t) === 0) return (0).toFixed(digits);
  return n > 0 ? `+${t}` : `−${t}`;
}

/** 0.643 -> "64%". */
export function percent(v, digits = 0) {
  const n = Number(v);
  return Number.isFinite(n) ? `${(n * 100).toFixed(digits)}%` : "–";
}

/** A shot's numbers in words: "position 3.5°, direction −1.2°, power 38%". */
export function shotWords(shot) {
  if (!shot) return "";
  return `position ${Number(shot.position).toFixed(1)}°, direction ${Number(shot.direction).toFixed(1)}°, power ${Number(shot.power).toFixed(1)}%`;
}
