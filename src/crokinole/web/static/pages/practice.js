// The practice room (/practice): set up any position of discs (yours south, theirs north),
// shoot from your line with the board and controls of play (POST /api/practice/shoot, the
// steady hand, so the same shot always does the same), undo, retry the last shot exactly, ask
// for the Expert's hints or an aim heat map (POST /api/analysis/hints, /api/analysis/heatmap),
// and share the position as a link (/practice?p=CODE, the code made here as the server makes it).

import { markSvg } from "../views/board.js";
import { fetchJson } from "../lib/api.js";
import { $, escapeHtml } from "../lib/dom.js";
import { accuracyWords, renderHintList } from "../views/hints.js";
import {
  MINE, MOST_ON_BOARD, THEIRS, countOf, percent, positionCode, positionFromCode, positionFromJson, positionJson, signed,
  snapshotOf, southView,
} from "../lib/position.js";
import * as B from "../views/practiceboard.js";

const params = new URLSearchParams(location.search);
const UNDO_LIMIT = 200;

const P = {
  undo: [], // earlier states, newest last: {pos, aim, what}
  last: null, // the last shot: {before: position, shot: {position, direction, power}}
  pending: null, // the analysis request under way ("hint" | "heatmap")
  heatOn: false,
  shots: 0, // shots played and shown on this page
};

function snapshotNow() {
  return { pos: B.currentPosition(), aim: B.aim() };
}

function pushUndo(what) {
  P.undo.push({ ...snapshotNow(), what });
  if (P.undo.length > UNDO_LIMIT) P.undo.shift();
}

// ------------------------------------------------------------------ shooting

async function onShoot(shot) {
  const before = B.currentPosition();
  B.setMessage("Shooting…");
  const answer = await B.shootOnServer({ position: positionJson(before), shot }, {
    noPosition: "The server's answer held no position: the shot is not shown.",
  });
  if (!answer) return;
  P.undo.push({ pos: before, aim: { ...shot }, what: "shot" });
  P.last = { before, shot: { ...shot } };
  B.setMessage("");
  await B.animateShot(answer.after, answer.trajectory, answer.board);
  B.setBusy(false);
  showResult(answer.report, answer.summary, before);
  P.shots += 1;
  render();
}

/** "Your round margin: −5 → +15 (+20 points)." from the report's margins (R6, 20s included). */
function marginWords(report) {
  if (!report || !Number.isFinite(report.margin_before) || !Number.isFinite(report.margin_after)) return "";
  const gain = report.margin_after - report.margin_before;
  return `Your round margin: ${signed(report.margin_before, 0)} → ${signed(report.margin_after, 0)} (${signed(gain, 0)} point${Math.abs(gain) === 1 ? "" : "s"}).`;
}

function showResult(report, summary, before) {
  const words = `${B.shotSentence(report, summary, before)} ${marginWords(summary)}`.trim();
  const valid = !(report && report.valid === false) && !(summary && summary.valid === false);
  const e = $("shot-result");
  e.textContent = words;
  e.classList.toggle("status-bad", !valid);
  e.classList.remove("note");
}

function undo() {
  const s = P.undo.pop();
  if (!s) return;
  B.setPosition(s.pos);
  if (s.what === "shot") B.setAim(s.aim);
  B.setMessage(s.what === "shot" ? "Shot undone: the discs are back where they were, with its aim." : "Change undone.");
  clearAnalysis();
  render();
}

/** Back to before the last shot with its exact placement, aim and power: change anything, or shoot. */
function retry() {
  if (!P.last) return;
  pushUndo("retry");
  B.setMode("shoot");
  B.setPosition(P.last.before);
  B.setAim(P.last.shot);
  const s = P.last.shot;
  B.setMessage(`Back to before your last shot, with the same placement (${s.position.toFixed(1)}°), direction (${s.direction.toFixed(1)}°) and power (${s.power.toFixed(1)}%). Change anything, or shoot.`);
  clearAnalysis();
  render();
}

// ------------------------------------------------------------------ hints and the heat map

function accuracy() {
  return $("accuracy-select").value;
}

function clearAnalysis() {
  B.setHints(null);
  B.setHeatMap(null);
  P.heatOn = false;
  $("hint-list").hidden = true;
  renderHintList($("hint-list"), [], { onUse: () => {} });
  $("heat-legend").hidden = true;
  $("heat-legend").innerHTML = "";
  $("heatmap-button").setAttribute("aria-pressed", "false");
}

