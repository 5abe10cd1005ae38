// Canvas drawing of the board (BOARD.md), discs, the disc to place and the aim arrow; on
// request, the Expert's hint lines and an aim heat map (issue 13: drawing only, the server
// works them out). `view.overlay` says what the last frame drew of those, for tests.

import { SEAT_ANGLE, aimVector, placement, zoneOf } from "../lib/geometry.js";

const TAU = Math.PI * 2;
const BOTTOM_ANGLE = { south: 270, west: 180, north: 90, east: 0 };

// Disc colours. Every disc's outer ring (`edge`, at least EDGE_MIN_PX wide) has at least 3:1
// contrast with every colour of the maple surface (WCAG non-text contrast): a light disc cannot
// have that contrast in its body on light wood, so its ring carries it. The mark has 3:1 with
// the body. tests/web/test_browser.py computes these ratios from the values exported here.
export const SIDE_STYLE = {
  light: { fill: "#f4ecdc", edge: "#5a4630", mark: "#4a3b28" },
  dark: { fill: "#272420", edge: "#050505", mark: "#efe6d2" },
  red: { fill: "#9e2a20", edge: "#4a0f0a", mark: "#fbe9e5" },
  blue: { fill: "#245a9a", edge: "#0c1d33", mark: "#eef4fb" },
};
export const EDGE_MIN_PX = 2;
/** The maple surface: gradient stops, and the zone tints laid over them ([r, g, b, alpha]). */
export const MAPLE = ["#f3dcae", "#dcb47a"];
export const ZONE_TINTS = [[120, 70, 20, 0.06], [255, 240, 200, 0.25]];
/** The seeds' colour schemes (Settings), side 0 first; "classic" is what the server sends. */
export const SCHEMES = {
  classic: null,
  dot: [{ colour: "light", mark: "dot" }, { colour: "dark", mark: "none" }],
  blue_red: [{ colour: "blue", mark: "circle" }, { colour: "red", mark: "triangle" }],
};
const FALLBACK_MARKS = ["circle", "triangle", "square"];
const FALLBACK_COLOURS = ["light", "dark", "red", "blue"];
let scheme = null;

/** Choose a colour scheme of SCHEMES by name (unknown names fall back to the server's). */
export function setScheme(name) {
  scheme = SCHEMES[name] || null;
}

/** Colour and mark of a side (colour AND mark, never colour alone, R1). */
export function sideLook(game, side) {
  const s = game && game.sides && game.sides[side];
  const chosen = scheme && scheme[side];
  const colour = (chosen && chosen.colour) || (s && s.colour) || FALLBACK_COLOURS[side % FALLBACK_COLOURS.length];
  const mark = (chosen && chosen.mark) || (s && s.mark) || FALLBACK_MARKS[side % FALLBACK_MARKS.length];
  return { colour, mark, style: SIDE_STYLE[colour] || SIDE_STYLE.red };
}

/** A small inline SVG of a side's disc, for the scoreboard and dialogs. */
export function markSvg(game, side, size = 18) {
  const { mark, style } = sideLook(game, side);
  let inner = "";
  if (mark === "circle") inner = `<circle r="4" fill="none" stroke="${style.mark}" stroke-width="1.8"/>`;
  else if (mark === "triangle") inner = `<path d="M0 -4.8 L4.3 2.6 L-4.3 2.6 Z" fill="${style.mark}"/>`;
  else if (mark === "diamond") inner = `<path d="M0 -4.6 L4.6 0 L0 4.6 L-4.6 0 Z" fill="${style.mark}"/>`;
  else if (mark === "dot") inner = `<circle r="2.4" fill="${style.mark}"/>`;
  else if (mark === "none") inner = "";
  else inner = `<rect x="-3.4" y="-3.4" width="6.8" height="6.8" fill="${style.mark}"/>`;
  return `<svg class="mark" aria-hidden="true" width="${size}" height="${size}" viewBox="-10 -10 20 20"><circle r="8.8" fill="${style.fill}" stroke="${style.edge}" stroke-width="2"/>${inner}</svg>`;
}

/** Degrees from a seat's centreline to its first disc in the ditch, and between two discs there. */
const DITCH_FIRST = 12;
const DITCH_GAP = 0.12; // inches between two discs side by side in the ditch

/**
 * Where the discs in the ditch are drawn: in the gutter ring outside the playing surface (BOARD.md:
 * 2 inches wide), in front of their side's seats, in a row from a little to the seat's right
 * (counter-clockwise on the board), shared out between a side's seats in turn. The protocol
 * counts them (`sides[].ditch`), it does not place them. `sides`: [{side, seats, count}].
 * Returns [{x, y, side}] in inches.
 */
export function ditchSpots(board, sides) {
  const r = board.surface_radius + board.ditch_width / 2;
  const step = (((2 * board.disc_radius + DITCH_GAP) / r) * 180) / Math.PI;
  const out = [];
  for (const { side, seats, count } of sides) {
    const chairs = seats && seats.length ? seats : ["south"];
    for (let k = 0; k < (count || 0); k += 1) {
      const seat = chairs[k % chairs.length];
      const a = (((SEAT_ANGLE[seat] ?? 270) + DITCH_FIRST + step * Math.floor(k / chairs.length)) * Math.PI) / 180;
      out.push({ x: r * Math.cos(a), y: r * Math.sin(a), side });
    }
  }
  return out;
}

