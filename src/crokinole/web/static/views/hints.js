// Hints and the aim heat map in play (issue 13; docs/protocol.md, "hint" and "heatmap").
//
// The server works everything out (the Expert's search, the noise draws); this module asks
// for it on the player's turn, keeps the answer for that turn only, and hands board.js what to
// draw: three numbered aim lines, and a fan of (direction × power) cells from the placement.
// The panel beside the controls holds the buttons, the heat map's choices, its legend, a small
// direction × power chart (tap a cell to aim there) and the hints in words.
// Tables allow hints by their settings (view.settings.hints): ranked tables never do.

import { HINT_COLOURS, heatFan, heatScale } from "./board.js";
import { $, anyModalOpen, el } from "../lib/dom.js";
import { aimVector, placement, round } from "../lib/geometry.js";
import { isSpectator } from "../lib/state.js";
import { hintNumbers, hintSentence, hintTag } from "../lib/words.js";

/** What a heat map can show, as the player reads it (HeatMap's Metric). */
export const METRICS = { points: "Expected points", twenty: "Chance of a 20", valid: "Valid shot" };
/** Whose accuracy the heat map assumes ("hand": the table's hand; "mine": fitted from drills). */
export const ACCURACIES = {
  hand: "My hand", easy: "Easy", normal: "Normal", hard: "Hard", expert: "Expert", master: "Master", mine: "Mine (from drills)",
};
const HAND_WORDS = { hand: "your hand", steady: "the steady hand", human: "the human hand", mine: "your accuracy", easy: "CPU Easy's hand", normal: "CPU Normal's hand", hard: "CPU Hard's hand", expert: "CPU Expert's hand", master: "CPU Master's hand" };
const ANSWER_WAIT_MS = 15000;
const HEAT_AGAIN_MS = 600; // a placement held this long is a new heat map's start
const TYPING = new Set(["text", "number", "search", "email", "password"]);

// ------------------------------------------------------------------ pure parts (node tests)

/** Whether this table lets the player on this screen ask for hints and heat maps. */
export function hintsAllowed(s) {
  return Boolean(s.settings && s.settings.hints === true) && !s.ranked && s.kind !== "ranked" && !isSpectator(s);
}

/** "+12", "−3", "0": a margin in whole points, signed. */
export function signedPoints(v) {
  const x = Number(v) || 0;
  const r = Math.sign(x) * Math.round(Math.abs(x)); // halves away from 0, alike on both sides
  if (r > 0) return `+${r}`;
  if (r < 0) return `\u2212${-r}`;
  return "0";
}

/** A chance (0..1) in whole percent: "64%". */
export function percent(v) {
  return `${Math.round(Math.max(0, Math.min(1, Number(v) || 0)) * 100)}%`;
}

/** A hint's label on the board, in words: "1 · a sure 20" (lib/words.js hintTag). */
export function hintLabel(h, board = null) {
  return hintTag(h, board);
}

/** A hint in words for the list: "Best: straight, 29% power — a sure 20 (68% to win the round)". */
export function hintWords(h, board = null) {
  return hintSentence(h, board);
}

/** The hand an answer was worked out with, in words ("the human hand"). */
export function accuracyWords(a) {
  const name = a && typeof a === "object" ? a.name : a;
  return HAND_WORDS[name] || (name ? `the ${name} hand` : "your hand");
}

/** The turn a hint belongs to: a shot or a new round makes it another. */
export function turnKey(s) {
  const g = s.game;
  if (!g) return "";
  const left = (g.seats || []).reduce((n, x) => n + (Number(x.in_hand) || 0), 0);
  return `${s.table}/${g.round}/${g.phase}/${g.current_seat}/${left}/${(g.discs || []).length}`;
}

/**
 * Where a hint's disc stops played exactly (the answer's `stop`), or null when it is missing or
 * not numbers (then the line runs to the edge, as before the server sent it): {x, y, status,
 * path: [[x, y], ...]}, the path from the placement through each contact to the stop.
 */
