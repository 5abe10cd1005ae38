// The first shot's coach: on a new player's first turn ever (kept on the device: the page's
// prefs in lib/store.js), a ghost hand on the board presses on their disc, pulls back and lets
// go, over and over, under the words "Press on your disc, pull back, let go". It never blocks
// the board (only its "Got it" button takes a pointer); a press on the board or the controls, a
// key on the board, Got it, a shot or the end of the turn puts it away for good.

import { $ } from "../lib/dom.js";

/** Pixels the ghost hand pulls back from the disc (the aim arrow grows as long toward the centre). */
const PULL_PX = 64;

let H = null;
let on = false;

/**
 * Wire the coach once. `hooks`: {seen() (it was shown on this device), remember() (keep that
 * it was)}.
 */
export function wireCoach(hooks) {
  H = hooks;
  $("coach-close").addEventListener("click", () => {
    hide();
    $("board").focus({ preventScroll: true });
  });
  // The player's own press on the board or on the game's controls, or a key on the board:
  // they are on their way (the press goes on to what it was for).
  $("game-screen").addEventListener("pointerdown", hide, true);
  $("board").addEventListener("keydown", hide);
}

export function coachShown() {
  return on;
}

/** Put the coach away (it is not shown again: it was remembered when it came). */
export function hide() {
  if (!on) return;
  on = false;
  $("coach").hidden = true;
}

/**
 * Show, place or put away the coach. `turn`: null unless this device's player may shoot now;
 * else {disc: [x, y], centre: [x, y]}, CSS pixels in the board canvas, of their waiting disc and
 * of the board's centre, and `radius` (the playing surface's, in pixels).
 */
export function renderCoach(turn) {
  if (!H) return;
  if (!turn) {
    hide();
    return;
  }
  if (!on) {
    if (H.seen()) return;
    on = true;
    H.remember();
    $("coach").hidden = false;
  }
  place(turn);
}

function place({ disc, centre, radius }) {
  const canvas = $("board");
  const box = $("coach");
  box.style.left = `${canvas.offsetLeft}px`;
  box.style.top = `${canvas.offsetTop}px`;
  box.style.width = `${canvas.offsetWidth}px`;
  box.style.height = `${canvas.offsetHeight}px`;
  const [dx, dy] = disc;
  const [cx, cy] = centre;
  const len = Math.hypot(cx - dx, cy - dy) || 1;
  const [ux, uy] = [(cx - dx) / len, (cy - dy) / len]; // toward the centre: where the disc will go
  const hand = box.querySelector(".coach-hand");
  hand.style.left = `${dx}px`;
  hand.style.top = `${dy}px`;
  hand.style.setProperty("--pull-x", `${-ux * PULL_PX}px`);
  hand.style.setProperty("--pull-y", `${-uy * PULL_PX}px`);
  hand.style.setProperty("--aim", `${(Math.atan2(ux, -uy) * 180) / Math.PI}deg`);
  // The words on the far half of the board, between its centre and the far edge: clear of the
  // disc, its shooting line and the aim, and of the centre.
  const tip = $("coach-tip");
  tip.style.left = `${cx}px`;
  tip.style.top = `${cy + uy * radius * 0.5}px`;
  tip.style.maxWidth = `${Math.max(150, radius * 1.3)}px`;
}
