// The board of the practice room and the drills: board.js draws it, input.js and controls.js
// aim and shoot as in play (south shoots), anim.js animates a shot's trajectory. On top of that:
// the disc editor (tap an empty spot to place a disc, drag one to move it, tap one to remove
// it), the hint lines and the heat map fan over the board.
//
// The page holds the same elements as the game screen: canvas#board, #message and the
// fieldset#controls of index.html (controls.js and input.js find them by id).

import { ShotAnimation } from "./anim.js";
import { popShotTwenties, popTwenty } from "./pop.js";
import * as boardjs from "./board.js";
import { renderControls, wireControls } from "./controls.js";
import { fitBoard } from "./fit.js";
import { hintLines as hintsDrawn } from "./hints.js";
import { $ } from "../lib/dom.js";
import { SEAT_ANGLE, aimVector, clamp, compass, placement, round, zoneOf } from "../lib/geometry.js";
import { DEFAULT_POWER, aimProblem, cancelDrag, currentDrag, placementFeedback, wireInput } from "../lib/input.js";
import {
  BOARD, DISCS_PER_SIDE, MINE, MOST_ON_BOARD, THEIRS, countOf, placementLimit, positionFromJson, snapshotOf, spotProblem,
} from "../lib/position.js";
import { fetchJson } from "../lib/api.js";
import { play as playSound, setSoundEnabled } from "../lib/sound.js";
import { loadPrefs } from "../lib/store.js";
import { describeShot, viewerOf } from "../lib/words.js";

const SEAT = "south";
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
/** Colours of the hint lines, best first (each also numbered: never colour alone); board.js's win. */

const T = {
  board: BOARD,
  pos: { seat: SEAT, discs: [] },
  snapshot: null,
  aim: { position: 0, direction: 0, power: DEFAULT_POWER },
  mode: "shoot", // "shoot" | "edit" | "off"
  busy: false,
  placing: MINE, // what a tap places in the editor
  edit: null, // the editor's pointer in progress: {id, index, start, at, moved}
  hints: null, // [{rank, shot, margin, round_win, ...}] drawn as lines
  heat: null, // the heat map drawn as a fan
  heatFan: null, // {map, fan}: board.js's fan of `heat`, worked out once
  opts: null,
};

const { BoardView, setScheme } = boardjs;
const view = new BoardView($("board"));
const anim = new ShotAnimation({
  speed: 1, paused: () => false, onFrame: () => draw(), onSound: (name) => playSound(name),
  onTwenty: (drop, n) => popTwenty(view, drop, n),
});

export function currentPosition() {
  return { seat: SEAT, discs: T.pos.discs.map((d) => [...d]) };
}

export function aim() {
  return { ...T.aim };
}

export function board() {
  return T.board;
}

export function isAnimating() {
  return anim.running;
}

export function mode() {
  return T.mode;
}

export function setMessage(text, bad = false) {
  const m = $("message");
  m.textContent = text || "";
  m.classList.toggle("bad", Boolean(bad && text));
}

/** Show a position (new discs, the aim kept); drops hints and the heat map, which were of the old one. */
export function setPosition(pos, { keepAnalysis = false } = {}) {
  T.pos = { seat: SEAT, discs: pos.discs.map((d) => [...d]) };
  T.snapshot = snapshotOf(T.pos, T.board);
  if (!keepAnalysis) {
    T.hints = null;
    T.heat = null;
  }
  refresh();
}

export function setAim(a) {
  const lim = T.snapshot.placement_limit;
  if (a.position !== undefined) T.aim.position = clamp(Number(a.position), -lim, lim);
  if (a.direction !== undefined) T.aim.direction = clamp(Number(a.direction), -90, 90);
  if (a.power !== undefined) T.aim.power = clamp(Number(a.power), 0, 100);
  refresh();
}

export function setMode(m) {
  if (m === T.mode) return;
  cancelDrag();
  T.edit = null;
  T.mode = m;
  refresh();
}

