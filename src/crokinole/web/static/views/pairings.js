// The event's rounds (event.html #rounds): each round's pairings as cards, the latest round
// first and open, the earlier ones folded. A card: its board (real boards) or table (online)
// number, the names with who shoots first, the state, the score once entered, and what the
// viewer may do: Watch a live online table, the replay and review of its finished games, the
// hall's Score sheet, Confirm a result the other side entered, and, for the organiser, Enter or
// Correct a result. Every server error is shown on the card it came from.
//
// wire(hooks) once: hooks.act(action, round, pairing) does what a button asks ("sheet",
// "confirm", "enter", "correct"). render(state) on each view: state.view (docs/events.md),
// state.viewer {organiser, entrant}, state.errors {"round/table": words}.

import { el } from "../lib/dom.js";
import { botEntrants, pairingPlace, pairingStateWords, resultWords, sideHasBot, sideOf } from "../lib/events.js";
import { botBadge } from "./ranked.js";

let box = null;
let hooks = { act: () => {} };
const folded = new Map(); // a round's <details> open or not, kept across renders

export function wire(h = {}) {
  hooks = { ...hooks, ...h };
  box = h.box || document.getElementById("rounds");
}

function link(text, href, testid) {
  const a = el("a", "button", text);
  a.href = href;
  if (testid) a.dataset.testid = testid;
  return a;
}

function act(text, action, round, pairing, cls = "") {
  const b = el("button", cls, text);
  b.type = "button";
  b.dataset.testid = `${action}-${round.number}-${pairing.table}`;
  b.addEventListener("click", () => hooks.act(action, round, pairing));
  return b;
}

function sideLine(view, pairing, k) {
  const li = el("li", "pairing-side");
  const won = pairing.winner !== null && pairing.winner !== undefined && pairing.winner === k;
  const name = el(won ? "strong" : "span", "pairing-name", pairing.names[k] ?? "");
  li.append(name);
  if (sideHasBot(botEntrants(view), (pairing.sides || [])[k])) li.append(" ", botBadge());
  if (won) li.append(el("span", "tag won", "won"));
  if (!pairing.bye && pairing.first === k && pairing.state !== "confirmed") li.append(el("span", "tag first", "shoots first"));
  return li;
}

function card(view, state, round, pairing) {
  const place = pairingPlace(view, pairing);
  const li = el("li", `pairing card ${pairing.state}`);
  li.dataset.testid = `pairing-${round.number}-${pairing.table}`;
  li.dataset.state = pairing.state;
  const head = el("div", "pairing-head");
  const where = pairing.bye ? "Bye" : place === "hall" ? `Board ${pairing.table}` : `Table ${pairing.table}`;
  head.append(el("span", "where", where));
  if (pairing.stage && pairing.stage !== round.stage) head.append(el("span", "stage", pairing.stage));
  if (pairing.best_of > 1) head.append(el("span", "stage", `best of ${pairing.best_of}`));
  li.append(head);
  const sides = el("ul", "sides");
  sides.append(sideLine(view, pairing, 0));
  if (!pairing.bye) sides.append(sideLine(view, pairing, 1));
  li.append(sides);
  const stateLine = el("p", "pairing-state", pairingStateWords(pairing));
  stateLine.dataset.testid = `pairing-state-${round.number}-${pairing.table}`;
  li.append(stateLine);
  const score = pairing.result ? resultWords(pairing) : [];
  if (score.length) {
    const p = el("p", "pairing-score", score.join(" · "));
    p.dataset.testid = `pairing-score-${round.number}-${pairing.table}`;
    li.append(p);
  }

  const tools = el("div", "pairing-tools");
  const viewer = state.viewer || {};
  const mine = sideOf(pairing, viewer.entrant);
  const tables = pairing.tables || [];
  const watch = pairing.watch || [];
  if (place === "online" && pairing.state === "playing") {
    tables.forEach((t, k) => {
      // A live table is watched by its id: opening it makes the viewer a spectator.
      const live = k === tables.length - 1 && mine === null ? `/?table=${encodeURIComponent(t)}` : null;
      const href = watch[k] || live;
      if (href) tools.append(link(tables.length > 1 ? `Watch game ${k + 1}` : "Watch", href, `watch-${round.number}-${pairing.table}`));
    });
    // The player's own table: the game page opens it (the seat is kept for their account).
    const playing = tables.length ? `/?table=${encodeURIComponent(tables[tables.length - 1])}` : "/";
    if (mine !== null) tools.append(link("Play your game", playing, `play-${round.number}-${pairing.table}`));
  }
  if (tables.length && (pairing.state === "confirmed" || pairing.state === "reported")) {
    tables.forEach((t, k) => {
      const n = tables.length > 1 ? ` game ${k + 1}` : "";
      tools.append(link(`Replay${n}`, `/replay/${encodeURIComponent(t)}`, `replay-${round.number}-${pairing.table}`));
      tools.append(link(`Review${n}`, `/review/${encodeURIComponent(t)}`, `review-${round.number}-${pairing.table}`));
    });
  }
  const canEnter = viewer.organiser || mine !== null;
  if (place === "hall" && !pairing.bye && round.started && canEnter && (pairing.state === "playing" || pairing.state === "reported")) {
    tools.append(act("Score sheet", "sheet", round, pairing));
  }
  if (pairing.state === "reported" && (viewer.organiser || (mine !== null && mine !== pairing.reported_by))) {
    tools.append(act("Confirm", "confirm", round, pairing, "primary"));
  }
  if (viewer.organiser && !pairing.bye && round.started) {
    if (pairing.state === "confirmed") tools.append(act("Correct the result", "correct", round, pairing));
    else if (pairing.state === "playing" || pairing.state === "reported") tools.append(act("Enter a result", "enter", round, pairing));
  }
  if (tools.childElementCount) li.append(tools);
  const error = el("p", "error", (state.errors || {})[`${round.number}/${pairing.table}`] || "");
  error.setAttribute("role", "alert");
  error.dataset.testid = `pairing-error-${round.number}-${pairing.table}`;
  li.append(error);
  return li;
}

function roundBlock(view, state, round, latest) {
  const details = el("details", "round");
  details.dataset.testid = `round-${round.number}`;
  const key = round.number;
  details.open = folded.has(key) ? folded.get(key) : latest;
  const summary = el("summary");
  // Only the viewer's own opening or folding is kept (the latest round opens by itself).
  summary.addEventListener("click", () => folded.set(key, !details.open));
  const title = el("h3", "", round.stage && round.stage !== `Round ${round.number}` ? `Round ${round.number}: ${round.stage}` : `Round ${round.number}`);
  summary.append(title);
  const words = round.over ? "finished" : round.started ? "under way" : "paired, not started";
  summary.append(el("span", "note round-state", words));
  details.append(summary);
  const list = el("ol", "pairings");
  for (const p of round.pairings || []) list.append(card(view, state, round, p));
  details.append(list);
  return details;
}

export function render(state) {
  if (!box) wire();
  const view = state.view;
  const rounds = (view && view.rounds) || [];
  if (!rounds.length) {
    box.replaceChildren(el("p", "note", view && view.status === "finished" ? "No rounds were played." : "No round is paired yet."));
    return;
  }
  const blocks = rounds.slice().reverse().map((r, k) => roundBlock(view, state, r, k === 0));
  box.replaceChildren(...blocks);
}
