// "+20": a made 20 pops at the hole, over the board's canvas (css/feedback.css draws it: it
// rises and fades, or under prefers-reduced-motion shows still for a moment), with its sound.

import { play } from "../lib/sound.js";
import { twentyDrops } from "./anim.js";

/** How long a pop stays on the page, in milliseconds (its CSS animation is a little shorter). */
export const POP_MS = 1300;

/** Successive 20s of one shot stand this far apart (a fraction of the text's size), upward. */
const STACK = 1.1;

/**
 * Where a pop goes on the page (CSS pixels from the document's top left): the centre of the
 * 20 hole, the board's (0, 0), on the `view` (BoardView: its toScreen and cssSize) drawn in
 * the canvas at `rect` (its getBoundingClientRect; `border` its left and top borders) with
 * the page scrolled by `scroll`; the `n`th 20 of a shot stacks above the ones before it.
 * Returns {x, y, size}: size the text's size in pixels, which follows the board's.
 */
export function popPlace(view, rect, scroll = { x: 0, y: 0 }, n = 0, border = { left: 0, top: 0 }) {
  const [hx, hy] = view.toScreen(0, 0);
  const size = Math.round(Math.min(48, Math.max(20, view.cssSize * 0.075)));
  return {
    x: rect.left + border.left + scroll.x + hx,
    y: rect.top + border.top + scroll.y + hy - n * STACK * size,
    size,
  };
}

/** Every pop put on the page so far: [{x, y, size, owner, still}] (tests read it). */
export const popsShown = [];

/**
 * Show "+20" at the hole of the board `view` for the `n`th drop of a shot (`drop`: {owner} of
 * anim.js twentyDrops). `still`: no motion (the player asked for reduced motion).
 */
export function popTwenty(view, drop = {}, n = 0, still = reducedMotion()) {
  const canvas = view.canvas;
  if (!canvas || !canvas.isConnected || !view.board) return null;
  const rect = canvas.getBoundingClientRect();
  const place = popPlace(view, rect, { x: window.scrollX, y: window.scrollY }, n, { left: canvas.clientLeft, top: canvas.clientTop });
  const el = document.createElement("div");
  el.className = still ? "pop-twenty still" : "pop-twenty";
  el.dataset.testid = "pop-twenty";
  el.setAttribute("aria-hidden", "true"); // the shot's words say it ("…went into the 20.")
  el.textContent = "+20";
  el.style.left = `${Math.round(place.x)}px`;
  el.style.top = `${Math.round(place.y)}px`;
  el.style.fontSize = `${place.size}px`;
  document.body.append(el);
  setTimeout(() => el.remove(), POP_MS);
  if (!listening) {
    // The board moves when the page is resized: a pop on its way would be left off its hole.
    listening = true;
    window.addEventListener("resize", clearPops);
  }
  popsShown.push({ ...place, owner: drop.owner ?? null, still });
  if (popsShown.length > 20) popsShown.shift();
  return el;
}

let listening = false;

/** Take every "+20" off the page at once. */
export function clearPops() {
  for (const el of document.querySelectorAll(".pop-twenty")) el.remove();
}

/**
 * A shot shown without its animation (reduced motion): its 20s pop at once, still, each with
 * its sound (the animation plays them as the discs drop).
 */
export function popShotTwenties(view, msg) {
  if (!msg || !msg.trajectory) return;
  twentyDrops(msg.trajectory, msg.report).forEach((drop, n) => {
    popTwenty(view, drop, n, true);
    if (n === 0) play("twenty");
  });
}

function reducedMotion() {
  return typeof window !== "undefined" && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}
