// The aim controls: position, direction and power as sliders with number boxes, and Shoot.
// One component for every page with a board to shoot on (the game, practice, drills): the
// page holds an empty <fieldset class="controls" id="controls"> (or one with its own extras,
// kept between the sliders and Shoot; an extra marked data-below-hint goes under the hint)
// and wireControls() fills it in once. On the game page the sliders fold, on phones, into a
// "Fine aim" drawer (a <details>), so that the board and Shoot fill the screen.

import { $ } from "../lib/dom.js";
import { round } from "../lib/geometry.js";

/** The three aim controls: id, label, unit (shown and spoken), range and the value they start at. */
export const AIM_CONTROLS = [
  { id: "position", label: "Position", unit: "°", spoken: "degrees", min: -41.8, max: 41.8, step: 0.1, value: 0 },
  { id: "direction", label: "Direction", unit: "°", spoken: "degrees", min: -90, max: 90, step: 0.1, value: 0 },
  { id: "power", label: "Power", unit: "%", spoken: "percent", min: 0, max: 100, step: 0.5, value: 20 },
];

/** Screens where the sliders start folded into the "Fine aim" drawer: phones, either way up. */
export const FOLD_QUERY = "(max-width: 640px), (max-height: 520px)";

const HINT = "Position 0° is the middle of your quarter; direction 0° points at the centre, positive to your right.";

function node(tag, attrs = {}, text = "") {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text) e.textContent = text;
  return e;
}

function controlRow(c) {
  const row = node("div", { class: "control" });
  const range = node("input", { type: "range", id: c.id, "data-testid": `${c.id}-input`, min: c.min, max: c.max, step: c.step, value: c.value });
  const readout = node("span", { class: "readout" });
  readout.append(
    node("input", { type: "number", id: `${c.id}-num`, "aria-label": `${c.label} in ${c.spoken}`, min: c.min, max: c.max, step: c.step, value: c.value }),
    node("span", { class: "unit", "aria-hidden": "true" }, c.unit),
  );
  row.append(node("label", { for: c.id }, c.label), range, readout);
  return row;
}

/**
 * Fill the page's controls fieldset (`fs`, #controls by default) with the legend, the three
 * sliders with their number boxes, the hint and Shoot; the page's own children stay, between
 * the sliders and Shoot. `fold`: the sliders, the hint and the extra marked data-below-hint go
 * into a "Fine aim" drawer, folded on phones (FOLD_QUERY), open elsewhere. Filled once: a
 * second call changes nothing.
 */
export function mountControls(fs = $("controls"), { fold = false } = {}) {
  if (fs.querySelector("#shoot-button")) return fs;
  const extras = Array.from(fs.children);
  const hint = node("p", { class: "hint", id: "controls-hint" }, HINT);
  const below = extras.find((e) => e.hasAttribute("data-below-hint"));
  const rows = AIM_CONTROLS.map(controlRow);
  if (fold) {
    const drawer = node("details", { class: "fine-aim", id: "fine-aim", "data-testid": "fine-aim" });
    const summary = node("summary", { id: "fine-aim-toggle", "data-testid": "fine-aim-toggle" }, "Fine aim");
    drawer.append(summary, ...rows, hint);
    if (below) drawer.append(below);
    fs.prepend(node("legend", { id: "controls-legend" }, "Your shot"), drawer);
    foldOnPhones(drawer);
  } else {
    fs.prepend(node("legend", { id: "controls-legend" }, "Your shot"), ...rows);
    if (below) below.before(hint);
    else fs.append(hint);
  }
  fs.append(node("button", { type: "button", id: "shoot-button", "data-testid": "shoot-button", class: "primary shoot" }, "Shoot"));
  return fs;
}

/** The drawer starts folded on phones and open elsewhere, and follows the screen as it turns. */
function foldOnPhones(drawer) {
  const phone = window.matchMedia(FOLD_QUERY);
  const set = () => {
    drawer.open = !phone.matches;
  };
  set();
  phone.addEventListener?.("change", set);
}

function fmt(v, digits = 1) {
  return round(v, digits).toFixed(digits);
}

function setControl(name, value) {
  const range = $(name);
  const num = $(`${name}-num`);
  const text = fmt(value, 1);
  if (document.activeElement !== num && num.value !== text) num.value = text;
  if (range.value !== String(value)) range.value = String(value);
  range.setAttribute("aria-valuetext", name === "power" ? `${text} percent` : `${text} degrees`);
}

let restoreFocus = null;

/**
 * Show an aim. `o`: {live (input allowed), limit (degrees), aim {position, direction, power},
 * shown (direction/power while dragging), legend, hint}.
 */
export function renderControls(o) {
  const fs = $("controls");
  if (!o.live && fs.contains(document.activeElement)) restoreFocus = document.activeElement;
  fs.disabled = !o.live;
  if (o.live && restoreFocus) {
    const e = restoreFocus;
    restoreFocus = null;
    if (document.activeElement === document.body) e.focus({ preventScroll: true });
  }
  const lim = Math.floor(o.limit * 10) / 10;
  for (const id of ["position", "position-num"]) {
    $(id).min = String(-lim);
    $(id).max = String(lim);
  }
  if (!o.aim) return;
  setControl("position", o.aim.position);
  setControl("direction", o.shown.direction);
  setControl("power", o.shown.power);
  $("controls-legend").textContent = o.legend;
  $("controls-hint").textContent = o.hint;
}

/**
 * Fill in the controls, then wire the sliders and number boxes: `apply(name, value)` sets the
 * aim, `shoot()` shoots; `opts.fold`: the sliders in a "Fine aim" drawer (mountControls).
 */
export function wireControls(apply, shoot, opts = {}) {
  mountControls($("controls"), opts);
  for (const name of ["position", "direction", "power"]) {
    const range = $(name);
    const num = $(`${name}-num`);
    const set = (raw) => {
      const v = Number.parseFloat(raw);
      if (Number.isFinite(v)) apply(name, v);
    };
    range.addEventListener("input", () => set(range.value));
    num.addEventListener("change", () => set(num.value));
    num.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        set(num.value);
        ev.preventDefault();
        shoot();
      }
    });
  }
  $("shoot-button").addEventListener("click", shoot);
}