export function setPlacing(who) {
  T.placing = who === THEIRS ? THEIRS : MINE;
}

export function setBusy(on) {
  T.busy = Boolean(on);
  refresh();
}

export function setHints(hints) {
  T.hints = hints && hints.length ? hints : null;
  requestDraw();
}

export function setHeatMap(map) {
  T.heat = map || null;
  requestDraw();
}

export function hints() {
  return T.hints;
}

export function heatMap() {
  return T.heat;
}

// ------------------------------------------------------------------ the shot on the line

/** What blocks the shot disc at `position` on south's quarter (R3), in words, or null. */
function problemAt(seat, position) {
  const lim = T.snapshot.placement_limit;
  if (!Number.isFinite(position) || Math.abs(position) > lim + 1e-6) {
    return `the disc would cross the quadrant line (allowed −${lim.toFixed(1)}° to ${lim.toFixed(1)}°)`;
  }
  const c = placement(T.board, seat, position);
  for (const [who, x, y] of T.pos.discs) {
    if (Math.hypot(x - c.x, y - c.y) < 2 * T.board.disc_radius) {
      return `the disc would overlap ${who === MINE ? "one of your discs" : "one of their discs"}`;
    }
  }
  return null;
}

function canShoot() {
  return T.mode === "shoot" && !T.busy && !anim.running;
}

function shoot() {
  if (!canShoot()) return;
  const a = T.aim;
  const problem = aimProblem(problemAt, SEAT, a);
  if (problem) {
    setMessage(problem, true);
    return;
  }
  for (const who of [MINE, THEIRS]) {
    if (countOf(T.pos, who) > MOST_ON_BOARD) {
      setMessage(`${who === MINE ? "You have" : "They have"} ${countOf(T.pos, who)} discs on the board: a practice round has ${DISCS_PER_SIDE} a side, so take one off to shoot again.`, true);
      return;
    }
  }
  setMessage("");
  playSound("shoot");
  T.opts.onShoot({ position: round(a.position, 2), direction: round(a.direction, 2), power: round(a.power, 2) });
}

/**
 * Animate a shot from the position shown to the position `after`, along the server's
 * `trajectory`, then show `after`. `discs` (optional): the server's discs before the shot with
 * their game ids ([{id, owner, x, y}]), which the trajectory names; without them the ids are
 * the practice game's numbering (position.js discIds). Resolves when it is shown.
 */
export async function animateShot(after, trajectory, discs = null) {
  const before = Array.isArray(discs)
    ? { ...T.snapshot, discs: discs.map((d) => ({ ...d, side: d.owner === SEAT ? 0 : 1 })) }
    : T.snapshot;
  const next = snapshotOf(after, T.board);
  T.hints = null;
  T.heat = null;
  if (trajectory && Array.isArray(trajectory.discs) && !reducedMotion.matches && !document.hidden) {
    const shown = anim.play(before, { trajectory, game: next }, (owner) => (owner === SEAT ? 0 : 1));
    refresh();
    await shown;
  } else if (trajectory && reducedMotion.matches && !document.hidden) {
    popShotTwenties(view, { trajectory }); // no animation: the +20 still, at the hole
  }
  setPosition(after);
}

/**
 * Play a shot on the server (POST /api/practice/shoot with `body`: a position or a drill's set,
 * and the shot), the board busy meanwhile. Resolves to the answer with its position read
 * (`after`), or to null once the message has said why the shot was not played (`noPosition`:
 * the words when the answer held no position). When `stillWanted()` is false as the answer
 * comes (a drill stopped meanwhile), the answer is dropped without a word and the board left
 * as its new owner set it.
 */
export async function shootOnServer(body, { noPosition, stillWanted = () => true }) {
  setBusy(true);
  const r = await fetchJson("/api/practice/shoot", { method: "POST", body, token: true });
  if (!stillWanted()) return null;
  if (!r.ok) {
    setBusy(false);
    setMessage(`The shot was not played: ${r.reason}`, true);
    return null;
  }
  try {
    return { ...r.body, after: positionFromJson(r.body.position) };
  } catch {
    setBusy(false);
    setMessage(noPosition, true);
    return null;
  }
}