export function hintStop(h, from) {
  const st = h && h.stop;
  if (!st || typeof st !== "object" || !Number.isFinite(st.x) || !Number.isFinite(st.y)) return null;
  const status = ["on_board", "in_hole", "in_ditch"].includes(st.status) ? st.status : "on_board";
  const corners = Array.isArray(st.path)
    ? st.path.filter((p) => Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1])).map(([x, y]) => ({ x, y }))
    : [];
  // The path starts at the placement and ends at the stop, whatever came with it.
  const path = [{ x: from.x, y: from.y }, ...corners.slice(1, -1), { x: st.x, y: st.y }];
  return { x: st.x, y: st.y, status, path };
}

/**
 * Board.js's hint lines for a `hints` answer: from each placement along its direction, to where
 * its disc stops (`stop`) when the answer says so. The game and the practice room draw these.
 */
export function hintLines(board, seat, hints) {
  return hints.map((h, i) => {
    const shot = h.shot || {};
    const c = placement(board, seat, shot.position);
    const u = aimVector(board, seat, shot.position, shot.direction);
    const x = { ...h, rank: h.rank ?? i + 1 };
    return {
      rank: x.rank, x: c.x, y: c.y, ux: u.x, uy: u.y, power: shot.power,
      label: hintLabel(x, board), colour: HINT_COLOURS[i % HINT_COLOURS.length], stop: hintStop(h, c),
    };
  });
}

/** A refusal of a hint or a heat map, in plain words. */
export function refusalWords(code, message) {
  const said = typeof message === "string" && message.trim() ? message.trim() : "";
  const sentence = (t) => {
    const x = t.charAt(0).toUpperCase() + t.slice(1);
    return /[.!?]$/.test(x) ? x : `${x}.`;
  };
  if (code === "no_hints") return sentence(said || "hints are off at this table");
  if (code === "busy") return "The server is still working on your last request: wait a moment and ask again.";
  if (code === "no_accuracy") {
    return sentence(said || "play the open-20 drill first: your accuracy is measured from it")
      + " Until then, choose another accuracy.";
  }
  if (code === "not_your_turn") return "Hints are for your turn: wait until it is yours.";
  if (code === "not_your_seat") return "Hints are for your own seat.";
  return sentence(said || "the server could not work that out");
}

/** The heat map's scale in words for its legend: ["−3 pts", "0 pts", "+8 pts"] or percentages. */
export function legendTicks(map) {
  const sc = heatScale(map);
  if (map.metric === "points") return sc.ticks.map((v) => `${signedPoints(v)} pts`);
  return sc.ticks.map((v) => percent(v));
}

// ------------------------------------------------------------------ the panel

const H = {
  hooks: null,
  key: "", // the turn the things below belong to
  hints: null, // {seat, accuracy, list}
  showHints: false,
  held: false, // the H key is down
  heatOn: false,
  heat: null, // the `heatmap` answer
  pending: null, // {kind, key, at, position}
  again: false, // a heat map is wanted again once the pending answer is in
  timer: null,
  status: "",
  bad: false,
};

/**
 * Wire the panel. `hooks`: {state() -> S, shooter() -> seat|null, canInput() -> bool,
 * send(msg) -> bool (the raw socket), appPending() -> bool, aimOf(seat), problemAt(seat, position),
 * setMessage(text, bad), refresh(), inGame() -> bool}.
 */
export function wireHints(hooks) {
  H.hooks = hooks;
  $("hint-button").addEventListener("click", () => {
    if (H.showHints && H.hints) {
      H.showHints = false;
      hooks.refresh();
      return;
    }
    askHints();
  });
  $("heat-button").addEventListener("click", () => {
    if (H.heatOn) {
      H.heatOn = false;
      H.heat = null;
      H.again = false;
      setStatus("");
      hooks.refresh();
      return;
    }
    H.heatOn = true;
    askHeat();
  });
  for (const id of ["heat-metric", "heat-accuracy"]) {
    $(id).addEventListener("change", () => {
      if (H.heatOn) askHeat();
    });
  }
  $("heat-chart").addEventListener("click", chartClick);
  document.addEventListener("keydown", onKey);
  document.addEventListener("keyup", onKeyUp);
  window.addEventListener("blur", () => {
    if (H.held) {
      H.held = false;
      H.showHints = false;
      hooks.refresh();
    }
  });
  setInterval(() => {
    if (H.pending && performance.now() - H.pending.at > ANSWER_WAIT_MS) {
      H.pending = null;
      H.again = false;
      setStatus("No answer came from the server: ask again.", true);
      hooks.refresh();
    }
  }, 2000);
}

