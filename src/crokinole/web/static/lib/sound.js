// Short synthesized sounds (WebAudio): no sound files to download. Off by default.
//
// Each cue is a few layers (a filtered noise burst, a short tone) written as data below, so
// that how long and how loud each one is can be read (and tested) without an AudioContext.
// Cues come from a shot's events as it is animated (views/anim.js): discs touching ("disc"),
// a disc on a peg ("peg"), a disc into the ditch ("ditch"), a drop into the 20 hole that
// counts ("twenty") or that a foul cancels ("hole"), and the flick itself ("shoot").

/**
 * The layers of each cue: `noise` (a band-passed burst: `freq`, `q`) or `tone` (a pitch glide
 * `from` → `to`, an oscillator `wave`), starting `at` seconds after the cue, lasting `length`,
 * at a peak `gain` (0–1, before the master volume). All short and soft: under 200 ms.
 */
export const CUES = {
  disc: [
    { kind: "noise", at: 0, length: 0.035, freq: 2300, q: 4, gain: 0.45 },
    { kind: "tone", at: 0, length: 0.03, from: 1500, to: 1100, gain: 0.06, wave: "triangle" },
  ],
  peg: [
    { kind: "noise", at: 0, length: 0.05, freq: 1100, q: 6, gain: 0.35 },
    { kind: "tone", at: 0, length: 0.07, from: 720, to: 600, gain: 0.07, wave: "sine" },
  ],
  ditch: [
    { kind: "tone", at: 0, length: 0.15, from: 150, to: 60, gain: 0.4, wave: "sine" },
    { kind: "noise", at: 0, length: 0.09, freq: 320, q: 1.2, gain: 0.3 },
  ],
  hole: [
    { kind: "tone", at: 0, length: 0.13, from: 280, to: 110, gain: 0.3, wave: "sine" },
  ],
  twenty: [
    { kind: "tone", at: 0, length: 0.11, from: 280, to: 120, gain: 0.25, wave: "sine" },
    { kind: "tone", at: 0.04, length: 0.12, from: 880, to: 880, gain: 0.09, wave: "sine" },
    { kind: "tone", at: 0.08, length: 0.11, from: 1320, to: 1320, gain: 0.07, wave: "sine" },
  ],
  shoot: [
    { kind: "noise", at: 0, length: 0.03, freq: 1800, q: 2, gain: 0.2 },
  ],
};

/** The master volume over every cue: soft. */
export const VOLUME = 0.5;

/** How long a cue sounds, in seconds (its last layer's end). */
export function cueLength(kind) {
  const layers = CUES[kind];
  return layers ? Math.max(...layers.map((l) => l.at + l.length)) : 0;
}

/** Discs touching and discs on pegs: the cues a busy shot has many of. */
export const CONTACTS = new Set(["disc", "peg"]);

/**
 * Which cues may sound, so that contacts close together do not pile into noise: contacts
 * at least `gapMs` apart and at most `burst` of them in any `windowMs`; any cue at least
 * `sameMs` after the same cue (two discs into the ditch at once make one thud).
 */
export class CueLimiter {
  constructor({ gapMs = 60, burst = 3, windowMs = 300, sameMs = 50 } = {}) {
    Object.assign(this, { gapMs, burst, windowMs, sameMs });
    this.contacts = []; // times of the contacts let through, within the last window
    this.last = {}; // kind -> time it last sounded
  }

  /** Whether the cue `kind` may sound at `nowMs` (and count it if so). */
  allow(kind, nowMs) {
    const before = this.last[kind];
    if (before !== undefined && nowMs - before < this.sameMs) return false;
    if (CONTACTS.has(kind)) {
      this.contacts = this.contacts.filter((t) => nowMs - t < this.windowMs);
      const latest = this.contacts[this.contacts.length - 1];
      if (latest !== undefined && nowMs - latest < this.gapMs) return false;
      if (this.contacts.length >= this.burst) return false;
      this.contacts.push(nowMs);
    }
    this.last[kind] = nowMs;
    return true;
  }
}

let ctx = null;
let master = null;
let enabled = false;
const limiter = new CueLimiter();
/** The cues played on the AudioContext, in order: [{kind, at}] (the last 50; tests read it). */
const played = [];

export function setSoundEnabled(on) {
  enabled = Boolean(on);
  if (enabled) ensureContext();
}

export function soundEnabled() {
  return enabled;
}

/** What the sound did: whether it is on, its AudioContext's state, and the cues played. */
export function soundRecord() {
  return { enabled, state: ctx ? ctx.state : null, played: played.slice() };
}

function ensureContext() {
  if (ctx) {
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    return ctx;
  }
  const AC = globalThis.AudioContext || globalThis.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
    master = ctx.createGain();
    master.gain.value = VOLUME;
    master.connect(ctx.destination);
  } catch {
    ctx = null;
    master = null;
  }
  return ctx;
}

function noiseBuffer(c, seconds) {
  const n = Math.max(1, Math.floor(c.sampleRate * seconds));
  const buf = c.createBuffer(1, n, c.sampleRate);
  const data = buf.getChannelData(0);
  for (let i = 0; i < n; i += 1) data[i] = (Math.random() * 2 - 1) * (1 - i / n) ** 3;
  return buf;
}

function envelope(c, at, gain, length) {
  const g = c.createGain();
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(gain, at + 0.004);
  g.gain.exponentialRampToValueAtTime(0.0001, at + length);
  return g;
}

function layer(c, at, l) {
  const start = at + l.at;
  let src;
  let head;
  if (l.kind === "noise") {
    src = c.createBufferSource();
    src.buffer = noiseBuffer(c, l.length);
    head = c.createBiquadFilter();
    head.type = "bandpass";
    head.frequency.value = l.freq;
    head.Q.value = l.q;
    src.connect(head);
  } else {
    src = c.createOscillator();
    src.type = l.wave || "sine";
    src.frequency.setValueAtTime(l.from, start);
    if (l.to !== l.from) src.frequency.exponentialRampToValueAtTime(l.to, start + l.length);
    head = src;
  }
  head.connect(envelope(c, start, l.gain, l.length)).connect(master);
  src.start(start);
  src.stop(start + l.length + 0.02);
}

/** Play one cue now (see CUES); off, unknown, or too soon after the last contacts: nothing. */
export function play(kind) {
  if (!enabled || !CUES[kind]) return;
  const now = typeof performance !== "undefined" ? performance.now() : Date.now();
  if (!limiter.allow(kind, now)) return;
  const c = ensureContext();
  if (!c) return;
  const at = c.currentTime + 0.005;
  for (const l of CUES[kind]) layer(c, at, l);
  played.push({ kind, at });
  if (played.length > 50) played.shift();
}