/**
 * A practice shot in the words of play ("Your disc went into the 20."): from its `report` (as
 * play's shot message has it) about the position `before`, or else the referee's sentence of
 * its `summary`.
 */
export function shotSentence(report, summary, before) {
  if (report && Array.isArray(report.discs)) {
    const game = snapshotOf(before, T.board, { south: "You", north: "the opponent" });
    return describeShot(report, viewerOf(game, [SEAT], false), SEAT);
  }
  if (summary && typeof summary.explain === "string" && summary.explain) return summary.explain;
  return "Shot played.";
}

// ------------------------------------------------------------------ the disc editor

function pointerBoard(ev) {
  const r = view.canvas.getBoundingClientRect();
  return view.toBoard(ev.clientX - r.left, ev.clientY - r.top);
}

/** The index of the disc under board point p, or -1. */
function discAt(p) {
  const grab = Math.max(T.board.disc_radius * 1.05, 12 / view.scale);
  let best = -1;
  let dist = Infinity;
  T.pos.discs.forEach(([, x, y], i) => {
    const k = Math.hypot(p.x - x, p.y - y);
    if (k <= grab && k < dist) {
      best = i;
      dist = k;
    }
  });
  return best;
}

function editDown(ev) {
  if (T.mode !== "edit" || T.busy || anim.running) return;
  if (ev.button !== 0 && ev.pointerType === "mouse") return;
  ev.preventDefault();
  $("board").focus({ preventScroll: true });
  const p = pointerBoard(ev);
  T.edit = { id: ev.pointerId, index: discAt(p), start: p, at: p, moved: false };
  view.canvas.setPointerCapture(ev.pointerId);
  requestDraw();
}

function editMove(ev) {
  const e = T.edit;
  if (!e || ev.pointerId !== e.id) return;
  ev.preventDefault();
  e.at = pointerBoard(ev);
  if (Math.hypot(e.at.x - e.start.x, e.at.y - e.start.y) * view.scale > 6) e.moved = true;
  requestDraw();
}

function editUp(ev) {
  const e = T.edit;
  if (!e || ev.pointerId !== e.id) return;
  ev.preventDefault();
  T.edit = null;
  if (view.canvas.hasPointerCapture(ev.pointerId)) view.canvas.releasePointerCapture(ev.pointerId);
  const p = pointerBoard(ev);
  if (e.index >= 0 && !e.moved) removeDisc(e.index);
  else if (e.index >= 0) moveDisc(e.index, p.x, p.y);
  else placeDisc(T.placing, p.x, p.y);
  refresh();
}

function changed(text) {
  setMessage(text);
  T.opts.onEdit();
}

/** Place a disc of `who` at (x, y); says why not when it may not lie there. Returns success. */
export function placeDisc(who, x, y) {
  const problem = spotProblem(T.board, T.pos.discs, x, y);
  if (problem) {
    setMessage(`Can't put a disc there: ${problem}.`, true);
    return false;
  }
  if (countOf(T.pos, who) >= MOST_ON_BOARD) {
    setMessage(who === MINE
      ? `You have ${MOST_ON_BOARD} discs on the board, the most you may set up: a practice round has ${DISCS_PER_SIDE} a side, and the last is the one you shoot.`
      : `They have ${MOST_ON_BOARD} discs on the board, the most you may set up: a practice round has ${DISCS_PER_SIDE} a side, and with all of theirs down their round would be over.`, true);
    return false;
  }
  T.opts.beforeEdit();
  T.pos.discs.push([who, round(x, 2), round(y, 2)]);
  T.snapshot = snapshotOf(T.pos, T.board);
  T.hints = null;
  T.heat = null;
  changed(`${who === MINE ? "Your" : "Their"} disc placed ${whereWords(x, y)}.`);
  return true;
}