function setStatus(text, bad = false) {
  H.status = text;
  H.bad = bad;
}

/** The seat that may ask now, or null. */
function askingSeat() {
  const h = H.hooks;
  const s = h.state();
  const seat = h.shooter();
  if (!seat || !hintsAllowed(s) || !h.canInput()) return null;
  return seat;
}

function askHints() {
  const seat = askingSeat();
  if (!seat) return;
  const s = H.hooks.state();
  H.showHints = true;
  if (H.hints && H.hints.seat === seat) {
    H.hooks.refresh();
    return;
  }
  if (H.pending) {
    setStatus("Still working out the last request…");
    H.hooks.refresh();
    return;
  }
  if (!H.hooks.send({ type: "hint", table: s.table, seat })) return;
  H.pending = { kind: "hint", key: turnKey(s), at: performance.now() };
  setStatus("Working out the best shots…");
  H.hooks.refresh();
}

function askHeat() {
  clearTimeout(H.timer);
  const seat = askingSeat();
  if (!seat || !H.heatOn) return;
  if (H.pending) {
    H.again = true;
    return;
  }
  const s = H.hooks.state();
  const position = round(H.hooks.aimOf(seat).position, 2);
  if (H.hooks.problemAt(seat, position)) {
    setStatus("Place your disc on a free spot first: the heat map starts from it.", true);
    H.hooks.refresh();
    return;
  }
  const msg = {
    type: "heatmap", table: s.table, seat, position,
    metric: $("heat-metric").value, accuracy: $("heat-accuracy").value,
  };
  if (!H.hooks.send(msg)) return;
  H.pending = { kind: "heatmap", key: turnKey(s), at: performance.now(), position };
  setStatus("Working out the heat map…");
  H.hooks.refresh();
}

/** A `hints` or `heatmap` answer; true when it was one (app.js passes every message). */
export function hintAnswer(msg) {
  if (!msg || (msg.type !== "hints" && msg.type !== "heatmap")) return false;
  const s = H.hooks.state();
  const wanted = H.pending;
  H.pending = null;
  const current = msg.table === s.table && wanted && wanted.key === turnKey(s) && msg.seat === H.hooks.shooter();
  if (!current) {
    // The turn moved on while it was worked out: an answer to an old position is dropped.
    H.again = false;
    setStatus("");
    H.hooks.refresh();
    return true;
  }
  setStatus("");
  // "Still working" is said no more once the answer is in (unless something else was said since).
  if ($("message").textContent === refusalWords("busy")) H.hooks.setMessage("");
  if (msg.type === "hints") {
    const list = Array.isArray(msg.hints) ? msg.hints.filter((h) => h && h.shot).slice(0, 3) : [];
    H.hints = { seat: msg.seat, accuracy: msg.accuracy, list };
    if (!list.length) setStatus("No hint for this position: no shot is worth suggesting.", true);
  } else if (H.heatOn && validMap(msg)) {
    H.heat = msg;
  }
  if (H.again) {
    H.again = false;
    askHeat();
  }
  H.hooks.refresh();
  return true;
}

function validMap(m) {
  return Array.isArray(m.directions) && Array.isArray(m.powers) && Array.isArray(m.travel) && Array.isArray(m.values)
    && m.values.length === m.powers.length && m.travel.length === m.powers.length && m.directions.length > 0
    && m.values.every((row) => Array.isArray(row) && row.length === m.directions.length);
}

/**
 * A refusal that answers a hint or heat map; true when taken here. `no_hints` and `no_accuracy`
 * are only ever that; another code is, while one is awaited and nothing else is.
 */