async function askHints() {
  if (P.pending || B.isAnimating()) return;
  const pos = B.currentPosition();
  if (countOf(pos, MINE) > MOST_ON_BOARD || countOf(pos, THEIRS) > MOST_ON_BOARD) {
    B.setMessage("A side has all 12 of its discs on the board: take one off for a shot to hint at.", true);
    return;
  }
  P.pending = "hint";
  render();
  B.setMessage("Asking the Expert…");
  const body = { position: positionJson(B.currentPosition()), accuracy: accuracy() };
  const r = await fetchJson("/api/analysis/hints", { method: "POST", body, token: true });
  P.pending = null;
  if (!r.ok) {
    B.setMessage(`No hint: ${r.reason}`, true);
    render();
    return;
  }
  const hints = Array.isArray(r.body.hints) ? r.body.hints : [];
  B.setHints(hints);
  showHintList(hints);
  B.setMessage(hints.length ? `The Expert's ${hints.length === 1 ? "best shot" : `best ${hints.length} shots`} here, under ${accuracyWords(accuracy())}. Press "Aim like this" to aim one.` : "The Expert found no shot here.");
  render();
}

/** Degrees with one decimal and a real minus sign: "−7.6°". */
function deg(v) {
  return `${Number(v).toFixed(1).replace("-", "−")}°`;
}

function showHintList(hints) {
  const list = $("hint-list");
  renderHintList(list, hints, {
    onUse: (h) => {
      B.setMode("shoot");
      B.setAim(h.shot);
      B.setMessage(`Aimed like hint ${h.rank}: press Shoot to play it.`);
      render();
    },
  });
  list.hidden = hints.length === 0;
}

async function toggleHeat() {
  if (P.heatOn) {
    B.setHeatMap(null);
    P.heatOn = false;
    $("heat-legend").hidden = true;
    $("heatmap-button").setAttribute("aria-pressed", "false");
    render();
    return;
  }
  await askHeat();
}

async function askHeat() {
  if (P.pending || B.isAnimating()) return;
  P.pending = "heatmap";
  render();
  B.setMessage("Working out the heat map…");
  const a = B.aim();
  const body = {
    position: positionJson(B.currentPosition()), position_deg: Math.round(a.position * 100) / 100,
    metric: $("metric-select").value, accuracy: accuracy(),
  };
  const r = await fetchJson("/api/analysis/heatmap", { method: "POST", body, token: true });
  P.pending = null;
  if (!r.ok || !Array.isArray(r.body.values)) {
    B.setMessage(`No heat map: ${r.reason || "the server's answer held none."}`, true);
    render();
    return;
  }
  const map = r.body;
  B.setMode("shoot");
  B.setHeatMap(map);
  P.heatOn = true;
  $("heatmap-button").setAttribute("aria-pressed", "true");
  showLegend(map);
  B.setMessage(`Heat map from your placement at ${deg(map.position)}: each cell is a direction (across) and a power (outward), drawn where a lone disc would stop on an empty board.`);
  render();
}

const METRIC_WORDS = {
  points: "Expected round margin after the shot (points)",
  twenty: "Chance of a 20",
  valid: "Chance of a valid shot",
};

function tickText(map, v) {
  return map.metric === "points" ? signed(v, 0) : percent(v);
}

