// The aim controls: position, direction and power as sliders with number boxes, and Shoot.

import { $ } from "../lib/dom.js";
import { round } from "../lib/geometry.js";

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

/** Wire the sliders and number boxes: `apply(name, value)` sets the aim, `shoot()` shoots. */
export function wireControls(apply, shoot) {
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