export function hintRefused(msg) {
  if (!msg || msg.type !== "error") return false;
  const own = msg.code === "no_hints" || msg.code === "no_accuracy";
  if (!own && !(H.pending && !H.hooks.appPending())) return false;
  const words = refusalWords(msg.code, msg.message);
  if (msg.code === "busy" && H.pending) {
    // This page sends one request at a time: the one under way is still to be answered.
    setStatus(words, true);
    H.hooks.setMessage(words, true);
    H.hooks.refresh();
    return true;
  }
  const was = H.pending;
  H.pending = null;
  H.again = false;
  // Hints off: the map goes. Another refusal keeps the choices open to pick again ("mine"
  // without drills: another accuracy), without a map drawn for choices it does not show.
  if (msg.code === "no_hints") H.heatOn = false;
  if (msg.code === "no_accuracy") H.heat = null;
  if (was && was.kind === "hint") H.showHints = false;
  setStatus(words, true);
  H.hooks.setMessage(words, true);
  H.hooks.refresh();
  return true;
}

/** The player shot (or the turn moved on): the lines and the map go. */
export function clearHints() {
  H.hints = null;
  H.showHints = false;
  H.heatOn = false;
  H.heat = null;
  H.again = false;
  clearTimeout(H.timer);
  if (!H.pending) setStatus("");
}

/** Keep the panel in step with the table: a new turn forgets the last turn's answers. */
function sync(s) {
  const key = turnKey(s);
  if (key !== H.key) {
    H.key = key;
    clearHints();
  }
  const seat = H.hooks.shooter();
  if (H.heatOn && H.heat && seat && !H.pending) {
    const pos = round(H.hooks.aimOf(seat).position, 2);
    if (Math.abs(pos - H.heat.position) > 0.05) {
      clearTimeout(H.timer);
      H.timer = setTimeout(askHeat, HEAT_AGAIN_MS);
    }
  }
}

/** What board.js draws for `seat` now: {hints: [...] | null, heat: fan | null}. */
export function hintScene(s, seat) {
  const out = { hints: null, heat: null };
  if (!seat || !s.game || !hintsAllowed(s)) return out;
  if (H.showHints && H.hints && H.hints.seat === seat && H.hints.list.length) out.hints = hintLines(s.game.board, seat, H.hints.list);
  if (H.heatOn && H.heat && H.heat.seat === seat) out.heat = heatFan(s.game.board, seat, H.heat);
  return out;
}

/** Draw the panel from the state (app.js calls it on every refresh of the game screen). */
export function renderHints(s) {
  const h = H.hooks;
  sync(s);
  const panel = $("aids");
  const playing = Boolean(s.game) && s.game.phase !== "game_over" && s.stage !== "closed";
  panel.hidden = !hintsAllowed(s) || !playing;
  const chartBox = $("heat-chart-box");
  if (panel.hidden) {
    chartBox.hidden = true;
    return;
  }
  const seat = h.shooter();
  const live = Boolean(askingSeat());
  const hintBtn = $("hint-button");
  const shown = H.showHints && Boolean(H.hints);
  hintBtn.disabled = !live && !shown;
  hintBtn.textContent = shown ? "Hide hints" : "Hint";
  hintBtn.setAttribute("aria-pressed", String(shown));
  const heatBtn = $("heat-button");
  heatBtn.disabled = !live && !H.heatOn;
  heatBtn.setAttribute("aria-pressed", String(H.heatOn));
  $("heat-options").hidden = !H.heatOn;
  const map = H.heatOn ? H.heat : null;
  $("heat-legend").hidden = !map;
  chartBox.hidden = !map;
  if (map) {
    renderLegend(map);
    renderChart(map, seat ? h.aimOf(seat) : null);
  }
  const list = $("hint-list");
  list.hidden = !shown;
  if (shown) renderList(H.hints);
  let status = H.status;
  if (!status && !seat) status = "Hints and the heat map are for your turn.";
  const line = $("aid-status");
  line.textContent = status;
  line.classList.toggle("status-bad", H.bad && Boolean(H.status));
}

/**
 * The hint list, one view for the game and the practice room: in `box` (a .hint-list holding
 * a .hint-list-title and an <ol class="hint-items">), the title (none when empty) and one item
 * per hint: its numbered chip in its line's colour, the hint in words, its exact figures (a
 * small line, and the item's title) and "Aim like this", which calls `onUse(hint)` (each hint
 * with its rank). `board` (the snapshot's) lets the words name the zone a disc stops in.
 */
