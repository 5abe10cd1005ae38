// The player's hands on the board: tap the shooting line to place the disc, press on the disc
// and pull back to aim and shoot; keys move, turn and power the aim (the board's help text).
// The app hands in what it knows (`h`: the game, the seat to shoot, the aim, …).

import { $, anyModalOpen } from "./dom.js";
import { clamp, directionOf, placement, positionOf, round } from "./geometry.js";

/** The power (percent) a new aim starts with. */
export const DEFAULT_POWER = 20;

let view = null;
let h = null;
/** The drag in progress: {seat, aiming, direction, power, invalid, pointer, …} or null. */
let drag = null;

export function currentDrag() {
  return drag;
}

/**
 * Listen to the board canvas and the keyboard.
 * @param {object} boardView the BoardView of the canvas
 * @param {object} hooks {game, shooter, canInput, inGame, aimOf, problemAt, setMessage, refresh,
 *   requestDraw, renderAim, shoot}
 */
export function wireInput(boardView, hooks) {
  view = boardView;
  h = hooks;
  const canvas = view.canvas;
  canvas.addEventListener("pointerdown", onPointerDown);
  canvas.addEventListener("pointermove", onPointerMove);
  canvas.addEventListener("pointerup", onPointerUp);
  canvas.addEventListener("pointercancel", () => {
    cancelDrag();
  });
  canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());
  document.addEventListener("keydown", onKeyDown);
}

function pointerBoard(ev) {
  const r = view.canvas.getBoundingClientRect();
  return view.toBoard(ev.clientX - r.left, ev.clientY - r.top);
}

function onPointerDown(ev) {
  if (ev.button !== 0 && ev.pointerType === "mouse") return;
  const seat = h.shooter();
  if (!seat || !h.canInput()) return;
  ev.preventDefault();
  $("board").focus({ preventScroll: true });
  const board = h.game().board;
  const p = pointerBoard(ev);
  const a = h.aimOf(seat);
  const c = placement(board, seat, a.position);
  const grab = Math.max(board.disc_radius * 1.5, 24 / view.scale);
  if (Math.hypot(p.x - c.x, p.y - c.y) <= grab) {
    drag = {
      id: ev.pointerId, seat, dragging: true, aiming: false, moved: false, start: p, pointer: p,
      direction: a.direction, power: a.power, invalid: false,
    };
    view.canvas.setPointerCapture(ev.pointerId);
    h.requestDraw();
    return;
  }
  placeAt(seat, p);
}

function placeAt(seat, p) {
  const board = h.game().board;
  const r = Math.hypot(p.x, p.y);
  const pos = positionOf(seat, p.x, p.y);
  if (r < board.ten_radius || r > board.surface_radius + board.ditch_width || Math.abs(pos) > 45) {
    h.setMessage("Tap or click your part of the shooting line (highlighted) to place your disc; press on the disc and pull back to shoot.");
    return;
  }
  const lim = h.game().placement_limit;
  const position = round(clamp(pos, -lim, lim), 1);
  const problem = h.problemAt(seat, position);
  if (problem) {
    h.setMessage(`Can't place there: ${problem}.`, true);
    return;
  }
  h.aimOf(seat).position = position;
  h.setMessage("");
  h.refresh();
}

function dragGeometry(d, p) {
  const board = h.game().board;
  const a = h.aimOf(d.seat);
  const c = placement(board, d.seat, a.position);
  const px = p.x - c.x;
  const py = p.y - c.y;
  const len = Math.hypot(px, py);
  const cancel = Math.max(board.disc_radius * 1.3, 18 / view.scale);
  const maxPull = Math.max(6, 120 / view.scale);
  return { len, cancel, px, py, maxPull, board, position: a.position };
}

function onPointerMove(ev) {
  const d = drag;
  if (!d || ev.pointerId !== d.id) return;
  ev.preventDefault();
  const p = pointerBoard(ev);
  d.pointer = p;
  const gm = dragGeometry(d, p);
  if (gm.len > gm.cancel) {
    d.moved = true;
    d.aiming = true;
    d.direction = round(directionOf(gm.board, d.seat, gm.position, -gm.px, -gm.py), 1);
    d.power = clamp(round(((gm.len - gm.cancel) / gm.maxPull) * 100 * 2, 0) / 2, 0, 100);
    d.invalid = Math.abs(d.direction) > 90;
  } else {
    d.aiming = false;
  }
  h.renderAim();
  h.requestDraw();
}

