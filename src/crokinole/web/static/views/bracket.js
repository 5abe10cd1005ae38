// The bracket (event.html #bracket), drawn as a bracket in SVG: the bracket's rounds as
// columns (quarter-finals, semi-finals, the final), each match a box of its two sides, a line
// from each match to the one its winner goes to, the winner in bold with a mark, a bye shown
// as such. wire(hooks) once, render(state) on each view (state.view.bracket: docs/events.md).

import { botEntrants, bracketLayout } from "../lib/events.js";

const NS = "http://www.w3.org/2000/svg";
const ROW = 28;
let box = null;

function svg(tag, attrs = {}, text) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  if (text !== undefined) e.textContent = text;
  return e;
}

/** A name cut to fit its box (the whole name stays in the box's title). */
function fit(name, room = 19) {
  const s = String(name ?? "");
  return s.length > room ? `${s.slice(0, room - 1)}…` : s;
}

export function wire(hooks = {}) {
  box = hooks.box || document.getElementById("bracket");
}

export function render(state) {
  if (!box) wire();
  const bracket = state.view && state.view.bracket;
  const section = box.closest("section");
  if (section) section.hidden = !bracket;
  if (!bracket) {
    box.replaceChildren();
    return;
  }
  const L = bracketLayout(bracket, { box: 2 * ROW });
  const bots = botEntrants(state.view);
  const pad = 4;
  const root = svg("svg", {
    viewBox: `${-pad} 0 ${L.width + 2 * pad} ${L.height}`,
    width: L.width + 2 * pad,
    height: L.height,
    class: "bracket-svg",
    role: "img",
    "data-testid": "bracket-svg",
  });
  const label = svg("title", {}, `The bracket: ${L.columns.map((c) => c.name).join(", ")}`);
  root.append(label);
  const lines = svg("g", { class: "bracket-lines" });
  for (const line of L.lines) lines.append(svg("path", { d: line.d, class: "bracket-line", "data-testid": "bracket-line" }));
  root.append(lines);
  L.columns.forEach((column, r) => {
    const g = svg("g", { class: "bracket-round", "data-testid": "bracket-round", "data-round": r + 1 });
    g.append(svg("text", { x: column.x + 4, y: 16, class: "bracket-head" }, column.name));
    for (const m of column.matches) {
      const match = svg("g", { class: `bracket-match${m.bye ? " bye" : ""}`, "data-testid": "bracket-match", "data-slot": (m.slot || []).join("-") });
      match.append(svg("rect", { x: m.x, y: m.y, width: m.width, height: m.height, rx: 6, class: "bracket-box" }));
      match.append(svg("line", { x1: m.x, y1: m.y + ROW, x2: m.x + m.width, y2: m.y + ROW, class: "bracket-divider" }));
      const names = m.names || [];
      const sides = m.sides || [];
      [0, 1].forEach((k) => {
        const won = m.winner !== null && m.winner !== undefined && sides[k] === m.winner;
        let name = names[k];
        if (m.bye && !sides[k]) name = "bye";
        else if (!sides[k]) name = "to be decided";
        const text = svg("text", {
          x: m.x + 10, y: m.y + k * ROW + ROW / 2 + 5,
          class: `bracket-name${won ? " winner" : ""}${sides[k] ? "" : " empty"}`,
          "data-testid": won ? "bracket-winner" : "bracket-name",
        }, `${won ? "✓ " : ""}${fit(name)}`);
        if (String(name).length > 19) text.append(svg("title", {}, name));
        if (sides[k] && bots.has(sides[k])) {
          // BOT after the name (a program plays this entrant), cut to leave it room.
          text.textContent = `${won ? "✓ " : ""}${fit(name, 15)}`;
          if (String(name).length > 15) text.append(svg("title", {}, name));
          text.append(svg("tspan", { class: "bracket-bot", dx: 6, "data-testid": "bot-mark" }, "BOT"));
        }
        match.append(text);
      });
      g.append(match);
    }
    root.append(g);
  });
  const champion = bracket.rounds.length && bracket.rounds[bracket.rounds.length - 1].matches[0];
  const words = [];
  if (champion && champion.winner) {
    const k = champion.sides.indexOf(champion.winner);
    words.push(`Winner: ${champion.names[k]}.`);
  }
  const scroll = document.createElement("div");
  scroll.className = "bracket-scroll";
  scroll.tabIndex = 0;
  scroll.setAttribute("role", "region");
  scroll.setAttribute("aria-label", "The bracket (scrolls sideways on a small screen)");
  scroll.append(root);
  const out = [scroll];
  if (words.length) {
    const p = document.createElement("p");
    p.className = "bracket-champion";
    p.dataset.testid = "bracket-champion";
    p.textContent = words.join(" ");
    out.unshift(p);
  }
  box.replaceChildren(...out);
}