export function renderHintList(box, hints, { title = "", onUse, board = null }) {
  const head = box.querySelector(".hint-list-title");
  head.textContent = title;
  head.hidden = !title;
  const items = hints.map((h, i) => {
    const x = { ...h, rank: h.rank ?? i + 1 };
    const li = el("li", `hint-item hint-${i + 1}`);
    li.dataset.testid = "hint-item";
    const numbers = hintNumbers(x);
    li.title = numbers;
    const chip = el("span", "hint-chip", String(x.rank));
    chip.setAttribute("aria-hidden", "true");
    const text = el("span", "hint-text");
    const figures = el("span", "hint-numbers", numbers);
    figures.dataset.testid = "hint-numbers";
    text.append(el("b", "hint-say", hintWords(x, board)), figures);
    const use = el("button", "hint-use", "Aim like this");
    use.type = "button";
    use.setAttribute("aria-label", `Aim like hint ${x.rank}`);
    use.dataset.testid = `hint-use-${i + 1}`;
    use.addEventListener("click", () => onUse(x));
    li.append(chip, text, use);
    return li;
  });
  box.querySelector(".hint-items").replaceChildren(...items);
}

let listKey = "";
function renderList(hints) {
  const key = JSON.stringify(hints);
  if (key === listKey) return;
  listKey = key;
  const s = H.hooks.state();
  const board = s.game ? s.game.board : null;
  renderHintList($("hint-list"), hints.list, { title: `The Expert's best shots for ${accuracyWords(hints.accuracy)}:`, onUse: useHint, board });
}

function useHint(x) {
  const seat = askingSeat();
  if (!seat) return;
  const a = H.hooks.aimOf(seat);
  a.position = round(x.shot.position, 2);
  a.direction = round(x.shot.direction, 2);
  a.power = round(x.shot.power, 1);
  H.hooks.setMessage(`Aimed like hint ${x.rank}: press Shoot to play it.`);
  H.hooks.refresh();
}

let legendKey = "";
function renderLegend(map) {
  const key = JSON.stringify([map.metric, map.accuracy, map.position, map.values.length, heatScale(map).max]);
  if (key === legendKey) return;
  legendKey = key;
  const sc = heatScale(map);
  const bar = $("heat-bar");
  const g = bar.getContext("2d");
  const w = bar.width;
  for (let x = 0; x < w; x += 1) {
    const [r, gg, b] = sc.colour(sc.min + ((sc.max - sc.min) * (x + 0.5)) / w);
    g.fillStyle = `rgb(${r}, ${gg}, ${b})`;
    g.fillRect(x, 0, 1, bar.height);
  }
  const [lo, mid, hi] = legendTicks(map);
  $("heat-lo").textContent = lo;
  $("heat-mid").textContent = mid;
  $("heat-hi").textContent = hi;
  const what = { points: "Expected points after the shot", twenty: "Chance of a 20", valid: "Chance of a valid shot" }[map.metric] || METRICS[map.metric];
  $("heat-title").textContent = `${what}, with ${accuracyWords(map.accuracy)}, from ${round(map.position, 1).toFixed(1)}°`;
  const best = map.best || {};
  $("heat-best").textContent = Number.isFinite(best.direction)
    ? `Best cell: aim ${round(best.direction, 1).toFixed(1)}°, power ${Math.round(best.power)}%.`
    : "";
  bar.setAttribute("aria-label", `Colour scale from ${lo} to ${hi}`);
}

