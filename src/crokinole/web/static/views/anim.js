// Closed-form disc motion of a shot's `trajectory` (docs/protocol.md, "trajectory"), and the
// animation of a shot on screen, frame by frame.

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

/** Removed discs (out, fouls) fade for this long after the motion ends, in seconds. */
export const FADE_S = 0.45;

/**
 * The drops into the 20 hole that count, in time order: [{t, id, owner}]. A drop counts unless
 * the shot's `report` (docs/protocol.md, "Shot report") sends that disc to the ditch (a foul
 * cancels its 20); without a report every drop counts.
 */
export function twentyDrops(traj, report = null) {
  const result = new Map(report && Array.isArray(report.discs) ? report.discs.map((d) => [d.id, d.result]) : []);
  return (traj.discs || [])
    .filter((d) => d.leaves && d.leaves.how === "hole" && (!result.has(d.id) || result.get(d.id) === "hole"))
    .map((d) => ({ t: d.leaves.t, id: d.id, owner: d.owner }))
    .sort((x, y) => x.t - y.t);
}

/**
 * The cues of a shot, in time order: [[t, cue]] (lib/sound.js CUES). The trajectory's own
 * sounds give the contacts ("disc", "peg"); each disc that leaves gives its drop, a "twenty"
 * (one that counts) or a "hole" (one a foul cancels), or its "ditch" thud.
 */
export function shotCues(traj, report = null) {
  const twenties = new Set(twentyDrops(traj, report).map((d) => d.id));
  const contacts = (traj.sounds || []).filter((x) => x[1] !== "hole");
  const leaving = (traj.discs || []).filter((d) => d.leaves)
    .map((d) => [d.leaves.t, d.leaves.how === "ditch" ? "ditch" : twenties.has(d.id) ? "twenty" : "hole"]);
  return contacts.concat(leaving).sort((x, y) => x[0] - y[0]);
}

/**
 * One shot at a time, animated from its trajectory at each animation frame.
 * `hooks`: {speed, paused(), onFrame(), onSound(name), onTwenty?(drop, n)}: `onTwenty` as a
 * disc drops into the 20 hole for a 20 that counts ({t, id, owner} of twentyDrops; n: how
 * many such drops came before it in this shot).
 */
export class ShotAnimation {
  constructor(hooks) {
    this.hooks = hooks;
    this.current = null;
  }

  get running() {
    return this.current !== null;
  }

  /** The snapshot after the shot in play. */
  get game() {
    return this.current ? this.current.msg.game : null;
  }

  /** Animate `msg` (a shot) from the snapshot `before`; resolves when it has ended. */
  play(before, msg, sideOf) {
    this.finish();
    return new Promise((resolve) => {
      const traj = msg.trajectory;
      this.current = {
        msg, before, traj, sideOf, t: 0, last: null, soundIndex: 0, twentyIndex: 0, resolve,
        sounds: shotCues(traj, msg.report),
        twenties: twentyDrops(traj, msg.report),
      };
      requestAnimationFrame((now) => this.step(now));
    });
  }

  step(now) {
    const a = this.current;
    if (!a) return;
    if (a.last !== null && !this.hooks.paused()) a.t += (Math.min(now - a.last, 250) / 1000) * this.hooks.speed;
    a.last = now;
    while (a.soundIndex < a.sounds.length && a.sounds[a.soundIndex][0] <= a.t) {
      this.hooks.onSound(a.sounds[a.soundIndex][1]);
      a.soundIndex += 1;
    }
    while (a.twentyIndex < a.twenties.length && a.twenties[a.twentyIndex].t <= a.t) {
      if (this.hooks.onTwenty) this.hooks.onTwenty(a.twenties[a.twentyIndex], a.twentyIndex);
      a.twentyIndex += 1;
    }
    if (a.t >= a.traj.duration + FADE_S) {
      this.finish();
      return;
    }
    this.hooks.onFrame();
    requestAnimationFrame((t) => this.step(t));
  }

  /** End the shot in play at once (its promise resolves). */
  finish() {
    const a = this.current;
    if (!a) return;
    this.current = null;
    a.resolve();
  }

  /** Discs to draw now: a frame of the shot, then the snapshot with removed discs fading. */
  scene() {
    const a = this.current;
    const dur = a.traj.duration;
    if (a.t < dur) return { discs: framesAt(a.before, a.traj, a.sideOf, a.t), fading: [] };
    const last = framesAt(a.before, a.traj, a.sideOf, dur);
    const alpha = Math.min(1, Math.max(0, 1 - (a.t - dur) / FADE_S));
    const onBoard = new Set(a.msg.game.discs.map((d) => d.id));
    const fading = last.filter((d) => !onBoard.has(d.id)).map((d) => ({ ...d, alpha }));
    return { discs: a.msg.game.discs, fading };
  }
}
