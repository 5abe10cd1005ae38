// Closed-form disc motion of a shot's `trajectory` (docs/protocol.md, "trajectory").

/** Position of one trajectory disc at time t, or null once it has left (hole or ditch). */
export function discAt(disc, t, a) {
  if (disc.leaves && t >= disc.leaves.t) return null;
  const segs = disc.segments;
  if (!segs || segs.length === 0) return undefined; // no motion known: stays where it was
  let seg = segs[0];
  if (t <= seg[0]) return { x: seg[1], y: seg[2], moving: false };
  for (let i = 1; i < segs.length && segs[i][0] <= t; i += 1) seg = segs[i];
  const [t0, x, y, vx, vy] = seg;
  const w = Math.hypot(vx, vy);
  if (w === 0 || !(a > 0)) return { x, y, moving: false };
  const stop = w / a;
  const tau = Math.min(t - t0, stop);
  const s = w * tau - (a * tau * tau) / 2;
  return { x: x + (vx / w) * s, y: y + (vy / w) * s, moving: tau < stop };
}

/**
 * Discs to draw at time t of a shot: those of `before` (the snapshot before the shot)
 * moved by the trajectory, plus the shot disc. Returns [{id, owner, side, x, y}].
 */
export function framesAt(before, trajectory, sideOf, t) {
  const a = trajectory.deceleration;
  const moving = new Map(trajectory.discs.map((d) => [d.id, d]));
  const out = [];
  for (const d of before.discs) {
    const m = moving.get(d.id);
    if (!m) {
      out.push(d);
      continue;
    }
    const p = discAt(m, t, a);
    if (p === undefined) out.push(d);
    else if (p) out.push({ ...d, x: p.x, y: p.y });
  }
  const known = new Set(before.discs.map((d) => d.id));
  for (const m of trajectory.discs) {
    if (known.has(m.id)) continue;
    const p = discAt(m, t, a);
    if (p) out.push({ id: m.id, owner: m.owner, side: sideOf(m.owner), x: p.x, y: p.y });
  }
  return out;
}