export function moveDisc(index, x, y) {
  const problem = spotProblem(T.board, T.pos.discs, x, y, index);
  if (problem) {
    setMessage(`Can't move the disc there: ${problem}.`, true);
    return false;
  }
  T.opts.beforeEdit();
  T.pos.discs[index] = [T.pos.discs[index][0], round(x, 2), round(y, 2)];
  T.snapshot = snapshotOf(T.pos, T.board);
  T.hints = null;
  T.heat = null;
  changed(`Disc moved ${whereWords(x, y)}.`);
  return true;
}

export function removeDisc(index) {
  const [who] = T.pos.discs[index];
  T.opts.beforeEdit();
  T.pos.discs.splice(index, 1);
  T.snapshot = snapshotOf(T.pos, T.board);
  T.hints = null;
  T.heat = null;
  changed(`${who === MINE ? "Your" : "Their"} disc removed.`);
}

export function whereWords(x, y) {
  const z = zoneOf(T.board, x, y);
  const zone = z === 20 ? "over the hole" : z === 0 ? "on the shooting line" : `in the ${z} zone`;
  return `${zone}, ${compass(x, y)} of the centre`;
}

// ------------------------------------------------------------------ drawing

let drawQueued = false;
export function requestDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    if (!anim.running) draw();
  });
}

function draw() {
  if (!T.snapshot) return;
  const game = anim.running ? anim.game : T.snapshot;
  view.setBoard(T.board);
  const scene = { game };
  if (anim.running) Object.assign(scene, anim.scene());
  else scene.discs = T.snapshot.discs;
  if (!anim.running && T.mode === "edit" && T.edit) {
    const e = T.edit;
    if (e.index >= 0 && e.moved) {
      scene.discs = T.snapshot.discs.filter((d) => d.id !== e.index);
      const who = T.pos.discs[e.index][0];
      scene.ghost = { x: e.at.x, y: e.at.y, side: who === MINE ? 0 : 1, bad: spotProblem(T.board, T.pos.discs, e.at.x, e.at.y, e.index) !== null };
    }
  }
  if (!anim.running && T.mode === "shoot") {
    const live = canShoot();
    const a = T.aim;
    scene.quarter = { angle: SEAT_ANGLE[SEAT], limit: T.snapshot.placement_limit, active: live };
    const c = placement(T.board, SEAT, a.position);
    const bad = problemAt(SEAT, a.position) !== null;
    scene.ghost = { x: c.x, y: c.y, side: 0, bad };
    if (live && !bad) {
      const drag = currentDrag();
      const d = drag && drag.aiming ? drag : a;
      const u = aimVector(T.board, SEAT, a.position, d.direction);
      scene.aim = {
        x: c.x, y: c.y, ux: u.x, uy: u.y, power: d.power,
        invalid: Boolean(drag && drag.aiming && drag.invalid),
        pull: drag && drag.aiming ? drag.pointer : null,
      };
      if (drag && drag.dragging && !drag.aiming) scene.aim = null;
    }
  }
  // The heat map lies on the wood under the discs and the aim; the hint lines go over all.
  // board.js draws both (scene.heat, scene.hints), as in play.
  if (!anim.running) {
    if (T.heat) {
      if (!T.heatFan || T.heatFan.map !== T.heat) T.heatFan = { map: T.heat, fan: boardjs.heatFan(T.board, SEAT, T.heat) };
      scene.heat = T.heatFan.fan;
    }
    if (T.hints) scene.hints = hintLines(T.hints);
  }
  view.draw(scene);
}

/** The hints as board.js draws them (hints.js's, as in play): each to where its disc stops. */
function hintLines(list) {
  return hintsDrawn(T.board, SEAT, list);
}

/** The colour of the n-th hint (board.js's, as in play). */
export function hintColour(n) {
  return boardjs.HINT_COLOURS[n % boardjs.HINT_COLOURS.length];
}