function onPointerUp(ev) {
  const d = drag;
  if (!d || ev.pointerId !== d.id) return;
  ev.preventDefault();
  drag = null;
  if (view.canvas.hasPointerCapture(ev.pointerId)) view.canvas.releasePointerCapture(ev.pointerId);
  const p = pointerBoard(ev);
  if (!d.moved) {
    placeAt(d.seat, p); // a short tap only repositions
    h.refresh();
    return;
  }
  if (!d.aiming) {
    h.setMessage("Shot cancelled.");
    h.refresh();
    return;
  }
  if (d.invalid) {
    h.setMessage("Pull back away from the centre: the disc flies the opposite way to your pull.", true);
    h.refresh();
    return;
  }
  const a = h.aimOf(d.seat);
  a.direction = d.direction;
  a.power = d.power;
  h.refresh();
  h.shoot();
}

/**
 * Why aim `a` ({position, power, ...}) cannot be shot from `seat`, as the sentence a player is
 * shown, or null when it can: a placement `problemAt(seat, position)` refuses (R3), or no power.
 */
export function aimProblem(problemAt, seat, a) {
  const problem = problemAt(seat, a.position);
  if (problem) return `Can't place there: ${problem}.`;
  if (a.power < 0.5) return "Power is 0%: pull back further or raise the power.";
  return null;
}

export function cancelDrag() {
  if (!drag) return;
  drag = null;
  h.refresh();
}

const TYPING = new Set(["text", "number", "search", "email", "password"]);

function onKeyDown(ev) {
  if (!h.inGame() || anyModalOpen()) return;
  const t = ev.target;
  const tag = t && t.tagName;
  if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && TYPING.has(t.type))) return;
  const onRange = tag === "INPUT" && t.type === "range";
  const onButton = tag === "BUTTON" || tag === "A" || (tag === "INPUT" && t.type === "checkbox");
  const k = ev.key;
  if (ev.ctrlKey || ev.metaKey) return;
  if (k === "Escape") {
    if (drag) {
      cancelDrag();
      h.setMessage("Shot cancelled.");
    } else {
      const seat = h.shooter();
      if (seat) {
        const a = h.aimOf(seat);
        a.direction = 0;
        a.power = DEFAULT_POWER;
        h.setMessage("Aim reset.");
        h.refresh();
      }
    }
    ev.preventDefault();
    return;
  }
  if ((k === "Enter" || k === " ") && !onButton) {
    ev.preventDefault();
    h.shoot();
    return;
  }
  const seat = h.shooter();
  if (!seat || !h.canInput()) {
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", " "].includes(k) && !onRange) ev.preventDefault();
    return;
  }
  if (onRange && k.startsWith("Arrow")) return; // the focused slider moves natively
  const a = h.aimOf(seat);
  const fine = ev.altKey;
  const big = ev.shiftKey;
  const angleStep = fine ? 0.1 : big ? 5 : 0.5;
  const lim = h.game().placement_limit;
  let handled = true;
  switch (k.length === 1 ? k.toLowerCase() : k) {
    case "a":
      a.position = round(clamp(a.position - angleStep, -lim, lim), 2);
      break;
    case "d":
      a.position = round(clamp(a.position + angleStep, -lim, lim), 2);
      break;
    case "ArrowLeft":
      a.direction = round(clamp(a.direction - angleStep, -90, 90), 2);
      break;
    case "ArrowRight":
      a.direction = round(clamp(a.direction + angleStep, -90, 90), 2);
      break;
    case "ArrowUp":
      a.power = round(clamp(a.power + (big ? 10 : fine ? 0.5 : 1), 0, 100), 1);
      break;
    case "ArrowDown":
      a.power = round(clamp(a.power - (big ? 10 : fine ? 0.5 : 1), 0, 100), 1);
      break;
    default:
      handled = false;
  }
  if (handled) {
    ev.preventDefault();
    placementFeedback(seat);
    h.refresh();
  }
}

export function placementFeedback(seat) {
  const problem = h.problemAt(seat, h.aimOf(seat).position);
  if (problem) h.setMessage(`Can't place there: ${problem}.`, true);
  else if ($("message").classList.contains("bad")) h.setMessage("");
}