/** The direction × power chart: the same cells as on the board, square; the aim as a ring. */
let chartKey = "";
let chartImage = null;
function renderChart(map, aim) {
  const c = $("heat-chart");
  const cssW = Math.max(120, Math.round(c.getBoundingClientRect().width || 200));
  const cssH = Math.round(cssW * 0.45);
  const dpr = Math.max(1, Math.min(window.devicePixelRatio || 1, 3));
  const key = JSON.stringify([map.metric, map.accuracy, map.position, map.values[0], map.values.length, cssW, dpr]);
  const g = c.getContext("2d");
  if (key !== chartKey || !chartImage) {
    chartKey = key;
    c.width = Math.round(cssW * dpr);
    c.height = Math.round(cssH * dpr);
    c.style.height = `${cssH}px`;
    const sc = heatScale(map);
    const rows = map.values.length;
    const cols = map.directions.length;
    const img = g.createImageData(cols, rows);
    for (let i = 0; i < rows; i += 1) {
      for (let j = 0; j < cols; j += 1) {
        const [r, gg, b] = sc.colour(map.values[i][j]);
        const k = ((rows - 1 - i) * cols + j) * 4; // power upward
        img.data.set([r, gg, b, 255], k);
      }
    }
    const small = document.createElement("canvas");
    small.width = cols;
    small.height = rows;
    small.getContext("2d").putImageData(img, 0, 0);
    chartImage = small;
  }
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.imageSmoothingEnabled = false;
  g.clearRect(0, 0, c.width, c.height);
  g.drawImage(chartImage, 0, 0, c.width, c.height);
  if (aim) {
    const d = map.directions;
    const p = map.powers;
    const x = ((aim.direction - d[0]) / (d[d.length - 1] - d[0] || 1)) * c.width;
    const y = c.height - ((aim.power - p[0]) / (p[p.length - 1] - p[0] || 1)) * c.height;
    if (x >= -4 && x <= c.width + 4) {
      g.beginPath();
      g.arc(x, y, 5 * dpr, 0, Math.PI * 2);
      g.lineWidth = 2.5 * dpr;
      g.strokeStyle = "#fff";
      g.stroke();
      g.lineWidth = 1.2 * dpr;
      g.strokeStyle = "#111";
      g.stroke();
    }
  }
  const d = map.directions;
  $("heat-chart-axes").textContent = `Direction ${round(d[0], 0)}° to ${round(d[d.length - 1], 0)}° across, power ${round(map.powers[0], 0)}% to ${round(map.powers[map.powers.length - 1], 0)}% up.`;
}

function chartClick(ev) {
  const map = H.heatOn ? H.heat : null;
  const seat = askingSeat();
  if (!map || !seat) return;
  const r = ev.currentTarget.getBoundingClientRect();
  const fx = Math.min(1, Math.max(0, (ev.clientX - r.left) / r.width));
  const fy = Math.min(1, Math.max(0, 1 - (ev.clientY - r.top) / r.height));
  const d = map.directions;
  const p = map.powers;
  const a = H.hooks.aimOf(seat);
  a.direction = round(d[0] + fx * (d[d.length - 1] - d[0]), 1);
  a.power = round(p[0] + fy * (p[p.length - 1] - p[0]), 0);
  H.hooks.refresh();
}

function typing(t) {
  const tag = t && t.tagName;
  return tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && TYPING.has(t.type));
}

/** Hold H: the hints show while it is down (asked for on the first press of the turn). */
function onKey(ev) {
  if (ev.key !== "h" && ev.key !== "H") return;
  if (ev.ctrlKey || ev.metaKey || ev.altKey || !H.hooks.inGame() || anyModalOpen() || typing(ev.target)) return;
  ev.preventDefault();
  if (ev.repeat || H.held) return;
  if (!askingSeat()) return;
  H.held = true;
  askHints();
}

function onKeyUp(ev) {
  if ((ev.key !== "h" && ev.key !== "H") || !H.held) return;
  H.held = false;
  H.showHints = false;
  H.hooks.refresh();
}

/** For tests: what the panel holds (read-only copies). */
export function hintModel() {
  return JSON.parse(JSON.stringify({
    shown: H.showHints && Boolean(H.hints), hints: H.hints ? H.hints.list : null,
    heatOn: H.heatOn, heat: H.heat ? { position: H.heat.position, metric: H.heat.metric, accuracy: H.heat.accuracy, rows: H.heat.values.length, columns: H.heat.directions.length } : null,
    pending: H.pending ? H.pending.kind : null, status: H.status,
  }));
}

// The view convention (static/README.md): wire(hooks) once, render(state) on each change.
export { renderHints as render, wireHints as wire };