/** A heat map's colour scale: {min, max, colour(v) -> "rgb(...)", ticks}. */
export function heatLegendScale(map) {
  const s = boardjs.heatScale(map);
  return { min: s.min, max: s.max, ticks: s.ticks, colour: (v) => `rgb(${s.colour(v).join(", ")})` };
}

/** What the last frame drew over the board (board.js's overlay, or ours), for tests. */
export function overlay() {
  if (view.overlay) return view.overlay;
  return { hints: T.hints || [], heat: T.heat ? { rows: T.heat.values.length } : null };
}



// ------------------------------------------------------------------ layout and controls

function renderAim() {
  if (!T.snapshot) return;
  const drag = currentDrag();
  renderControls({
    live: canShoot(),
    limit: T.snapshot.placement_limit,
    aim: T.aim,
    shown: drag && drag.aiming && !drag.invalid ? drag : T.aim,
    legend: T.opts.legend(),
    hint: "Position 0° is the middle of your quarter; direction 0° points at the centre, positive to your right.",
  });
}

export function refresh() {
  if (!T.snapshot) return;
  renderAim();
  $("board").setAttribute("aria-label", boardLabel());
  T.opts.onRefresh();
  requestDraw();
}

function boardLabel() {
  const mine = countOf(T.pos, MINE);
  const theirs = countOf(T.pos, THEIRS);
  const what = T.mode === "edit"
    ? "Setting up: tap an empty spot to place a disc, drag a disc to move it, tap a disc to remove it."
    : `Your shot: disc placed at ${T.aim.position.toFixed(1)} degrees, aim ${T.aim.direction.toFixed(1)} degrees, power ${T.aim.power.toFixed(1)} percent.`;
  return `Practice board, your shooting line at the bottom: ${mine} of your discs and ${theirs} of theirs on the board. ${what}`;
}

/**
 * Size the board to the visible area (as the game screen does): beside the side column on
 * wide screens, the full width on phones, never taller than what is left under its top.
 */
export function layout() {
  const wrap = $("board-wrap");
  if (fitBoard(view, { main: wrap.parentElement, wrap, side: $("side") })) draw();
}

/** The CSS pixel position in the page of board point (x, y) (for tests and tools). */
export function toPage(x, y) {
  const r = view.canvas.getBoundingClientRect();
  const [sx, sy] = view.toScreen(x, y);
  return { x: r.left + sx, y: r.top + sy };
}

/**
 * Start the board. `opts`: {onShoot(shot), legend() -> text, onEdit(), beforeEdit(), onRefresh()}.
 */
export function startBoard(opts) {
  T.opts = { legend: () => "Your shot", onEdit: () => {}, beforeEdit: () => {}, onRefresh: () => {}, ...opts };
  const prefs = loadPrefs();
  setScheme(prefs.scheme || "classic");
  setSoundEnabled(Boolean(prefs.sound));
  T.snapshot = snapshotOf(T.pos, T.board);
  view.setBottom(SEAT);
  wireControls((name, v) => {
    const lim = T.snapshot.placement_limit;
    if (name === "position") T.aim.position = clamp(v, -lim, lim);
    if (name === "direction") T.aim.direction = clamp(v, -90, 90);
    if (name === "power") T.aim.power = clamp(v, 0, 100);
    if (name === "position" && T.mode === "shoot") placementFeedback(SEAT);
    refresh();
  }, shoot);
  wireInput(view, {
    game: () => T.snapshot,
    shooter: () => (T.mode === "shoot" ? SEAT : null),
    canInput: canShoot,
    inGame: () => T.mode !== "off",
    aimOf: () => T.aim,
    problemAt,
    setMessage,
    refresh,
    requestDraw,
    renderAim,
    shoot,
  });
  const c = view.canvas;
  c.addEventListener("pointerdown", editDown);
  c.addEventListener("pointermove", editMove);
  c.addEventListener("pointerup", editUp);
  c.addEventListener("pointercancel", () => {
    T.edit = null;
    requestDraw();
  });
  window.addEventListener("resize", layout);
  layout();
  refresh();
}

export { placementLimit };