/** The hint lines' colours, rank 1 first: told apart by their numbers too, never colour alone. */
export const HINT_COLOURS = ["#c2185b", "#1565c0", "#e65100"];

// Heat-map colour scales ([t, r, g, b] stops, t in 0..1): a diverging one for expected points
// (red below 0, white at 0, green above) and a sequential one (viridis) for chances.
const DIVERGING = [[0, 178, 24, 43], [0.25, 239, 138, 98], [0.5, 247, 247, 247], [0.75, 103, 189, 112], [1, 27, 120, 55]];
// One sign only: yellow to blue (all above 0) or dark red to yellow (all below), so that the
// cells of such a map still stand apart.
const AHEAD = [[0, 255, 255, 204], [0.25, 161, 218, 180], [0.5, 65, 182, 196], [0.75, 34, 94, 168], [1, 12, 44, 132]];
const BEHIND = [[0, 128, 0, 38], [0.25, 227, 26, 28], [0.5, 253, 141, 60], [0.75, 254, 217, 118], [1, 255, 255, 204]];
const SEQUENTIAL = [[0, 68, 1, 84], [0.25, 59, 82, 139], [0.5, 33, 145, 140], [0.75, 94, 201, 98], [1, 253, 231, 37]];
/** How opaque the fan of cells is over the board (the discs under it stay visible). */
export const HEAT_ALPHA = 0.62;

function ramp(stops, t) {
  const x = Math.min(1, Math.max(0, Number.isFinite(t) ? t : 0));
  for (let i = 1; i < stops.length; i += 1) {
    const [t1, ...c1] = stops[i];
    if (x <= t1) {
      const [t0, ...c0] = stops[i - 1];
      const f = (x - t0) / (t1 - t0 || 1);
      return c0.map((v, k) => Math.round(v + (c1[k] - v) * f));
    }
  }
  return stops[stops.length - 1].slice(1);
}

/**
 * The colour scale of a heat map (HeatMap.to_dict of docs/protocol.md): {min, max, diverging,
 * colour(v) -> [r, g, b], ticks: [value, value, value]}. Expected points run from the map's
 * lowest to its highest value, red below 0 and green above with white at 0 (an even round);
 * a map all above 0 runs yellow to blue (all below: dark red to yellow), so its best cells
 * still stand out.
 * Chances run 0 to 1.
 */
export function heatScale(map) {
  if (map.metric !== "points") {
    return { min: 0, max: 1, diverging: false, colour: (v) => ramp(SEQUENTIAL, v), ticks: [0, 0.5, 1] };
  }
  let lo = Infinity;
  let hi = -Infinity;
  for (const row of map.values || []) {
    for (const v of row) {
      if (!Number.isFinite(v)) continue;
      lo = Math.min(lo, v);
      hi = Math.max(hi, v);
    }
  }
  if (!Number.isFinite(lo)) [lo, hi] = [-1, 1];
  if (hi - lo < 1e-9) [lo, hi] = [lo - 1, hi + 1];
  if (lo < 0 && hi > 0) {
    const colour = (v) => ramp(DIVERGING, v < 0 ? 0.5 * (1 - v / lo) : 0.5 + (0.5 * v) / hi);
    return { min: lo, max: hi, diverging: true, colour, ticks: [lo, 0, hi] };
  }
  const stops = lo >= 0 ? AHEAD : BEHIND;
  const colour = (v) => ramp(stops, (v - lo) / (hi - lo));
  return { min: lo, max: hi, diverging: false, colour, ticks: [lo, (lo + hi) / 2, hi] };
}

/** Edges between consecutive values (their midpoints), the outer ones half a step beyond. */
function edges(values) {
  const n = values.length;
  if (n === 1) return [values[0] - 0.5, values[0] + 0.5];
  const out = [values[0] - (values[1] - values[0]) / 2];
  for (let i = 1; i < n; i += 1) out.push((values[i - 1] + values[i]) / 2);
  out.push(values[n - 1] + (values[n - 1] - values[n - 2]) / 2);
  return out;
}

/**
 * The fan of a heat map on the board: the cell of direction d and power p lies at
 * travel[p] inches from the placement along the aim line d. Returns {origin, rays: [{ux, uy}]
 * (W+1 edges between directions), reach: [inches] (H+1 edges between powers), values, key}.
 */
export function heatFan(board, seat, map) {
  const origin = placement(board, seat, map.position);
  const rays = edges(map.directions).map((d) => aimVector(board, seat, map.position, d));
  const reach = edges(map.travel).map((t) => Math.max(0, t));
  const key = JSON.stringify([seat, map.position, map.metric, map.accuracy, map.directions.length, map.powers.length, map.values[0], map.values[map.values.length - 1]]);
  return { origin, rays, reach, values: map.values, scale: heatScale(map), key };
}