function showLegend(map) {
  const scale = B.heatLegendScale(map);
  const stops = [];
  for (let i = 0; i <= 10; i += 1) {
    const v = scale.min + ((scale.max - scale.min) * i) / 10;
    stops.push(`<stop offset="${i / 10}" stop-color="${scale.colour(v)}"/>`);
  }
  const best = map.best;
  const id = `heat-grad-${Date.now()}`;
  // Each tick where its value lies on the bar (0 is off the middle when the map is lopsided).
  const ticks = scale.ticks.map((v, i) => {
    const x = (scale.max > scale.min ? (v - scale.min) / (scale.max - scale.min) : 0.5) * 100;
    const anchor = i === 0 ? "start" : i === scale.ticks.length - 1 ? "end" : "middle";
    // A middle tick too near an end would print over it: left out.
    if (anchor === "middle" && (x < 14 || x > 86)) return "";
    return `<text x="${x}%" y="34" text-anchor="${anchor}" class="tick">${escapeHtml(tickText(map, v))}</text>`;
  }).join("");
  $("heat-legend").innerHTML = `
    <p class="legend-title">${escapeHtml(METRIC_WORDS[map.metric] || map.metric)}, ${escapeHtml(accuracyWords(map.accuracy || accuracy()))}</p>
    <svg class="legend-bar" width="100%" height="40" role="img" aria-label="Colour scale from ${escapeHtml(tickText(map, scale.min))} to ${escapeHtml(tickText(map, scale.max))}">
      <defs><linearGradient id="${id}" x1="0" x2="1" y1="0" y2="0">${stops.join("")}</linearGradient></defs>
      <rect x="0" y="2" width="100%" height="18" rx="4" fill="url(#${id})" stroke="currentColor" stroke-opacity="0.3"/>
      ${ticks}
    </svg>
    ${best ? `<p class="legend-best">Best cell: aim ${deg(best.direction)}, power ${Math.round(Number(best.power))}% <button type="button" id="use-best" data-testid="use-best">Aim there</button></p>` : ""}`;
  $("heat-legend").hidden = false;
  const use = $("use-best");
  if (use) {
    use.addEventListener("click", () => {
      B.setAim({ position: best.position ?? map.position, direction: best.direction, power: best.power });
      B.setMessage("Aimed at the heat map's best cell: shoot, or change it first.");
      render();
    });
  }
}

// ------------------------------------------------------------------ sharing

function shareLink() {
  return `${location.origin}/practice?p=${positionCode(B.currentPosition())}`;
}

async function share() {
  const link = shareLink();
  history.replaceState(null, "", link.slice(location.origin.length));
  const button = $("share-button");
  try {
    await navigator.clipboard.writeText(link);
    button.textContent = "Link copied";
    B.setMessage(`Link to this position copied: ${link}`);
  } catch {
    B.setMessage(`Copy this link to share the position: ${link}`);
    window.prompt("Copy this link:", link); // no clipboard (insecure origin): show it
  }
  setTimeout(() => { button.textContent = "Share"; }, 2500);
}

// ------------------------------------------------------------------ the page

function render() {
  const mode = B.mode();
  const pos = B.currentPosition();
  $("mode-edit").setAttribute("aria-pressed", String(mode === "edit"));
  $("mode-shoot").setAttribute("aria-pressed", String(mode === "shoot"));
  $("editor").hidden = mode !== "edit";
  $("controls").hidden = mode !== "shoot";
  const mine = countOf(pos, MINE);
  const theirs = countOf(pos, THEIRS);
  $("disc-count").textContent = `On the board: ${mine} of yours, ${theirs} of theirs.`;
  const moving = B.isAnimating();
  $("undo-button").disabled = !P.undo.length || moving;
  $("retry-button").disabled = !P.last || moving;
  $("hint-button").disabled = Boolean(P.pending) || moving;
  $("heatmap-button").disabled = Boolean(P.pending) || moving;
  $("hint-button").textContent = P.pending === "hint" ? "Thinking…" : "Hint";
  $("clear-button").disabled = pos.discs.length === 0;
  renderDiscList(pos);
}

/** The number in field `id` when it lies from `low` to `high`; else null. */
function fieldIn(id, low, high) {
  const text = $(id).value.trim();
  const value = Number(text);
  return text !== "" && Number.isFinite(value) && value >= low && value <= high ? value : null;
}

/**
 * The editor's form: a disc of the chosen side placed by its distance from the centre (inches)
 * and a clock direction seen from your seat (12 the far side, 3 your right). A disc placed
 * redraws the page (onEdit); a refusal is only said.
 */
function placeByNumbers() {
  const distance = fieldIn("place-distance", 0, 12);
  const clock = fieldIn("place-clock", 0, 12);
  if (distance === null) {
    B.setMessage("Give the distance from the centre in inches, from 0 to 12.", true);
    return;
  }
  if (clock === null) {
    B.setMessage("Give the direction as an hour on a clock, from 0 to 12 (12 is the far side).", true);
    return;
  }
  const angle = (clock / 12) * 2 * Math.PI;
  const who = document.querySelector("input[name=who]:checked").value;
  B.placeDisc(who, distance * Math.sin(angle), distance * Math.cos(angle));
}

