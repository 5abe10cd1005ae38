// Short synthesized sounds (WebAudio): no sound files to download. Off by default.

let ctx = null;
let enabled = false;

export function setSoundEnabled(on) {
  enabled = Boolean(on);
  if (enabled) ensureContext();
}

export function soundEnabled() {
  return enabled;
}

function ensureContext() {
  if (ctx) {
    if (ctx.state === "suspended") ctx.resume().catch(() => {});
    return ctx;
  }
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
  } catch {
    ctx = null;
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

function click(c, at, freq, q, gain, length) {
  const src = c.createBufferSource();
  src.buffer = noiseBuffer(c, length);
  const filter = c.createBiquadFilter();
  filter.type = "bandpass";
  filter.frequency.value = freq;
  filter.Q.value = q;
  const g = c.createGain();
  g.gain.setValueAtTime(gain, at);
  g.gain.exponentialRampToValueAtTime(0.001, at + length);
  src.connect(filter).connect(g).connect(c.destination);
  src.start(at);
  src.stop(at + length + 0.02);
}

function tone(c, at, from, to, gain, length, type = "sine") {
  const osc = c.createOscillator();
  osc.type = type;
  osc.frequency.setValueAtTime(from, at);
  osc.frequency.exponentialRampToValueAtTime(to, at + length);
  const g = c.createGain();
  g.gain.setValueAtTime(0.0001, at);
  g.gain.exponentialRampToValueAtTime(gain, at + 0.008);
  g.gain.exponentialRampToValueAtTime(0.0001, at + length);
  osc.connect(g).connect(c.destination);
  osc.start(at);
  osc.stop(at + length + 0.02);
}

/** Play one event sound now: "disc", "peg", "hole", "ditch" or "shoot". */
export function play(kind) {
  if (!enabled) return;
  const c = ensureContext();
  if (!c) return;
  const at = c.currentTime + 0.005;
  switch (kind) {
    case "disc":
      click(c, at, 2400, 3, 0.9, 0.06);
      tone(c, at, 1500, 900, 0.15, 0.05, "triangle");
      break;
    case "peg":
      click(c, at, 900, 6, 0.7, 0.09);
      tone(c, at, 620, 480, 0.2, 0.12);
      break;
    case "hole":
      tone(c, at, 320, 90, 0.45, 0.35);
      click(c, at + 0.05, 300, 2, 0.5, 0.12);
      break;
    case "ditch":
      click(c, at, 500, 1.5, 0.5, 0.15);
      break;
    case "shoot":
      click(c, at, 1800, 2, 0.35, 0.04);
      break;
    default:
      click(c, at, 1600, 3, 0.5, 0.05);
  }
}