/** The point a share `f` (0..1) of the way along a path of screen points, by length. */
function along(path, f) {
  const legs = path.slice(1).map((p, i) => Math.hypot(p[0] - path[i][0], p[1] - path[i][1]));
  let left = f * legs.reduce((a, v) => a + v, 0);
  for (let i = 0; i < legs.length; i += 1) {
    if (left <= legs[i] || i === legs.length - 1) {
      const t = legs[i] ? Math.min(1, left / legs[i]) : 0;
      return [path[i][0] + (path[i + 1][0] - path[i][0]) * t, path[i][1] + (path[i + 1][1] - path[i][1]) * t];
    }
    left -= legs[i];
  }
  return path[0];
}

export class BoardView {
  constructor(canvas) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d");
    this.board = null;
    this.cssSize = 0;
    this.dpr = 1;
    this.rotation = 0; // degrees the board is turned counter-clockwise on screen
    this.cache = null;
    this.cacheKey = "";
    this.heatCache = null;
    this.heatCacheKey = "";
    /** What the last frame drew over the board: {hints: [...], heat: {...} | null, ditch: [{side, at}]} (tests read it). */
    this.overlay = { hints: [], heat: null, ditch: [] };
  }

  /** Set the square CSS size in pixels; the backing store follows devicePixelRatio. */
  resize(cssSize) {
    const dpr = Math.max(1, Math.min(window.devicePixelRatio || 1, 4));
    const size = Math.max(120, Math.floor(cssSize));
    if (size === this.cssSize && dpr === this.dpr) return false;
    this.cssSize = size;
    this.dpr = dpr;
    this.canvas.style.width = `${size}px`;
    this.canvas.style.height = `${size}px`;
    this.canvas.width = Math.round(size * dpr);
    this.canvas.height = Math.round(size * dpr);
    this.cache = null;
    return true;
  }

  setBoard(board) {
    if (!board) return;
    const key = JSON.stringify(board);
    if (key !== this.boardKey) {
      this.board = board;
      this.boardKey = key;
      this.cache = null;
    }
  }

  /** Drop the cached board drawing (colours changed). */
  invalidate() {
    this.cache = null;
  }

  /** Turn the board so that `seat` is at the bottom of the screen (south when none). */
  setBottom(seat) {
    const rotation = (270 - (BOTTOM_ANGLE[seat] ?? 270) + 360) % 360;
    if (rotation !== this.rotation) {
      this.rotation = rotation;
      this.cache = null;
    }
  }

  /** The old two-player flip: north at the bottom. */
  setFlip(flip) {
    this.setBottom(flip ? "north" : "south");
  }

  get flip() {
    return this.rotation === 180;
  }

  get extent() {
    const b = this.board;
    return b.surface_radius + b.ditch_width + 0.3;
  }

  /** Pixels (CSS) per inch. */
  get scale() {
    return this.cssSize / (2 * this.extent);
  }

  toScreen(x, y) {
    const s = this.scale;
    const c = this.cssSize / 2;
    const a = (this.rotation * Math.PI) / 180;
    const cos = Math.round(Math.cos(a));
    const sin = Math.round(Math.sin(a));
    const rx = x * cos - y * sin;
    const ry = x * sin + y * cos;
    return [c + rx * s, c - ry * s];
  }

  /** Board coordinates (inches, y north) of a CSS pixel position in the canvas. */
  toBoard(px, py) {
    const s = this.scale;
    const c = this.cssSize / 2;
    const a = (this.rotation * Math.PI) / 180;
    const cos = Math.round(Math.cos(a));
    const sin = Math.round(Math.sin(a));
    const rx = (px - c) / s;
    const ry = -(py - c) / s;
    return { x: rx * cos + ry * sin, y: -rx * sin + ry * cos };
  }

  _staticLayer() {
    const key = `${this.cssSize}/${this.dpr}/${this.rotation}/${this.boardKey}`;
    if (this.cache && this.cacheKey === key) return this.cache;
    const layer = document.createElement("canvas");
    layer.width = this.canvas.width;
    layer.height = this.canvas.height;
    const g = layer.getContext("2d");
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    this._drawBoard(g);
    this.cache = layer;
    this.cacheKey = key;
    return layer;
  }

  _drawBoard(g) {
    const b = this.board;
    const s = this.scale;
    const [cx, cy] = this.toScreen(0, 0);
    const R = b.surface_radius * s;
    const outer = (b.surface_radius + b.ditch_width) * s;
    const line = Math.max(b.line_width * s, 1);

    // Frame and ditch.
    g.beginPath();
    g.arc(cx, cy, outer + 0.25 * s, 0, TAU);
    g.fillStyle = "#3a2313";
    g.fill();
    const ditch = g.createRadialGradient(cx, cy, R, cx, cy, outer);
    ditch.addColorStop(0, "#2a180c");
    ditch.addColorStop(0.35, "#6f4826");
    ditch.addColorStop(1, "#4e311a");
    g.beginPath();
    g.arc(cx, cy, outer, 0, TAU);
    g.fillStyle = ditch;
    g.fill();

    // Playing surface: warm maple, lightly shaded.
    const wood = g.createRadialGradient(cx - R * 0.25, cy - R * 0.3, R * 0.1, cx, cy, R);
    wood.addColorStop(0, MAPLE[0]);
    wood.addColorStop(1, MAPLE[1]);
    g.beginPath();
    g.arc(cx, cy, R, 0, TAU);
    g.fillStyle = wood;
    g.fill();
    g.lineWidth = Math.max(1, 0.06 * s);
    g.strokeStyle = "#5b3b1e";
    g.stroke();
    // Zone tints: a touch darker outward, so the zones read at a glance.
    g.beginPath();
    g.arc(cx, cy, b.shooting_line_radius * s, 0, TAU);
    g.arc(cx, cy, b.ten_radius * s, 0, TAU, true);
    g.fillStyle = `rgba(${ZONE_TINTS[0].join(", ")})`;
    g.fill();
    g.beginPath();
    g.arc(cx, cy, b.fifteen_radius * s, 0, TAU);
    g.fillStyle = `rgba(${ZONE_TINTS[1].join(", ")})`;
    g.fill();

    // Circles: shooting line, 10 circle, 15 circle.
    g.strokeStyle = "#1f140a";
    g.lineWidth = line;
    for (const r of [b.shooting_line_radius, b.ten_radius, b.fifteen_radius]) {
      g.beginPath();
      g.arc(cx, cy, r * s, 0, TAU);
      g.stroke();
    }
    // Quadrant lines, radial at 45°, 135°, 225°, 315° from the 10 circle to the shooting line.
    g.beginPath();
    for (const deg of [45, 135, 225, 315]) {
      const a = (deg * Math.PI) / 180;
      const [x1, y1] = this.toScreen(b.ten_radius * Math.cos(a), b.ten_radius * Math.sin(a));
      const [x2, y2] = this.toScreen(b.shooting_line_radius * Math.cos(a), b.shooting_line_radius * Math.sin(a));
      g.moveTo(x1, y1);
      g.lineTo(x2, y2);
    }
    g.stroke();

    // Zone numbers, faint, between the quadrant line and a peg.
    g.fillStyle = "rgba(60, 35, 10, 0.33)";
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.font = `600 ${Math.max(9, 0.9 * s)}px system-ui, sans-serif`;
    const labelAngle = ((112.5 - this.rotation) * Math.PI) / 180; // upper left on screen
    const labels = [
      ["5", (b.ten_radius + b.shooting_line_radius) / 2],
      ["10", (b.fifteen_radius + b.ten_radius) / 2],
      ["15", (b.hole_radius + b.fifteen_radius) / 2 + 0.3],
    ];
    for (const [text, r] of labels) {
      const [x, y] = this.toScreen(r * Math.cos(labelAngle), r * Math.sin(labelAngle));
      g.fillText(text, x, y);
    }

    // The 20 hole.
    const hole = g.createRadialGradient(cx, cy, 0, cx, cy, b.hole_radius * s);
    hole.addColorStop(0, "#050302");
    hole.addColorStop(0.75, "#140b05");
    hole.addColorStop(1, "#3b2412");
    g.beginPath();
    g.arc(cx, cy, b.hole_radius * s, 0, TAU);
    g.fillStyle = hole;
    g.fill();
    g.lineWidth = line;
    g.strokeStyle = "#1f140a";
    g.stroke();

    // Pegs: rubber-sleeved posts on the 15 circle.
    for (const [px, py] of b.pegs) {
      const [x, y] = this.toScreen(px, py);
      g.beginPath();
      g.arc(x + 0.05 * s, y + 0.07 * s, b.peg_radius * s, 0, TAU);
      g.fillStyle = "rgba(0,0,0,0.3)";
      g.fill();
      g.beginPath();
      g.arc(x, y, b.peg_radius * s, 0, TAU);
      g.fillStyle = "#222";
      g.fill();
      g.beginPath();
      g.arc(x - 0.05 * s, y - 0.05 * s, b.peg_radius * 0.4 * s, 0, TAU);
      g.fillStyle = "rgba(255,255,255,0.35)";
      g.fill();
    }
  }

  /**
   * Draw a frame.
   * scene: {game, discs, quarter: {seat, angle, limit}, ghost: {x, y, side, bad},
   *         aim: {x, y, ux, uy, power, invalid, pull: {x, y}}, fading: [{...disc, alpha}],
   *         ditch: [{side, seats, count}] (the discs in the ditch, drawn there: ditchSpots)}
   */
  draw(scene) {
    const g = this.ctx;
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.clearRect(0, 0, this.canvas.width, this.canvas.height);
    if (!this.board) return;
    g.drawImage(this._staticLayer(), 0, 0);
    g.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
    const b = this.board;
    const s = this.scale;
    const game = scene.game;

    this.overlay = { hints: [], heat: null, ditch: [] };
    if (scene.ditch) {
      const spots = ditchSpots(b, scene.ditch);
      for (const d of spots) this._disc(g, game, d, 0.9);
      this.overlay.ditch = spots.map((d) => ({ side: d.side, at: this.toScreen(d.x, d.y) }));
    }
    if (scene.heat) this._heat(g, scene.heat);
    if (scene.quarter) {
      const { angle, limit, active } = scene.quarter;
      this._arc(g, b.shooting_line_radius, angle - limit, angle + limit,
        active ? "rgba(11, 92, 173, 0.45)" : "rgba(11, 92, 173, 0.18)", Math.max(3, 0.5 * s));
    }
    for (const d of scene.discs || []) this._disc(g, game, d, 1);
    if (scene.scores) for (const d of scene.discs || []) this._score(g, d);
    for (const d of scene.fading || []) this._disc(g, game, d, d.alpha, true);
    if (scene.ghost) {
      const gh = scene.ghost;
      this._disc(g, game, gh, gh.bad ? 0.55 : 0.92);
      const [x, y] = this.toScreen(gh.x, gh.y);
      g.beginPath();
      g.arc(x, y, (b.disc_radius + 0.18) * s, 0, TAU);
      g.setLineDash(gh.bad ? [] : [4, 3]);
      g.lineWidth = 2;
      g.strokeStyle = gh.bad ? "#c62828" : "#0b5cad";
      g.stroke();
      g.setLineDash([]);
      if (gh.bad) {
        const r = b.disc_radius * 0.7 * s;
        g.beginPath();
        g.moveTo(x - r, y - r);
        g.lineTo(x + r, y + r);
        g.moveTo(x + r, y - r);
        g.lineTo(x - r, y + r);
        g.lineWidth = 3;
        g.stroke();
      }
    }
    if (scene.hints && scene.hints.length) this._hints(g, scene.hints);
    if (scene.aim) this._aim(g, scene.aim);
  }

  /** The heat map's fan of cells (from heatFan), drawn once into a layer and reused. */
  _heat(g, fan) {
    const key = `${this.cssSize}/${this.dpr}/${this.rotation}/${fan.key}`;
    if (!this.heatCache || this.heatCacheKey !== key) {
      const layer = document.createElement("canvas");
      layer.width = this.canvas.width;
      layer.height = this.canvas.height;
      const h = layer.getContext("2d");
      h.setTransform(this.dpr, 0, 0, this.dpr, 0, 0);
      // Only the playing surface: a slide past its edge ends in the ditch.
      const [cx, cy] = this.toScreen(0, 0);
      h.beginPath();
      h.arc(cx, cy, this.board.surface_radius * this.scale, 0, TAU);
      h.clip();
      const { origin: o, rays, reach, values, scale } = fan;
      for (let i = 0; i < values.length; i += 1) {
        const row = values[i];
        const [r0, r1] = [reach[i], reach[i + 1]];
        if (r1 <= 0) continue;
        for (let j = 0; j < row.length; j += 1) {
          const v = row[j];
          if (!Number.isFinite(v)) continue;
          const a = rays[j];
          const b = rays[j + 1];
          const pts = [[a, r0], [b, r0], [b, r1], [a, r1]].map(([u, r]) => this.toScreen(o.x + u.x * r, o.y + u.y * r));
          h.beginPath();
          h.moveTo(pts[0][0], pts[0][1]);
          for (let k = 1; k < 4; k += 1) h.lineTo(pts[k][0], pts[k][1]);
          h.closePath();
          const [cr, cg, cb] = scale.colour(v);
          h.fillStyle = `rgb(${cr}, ${cg}, ${cb})`;
          h.fill();
          // A hairline of the same colour closes the seams between neighbouring cells.
          h.strokeStyle = h.fillStyle;
          h.lineWidth = 0.6;
          h.stroke();
        }
      }
      this.heatCache = layer;
      this.heatCacheKey = key;
    }
    g.save();
    g.setTransform(1, 0, 0, 1, 0, 0);
    g.globalAlpha = HEAT_ALPHA;
    g.drawImage(this.heatCache, 0, 0);
    g.restore();
    const far = fan.reach[fan.reach.length - 1];
    this.overlay.heat = {
      cells: fan.values.reduce((n, row) => n + row.filter(Number.isFinite).length, 0),
      rows: fan.values.length, columns: fan.values[0] ? fan.values[0].length : 0,
      origin: this.toScreen(fan.origin.x, fan.origin.y),
      far: [fan.rays[0], fan.rays[fan.rays.length - 1]].map((u) => this.toScreen(fan.origin.x + u.x * far, fan.origin.y + u.y * far)),
    };
  }

  /**
   * The hints' aim lines: from each hint's placement along its path to where its disc stops
   * played exactly (`stop`, from the server): a translucent ghost disc of the disc's size where
   * it rests on the board or drops in the hole, a bar across the line where it leaves the
   * surface for the ditch. A hint without a stop runs along its direction to the surface's edge.
   * Numbered at both ends, each with its label ("1 · a sure 20") on the line.
   * hints: [{rank, x, y, ux, uy, label, colour, stop: {x, y, status, path} | null}].
   */
  _hints(g, hints) {
    const b = this.board;
    const s = this.scale;
    const placed = [];
    const boxes = [];
    const starts = [];
    const ends = [];
    const fontPx = Math.max(11, Math.min(15, 0.7 * s));
    const discPx = b.disc_radius * s;
    for (const h of hints) {
      let course;
      if (h.stop && Array.isArray(h.stop.path) && h.stop.path.length >= 2) {
        course = h.stop.path.map((p) => this.toScreen(p.x, p.y));
      } else {
        const dot = h.x * h.ux + h.y * h.uy;
        const disc = dot * dot - (h.x * h.x + h.y * h.y - b.surface_radius ** 2);
        const reach = disc > 0 ? -dot + Math.sqrt(disc) : 0;
        course = [this.toScreen(h.x, h.y), this.toScreen(h.x + h.ux * reach, h.y + h.uy * reach)];
      }
      const [x0, y0] = course[0];
      const [x1, y1] = course[course.length - 1];
      const status = h.stop ? h.stop.status : "edge";
      // The placement, as a ring in the hint's colour.
      g.beginPath();
      g.arc(x0, y0, (b.disc_radius + 0.1) * s, 0, TAU);
      g.lineWidth = 2.5;
      g.strokeStyle = h.colour;
      g.stroke();
      // The line, with a white casing so it reads on light and dark wood alike.
      for (const [w, c] of [[Math.max(4.5, 0.3 * s), "rgba(255,255,255,0.85)"], [Math.max(2.5, 0.16 * s), h.colour]]) {
        g.beginPath();
        g.moveTo(x0, y0);
        for (const [x, y] of course.slice(1)) g.lineTo(x, y);
        g.lineWidth = w;
        g.strokeStyle = c;
        g.lineCap = "round";
        g.lineJoin = "round";
        g.stroke();
      }
      g.lineCap = "butt";
      g.lineJoin = "miter";
      // The last leg's direction, for what is drawn at the end.
      const [px, py] = course[course.length - 2];
      const leg = Math.hypot(x1 - px, y1 - py) || 1;
      const [dx, dy] = [(x1 - px) / leg, (y1 - py) / leg];
      if (status === "on_board" || status === "in_hole") {
        // The ghost of the disc where it comes to rest (or drops), its real size.
        g.beginPath();
        g.arc(x1, y1, discPx, 0, TAU);
        g.globalAlpha = 0.45;
        g.fillStyle = h.colour;
        g.fill();
        g.globalAlpha = 1;
        g.lineWidth = 2;
        g.strokeStyle = "#fff";
        g.stroke();
        g.beginPath();
        g.arc(x1, y1, discPx + 1.5, 0, TAU);
        g.lineWidth = 1.5;
        g.strokeStyle = h.colour;
        g.stroke();
      } else {
        // Off the edge into the ditch: a bar across the line where it leaves the surface.
        const half = Math.max(6, discPx);
        for (const [w, c] of [[5, "rgba(255,255,255,0.9)"], [2.5, h.colour]]) {
          g.beginPath();
          g.moveTo(x1 - dy * half, y1 + dx * half);
          g.lineTo(x1 + dy * half, y1 - dx * half);
          g.lineWidth = w;
          g.strokeStyle = c;
          g.stroke();
        }
      }
      // Two hints from one placement: the later number moves up its own line, clear of the first.
      const [ax, ay] = course[1];
      const first = Math.hypot(ax - x0, ay - y0) || 1;
      let [bx, by] = [x0, y0];
      for (let k = 1; k < 6 && starts.some(([sx, sy]) => Math.hypot(sx - bx, sy - by) < fontPx * 1.5); k += 1) {
        bx = x0 + ((ax - x0) / first) * fontPx * 1.6 * k;
        by = y0 + ((ay - y0) / first) * fontPx * 1.6 * k;
      }
      starts.push([bx, by]);
      // The end's number sits on the line just short of the ghost (or of the bar at the edge).
      const back = status === "edge" ? 0 : (status === "in_ditch" ? fontPx * 0.72 + 4 : discPx + fontPx * 0.72 + 3);
      const room = Math.min(back, leg);
      let [ex, ey] = [x1 - dx * room, y1 - dy * room];
      for (let k = 1; k < 6 && starts.concat(ends).some(([sx, sy]) => Math.hypot(sx - ex, sy - ey) < fontPx * 1.5); k += 1) {
        ex = x1 - dx * (room + fontPx * 1.6 * k);
        ey = y1 - dy * (room + fontPx * 1.6 * k);
      }
      ends.push([ex, ey]);
      this._badge(g, bx, by, String(h.rank), h.colour, fontPx);
      this._badge(g, ex, ey, String(h.rank), h.colour, fontPx);
      placed.push({
        rank: h.rank, colour: h.colour, label: h.label, from: [x0, y0], to: [x1, y1], aim: [ax, ay],
        path: course, stop: h.stop ? { status, at: [x1, y1], radius: discPx } : null,
      });
    }
    // Labels on their lines, staggered by rank and moved along the line until none overlap.
    g.font = `700 ${fontPx}px system-ui, sans-serif`;
    g.textAlign = "center";
    g.textBaseline = "middle";
    for (const [i, p] of placed.entries()) {
      const w = g.measureText(p.label).width + 10;
      const hgt = fontPx + 8;
      let box = null;
      const clear = (b) => !boxes.some((o) => b.x < o.x + o.w && o.x < b.x + b.w && b.y < o.y + o.h && o.y < b.y + b.h);
      // Along the line first; where two lines run together (a short one in the other's
      // path), a label steps off its line, above or below, rather than cover another.
      search: for (const lift of [0, -(hgt + 3), hgt + 3]) {
        for (let k = 0; k < 12; k += 1) {
          const f = Math.min(0.9, 0.22 + 0.14 * i + 0.11 * k);
          const [cx, cy] = along(p.path, f);
          const lx = Math.min(this.cssSize - w / 2 - 2, Math.max(w / 2 + 2, cx));
          const ly = Math.min(this.cssSize - hgt / 2 - 2, Math.max(hgt / 2 + 2, cy + lift));
          const at = { x: lx - w / 2, y: ly - hgt / 2, w, h: hgt };
          if (!box) box = at;
          if (clear(at)) {
            box = at;
            break search;
          }
        }
      }
      boxes.push(box);
      g.fillStyle = "rgba(255,255,255,0.93)";
      g.strokeStyle = p.colour;
      g.lineWidth = 2;
      g.beginPath();
      if (g.roundRect) g.roundRect(box.x, box.y, box.w, box.h, 5);
      else g.rect(box.x, box.y, box.w, box.h);
      g.fill();
      g.stroke();
      g.fillStyle = p.colour;
      g.fillText(p.label, box.x + box.w / 2, box.y + box.h / 2 + 0.5);
      p.box = box;
    }
    this.overlay.hints = placed;
  }

  _badge(g, x, y, text, colour, fontPx) {
    const r = fontPx * 0.72;
    g.beginPath();
    g.arc(x, y, r, 0, TAU);
    g.fillStyle = colour;
    g.fill();
    g.lineWidth = 1.5;
    g.strokeStyle = "#fff";
    g.stroke();
    g.fillStyle = "#fff";
    g.font = `800 ${fontPx}px system-ui, sans-serif`;
    g.textAlign = "center";
    g.textBaseline = "middle";
    g.fillText(text, x, y + 0.5);
  }

  /** The value a disc scores where it lies (R6), as a badge beside it, for the round result. */
  _score(g, d) {
    const b = this.board;
    const s = this.scale;
    const [x, y] = this.toScreen(d.x, d.y);
    const z = zoneOf(b, d.x, d.y);
    const text = String(z);
    const size = Math.max(10, 0.62 * s);
    g.font = `800 ${size}px system-ui, sans-serif`;
    g.textAlign = "center";
    g.textBaseline = "middle";
    const w = g.measureText(text).width + 6;
    const bx = x + b.disc_radius * s * 0.85;
    const by = y - b.disc_radius * s * 0.85;
    g.fillStyle = z > 0 ? "#0b5cad" : "#b3261e";
    g.beginPath();
    g.roundRect?.(bx - w / 2, by - size * 0.65, w, size * 1.3, size * 0.4);
    g.fill();
    g.fillStyle = "#fff";
    g.fillText(text, bx, by + 0.5);
  }

  _arc(g, r, fromDeg, toDeg, colour, width) {
    const s = this.scale;
    const [cx, cy] = this.toScreen(0, 0);
    // Screen angles run clockwise (y down); board angles counter-clockwise.
    const f = (this.rotation * Math.PI) / 180;
    const a1 = -(toDeg * Math.PI) / 180 - f;
    const a2 = -(fromDeg * Math.PI) / 180 - f;
    g.beginPath();
    g.arc(cx, cy, r * s, a1, a2);
    g.strokeStyle = colour;
    g.lineWidth = width;
    g.lineCap = "round";
    g.stroke();
    g.lineCap = "butt";
  }

  _disc(g, game, d, alpha, crossed = false) {
    const b = this.board;
    const s = this.scale;
    const r = b.disc_radius * s;
    const [x, y] = this.toScreen(d.x, d.y);
    const { mark, style } = sideLook(game, d.side ?? 0);
    g.save();
    g.globalAlpha = alpha;
    g.beginPath();
    g.arc(x + 0.06 * s, y + 0.09 * s, r, 0, TAU);
    g.fillStyle = "rgba(0,0,0,0.28)";
    g.fill();
    g.beginPath();
    g.arc(x, y, r, 0, TAU);
    const body = g.createRadialGradient(x - r * 0.35, y - r * 0.35, r * 0.1, x, y, r);
    body.addColorStop(0, style.fill);
    body.addColorStop(1, shade(style.fill, -0.18));
    g.fillStyle = body;
    g.fill();
    g.lineWidth = Math.max(EDGE_MIN_PX, 0.1 * s);
    g.strokeStyle = style.edge;
    g.stroke();
    g.fillStyle = style.mark;
    g.strokeStyle = style.mark;
    if (mark === "circle") {
      g.beginPath();
      g.arc(x, y, r * 0.42, 0, TAU);
      g.lineWidth = Math.max(1.2, r * 0.16);
      g.stroke();
    } else if (mark === "triangle") {
      const t = r * 0.55;
      g.beginPath();
      g.moveTo(x, y - t);
      g.lineTo(x + t * 0.9, y + t * 0.55);
      g.lineTo(x - t * 0.9, y + t * 0.55);
      g.closePath();
      g.fill();
    } else if (mark === "dot") {
      g.beginPath();
      g.arc(x, y, r * 0.26, 0, TAU);
      g.fill();
    } else if (mark === "none") {
      // The plain disc of the light-with-a-dot scheme.
    } else if (mark === "diamond") {
      const q = r * 0.5;
      g.beginPath();
      g.moveTo(x, y - q);
      g.lineTo(x + q, y);
      g.lineTo(x, y + q);
      g.lineTo(x - q, y);
      g.closePath();
      g.fill();
    } else {
      const q = r * 0.38;
      g.fillRect(x - q, y - q, 2 * q, 2 * q);
    }
    if (crossed) {
      g.beginPath();
      g.arc(x, y, r + 2, 0, TAU);
      g.lineWidth = 2;
      g.strokeStyle = "#c62828";
      g.stroke();
    }
    g.restore();
  }

  _aim(g, aim) {
    const b = this.board;
    const s = this.scale;
    const [x0, y0] = this.toScreen(aim.x, aim.y);
    const colour = aim.invalid ? "#c62828" : "#0b5cad";
    if (aim.pull) {
      const [px, py] = this.toScreen(aim.pull.x, aim.pull.y);
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(px, py);
      g.setLineDash([3, 4]);
      g.lineWidth = 1.5;
      g.strokeStyle = "rgba(40,40,40,0.7)";
      g.stroke();
      g.setLineDash([]);
    }
    // Guide: where the disc heads, up to the edge of the surface.
    if (!aim.invalid) {
      const ux = aim.ux;
      const uy = aim.uy;
      const dot = aim.x * ux + aim.y * uy;
      const disc = dot * dot - (aim.x * aim.x + aim.y * aim.y - b.surface_radius ** 2);
      const reach = disc > 0 ? -dot + Math.sqrt(disc) : 0;
      const [gx, gy] = this.toScreen(aim.x + ux * reach, aim.y + uy * reach);
      g.beginPath();
      g.moveTo(x0, y0);
      g.lineTo(gx, gy);
      g.setLineDash([2, 5]);
      g.lineWidth = 1;
      g.strokeStyle = "rgba(11, 60, 120, 0.55)";
      g.stroke();
      g.setLineDash([]);
    }
    // Arrow: length grows with power.
    const len = (b.disc_radius + 0.6 + (aim.power / 100) * 7) * s;
    const [ex, ey] = this.toScreen(aim.x + aim.ux, aim.y + aim.uy);
    let dx = ex - x0;
    let dy = ey - y0;
    const n = Math.hypot(dx, dy) || 1;
    dx /= n;
    dy /= n;
    const tipX = x0 + dx * len;
    const tipY = y0 + dy * len;
    const head = Math.max(8, 0.55 * s);
    g.beginPath();
    g.moveTo(x0 + dx * b.disc_radius * s, y0 + dy * b.disc_radius * s);
    g.lineTo(tipX - dx * head * 0.8, tipY - dy * head * 0.8);
    g.lineWidth = Math.max(3, 0.2 * s);
    g.strokeStyle = colour;
    g.lineCap = "round";
    g.stroke();
    g.lineCap = "butt";
    g.beginPath();
    g.moveTo(tipX, tipY);
    g.lineTo(tipX - dx * head - dy * head * 0.55, tipY - dy * head + dx * head * 0.55);
    g.lineTo(tipX - dx * head + dy * head * 0.55, tipY - dy * head - dx * head * 0.55);
    g.closePath();
    g.fillStyle = colour;
    g.fill();
    // Power label beside the tip; a wrong-way pull is explained toward the centre, on the board.
    const label = aim.invalid ? "pull away from the centre" : `${Math.round(aim.power)}%`;
    g.font = `700 ${Math.max(12, 0.85 * s)}px system-ui, sans-serif`;
    g.textAlign = "center";
    g.textBaseline = "middle";
    let lx = tipX + dx * 16;
    let ly = tipY + dy * 16;
    if (aim.invalid) {
      [lx, ly] = this.toScreen(aim.x * 0.72, aim.y * 0.72);
    }
    const w = g.measureText(label).width + 10;
    const h = Math.max(16, 0.85 * s + 6);
    g.fillStyle = "rgba(255,255,255,0.88)";
    g.fillRect(lx - w / 2, ly - h / 2, w, h);
    g.fillStyle = colour;
    g.fillText(label, lx, ly);
  }
}

function shade(hex, amount) {
  const n = parseInt(hex.slice(1), 16);
  const f = (c) => Math.max(0, Math.min(255, Math.round(c + (amount < 0 ? c : 255 - c) * amount)));
  const r = f((n >> 16) & 255);
  const gg = f((n >> 8) & 255);
  const b = f(n & 255);
  return `rgb(${r}, ${gg}, ${b})`;
}