function renderDiscList(pos) {
  const list = $("disc-list");
  list.innerHTML = "";
  if (!pos.discs.length) {
    const li = document.createElement("li");
    li.className = "note";
    li.textContent = "No discs: tap the board to place some.";
    list.append(li);
    return;
  }
  pos.discs.forEach(([who, x, y], i) => {
    const li = document.createElement("li");
    const text = document.createElement("span");
    text.textContent = `${who === MINE ? "Your" : "Their"} disc ${B.whereWords(x, y)}`;
    const rm = document.createElement("button");
    rm.type = "button";
    rm.textContent = "Remove";
    rm.setAttribute("aria-label", `Remove ${text.textContent.charAt(0).toLowerCase()}${text.textContent.slice(1)}`);
    rm.addEventListener("click", () => B.removeDisc(i));
    li.append(text, rm);
    list.append(li);
  });
}

function setMode(m) {
  B.setMode(m);
  B.setMessage(m === "edit"
    ? "Setting up: tap an empty spot to place a disc, drag a disc to move it, tap a disc to remove it."
    : "Your shot: tap your part of the shooting line to place the disc, press on it and pull back to shoot.");
  render();
}

function loadFromLink() {
  const code = params.get("p");
  if (!code) return false;
  try {
    const pos = positionFromCode(code);
    B.setPosition(southView(pos));
    B.setMessage(pos.seat === "north"
      ? "Position loaded from the link, turned so that the shooter (north in the game) sits at the bottom: your discs are the shooter's. Set up discs to change it, or shoot."
      : "Position loaded from the link. Set up discs to change it, or shoot.");
    return true;
  } catch (e) {
    B.setMessage(e.message, true);
    return false;
  }
}

function start() {
  const game = snapshotOf({ discs: [] });
  $("mine-mark").outerHTML = markSvg(game, 0, 18);
  $("theirs-mark").outerHTML = markSvg(game, 1, 18);
  B.startBoard({
    onShoot,
    legend: () => "Your shot (south)",
    beforeEdit: () => pushUndo("edit"),
    onEdit: () => {
      clearAnalysis();
      render();
    },
    onRefresh: () => render(),
  });
  const loaded = loadFromLink();
  B.setMode(loaded ? "shoot" : "edit");
  if (!loaded && !params.get("p")) B.setMessage("Set up the discs you want to practise against: tap an empty spot to place one. Then choose Shoot.");
  $("mode-edit").addEventListener("click", () => setMode("edit"));
  $("mode-shoot").addEventListener("click", () => setMode("shoot"));
  $("place-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    placeByNumbers();
  });
  for (const r of document.querySelectorAll("input[name=who]")) {
    r.addEventListener("change", () => B.setPlacing(document.querySelector("input[name=who]:checked").value));
  }
  $("clear-button").addEventListener("click", () => {
    if (!B.currentPosition().discs.length) return;
    pushUndo("edit");
    B.setPosition({ discs: [] });
    clearAnalysis();
    B.setMessage("Board cleared.");
    render();
  });
  $("undo-button").addEventListener("click", undo);
  $("retry-button").addEventListener("click", retry);
  $("hint-button").addEventListener("click", askHints);
  $("heatmap-button").addEventListener("click", toggleHeat);
  $("metric-select").addEventListener("change", () => { if (P.heatOn) askHeat(); });
  $("accuracy-select").addEventListener("change", () => {
    if (P.heatOn) askHeat();
    else if (B.hints()) askHints();
  });
  $("share-button").addEventListener("click", share);
  document.addEventListener("keydown", (ev) => {
    const tag = ev.target && ev.target.tagName;
    if (tag === "INPUT" || tag === "SELECT" || tag === "TEXTAREA") return;
    if ((ev.ctrlKey || ev.metaKey) && ev.key.toLowerCase() === "z") {
      ev.preventDefault();
      undo();
    } else if (!ev.ctrlKey && !ev.metaKey && !ev.altKey && ev.key.toLowerCase() === "h" && !ev.repeat) {
      askHints();
    }
  });
  render();
}

start();

// For the browser tests: where the practice room stands.
window.crokinolePractice = {
  position: () => B.currentPosition(),
  aim: () => B.aim(),
  mode: () => B.mode(),
  get animating() { return B.isAnimating(); },
  get shots() { return P.shots; },
  get busy() { return Boolean(P.pending) || B.isAnimating() || $("controls").disabled; },
  last: () => (P.last ? { before: P.last.before, shot: { ...P.last.shot } } : null),
  toPage: (x, y) => B.toPage(x, y),
  overlay: () => B.overlay(),
  code: () => positionCode(B.currentPosition()),
};
