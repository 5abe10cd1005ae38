// Board geometry seen from the client: placements, aims, zones (docs/protocol.md, BOARD.md).
// Lengths in inches from the centre, y north; angles in degrees counter-clockwise from east.

export const SEAT_ANGLE = { south: 270, west: 180, north: 90, east: 0 };
const RAD = Math.PI / 180;

/** Centre of a disc placed at `position` degrees on `seat`'s quarter (positive = shooter's right). */
export function placement(board, seat, position) {
  const a = (SEAT_ANGLE[seat] + position) * RAD;
  const r = board.shooting_line_radius;
  return { x: r * Math.cos(a), y: r * Math.sin(a) };
}

/** Unit vector of the launch for a direction (0 = at the centre, positive = shooter's right). */
export function aimVector(board, seat, position, direction) {
  const c = placement(board, seat, position);
  const inward = Math.atan2(-c.y, -c.x) - direction * RAD;
  return { x: Math.cos(inward), y: Math.sin(inward) };
}

/** Direction in degrees (−180…180] of a launch along (vx, vy) from `seat` at `position`. */
export function directionOf(board, seat, position, vx, vy) {
  const c = placement(board, seat, position);
  const inward = Math.atan2(-c.y, -c.x);
  let d = (inward - Math.atan2(vy, vx)) / RAD;
  while (d > 180) d -= 360;
  while (d <= -180) d += 360;
  return d;
}

/** Position in degrees on `seat`'s quarter nearest to board point (x, y), unclamped. */
export function positionOf(seat, x, y) {
  let d = Math.atan2(y, x) / RAD - SEAT_ANGLE[seat];
  while (d > 180) d -= 360;
  while (d <= -180) d += 360;
  return d;
}

/** Scoring zone of a disc at rest (R6): 20, 15, 10, 5 or 0 (out); touching a line scores lower. */
export function zoneOf(board, x, y) {
  const d = Math.hypot(x, y);
  if (d < board.hole_radius) return 20;
  const rim = d + board.disc_radius;
  const half = board.line_width / 2;
  if (rim < board.fifteen_radius - half) return 15;
  if (rim < board.ten_radius - half) return 10;
  if (rim < board.shooting_line_radius - half) return 5;
  return 0;
}

/** Compass words for a point, e.g. "north-east", for screen-reader descriptions. */
export function compass(x, y) {
  if (Math.hypot(x, y) < 0.8) return "centre";
  const names = ["east", "north-east", "north", "north-west", "west", "south-west", "south", "south-east"];
  const a = (Math.atan2(y, x) / RAD + 360 + 22.5) % 360;
  return names[Math.floor(a / 45)];
}

export function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}

export function round(v, digits = 1) {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}
