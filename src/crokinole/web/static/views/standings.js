// The event's standings (event.html #standings): rank, name, played, won–drawn–lost, then
// every tie-break of the event's order with its value; the one that set the entrant apart
// from its neighbours in bold, with a caption ("level on match points; decided by 20s").
// wire(hooks) once, render(state) on each view of the event (state.view: docs/events.md).

import { el } from "../lib/dom.js";
import { botBadge } from "./ranked.js";
import { DEFAULT_TIE_BREAKS, TIE_BREAK_HEADS, botEntrants, decidedCaption, decidedWords, reachedWords, tieBreakName, tieBreakValue } from "../lib/events.js";

let box = null;

export function wire(hooks = {}) {
  box = hooks.box || document.getElementById("standings");
}

export function render(state) {
  if (!box) wire();
  const view = state.view;
  const rows = (view && view.standings) || [];
  // The server's order: a knockout's bracket first ("Reached"), then the settings' tie-breaks.
  const order = (view && (view.order || (view.settings && view.settings.tie_breaks))) || DEFAULT_TIE_BREAKS;
  if (!rows.length) {
    box.replaceChildren(el("p", "note", "No standings yet: they appear once a round has results."));
    return;
  }
  const table = el("table", "data-table standings-table");
  table.dataset.testid = "standings-table";
  const caption = el("caption", "sr-only", `Standings, ordered by ${order.map(tieBreakName).join(", then ")}`);
  const head = el("tr");
  const th = (text, title) => {
    const c = el("th", "", text);
    c.scope = "col";
    if (title) c.title = title;
    return c;
  };
  const played = th("Played");
  played.className = "played";
  head.append(th("#"), th("Name"), played, th("W–D–L", "won, drawn, lost"));
  for (const key of order) {
    const c = th(TIE_BREAK_HEADS[key] || key, tieBreakName(key));
    c.dataset.tieBreak = key;
    head.append(c);
  }
  const body = el("tbody");
  const bots = botEntrants(view);
  for (const s of rows) {
    const tr = el("tr");
    tr.dataset.testid = `standing-${s.id}`;
    tr.append(el("td", "rank", String(s.rank)));
    const name = el("th", "name");
    name.scope = "row";
    name.append(el("span", "", s.name));
    if (bots.has(s.id)) name.append(" ", botBadge());
    const words = decidedCaption(s);
    if (words && s.decided_by !== order[0]) {
      // The words, and on a phone the column's head ("by Diff"), the one in bold on the row.
      const small = el("small", "decided");
      small.append(el("span", "long", words));
      if (s.decided_by) small.append(el("span", "short", `by ${TIE_BREAK_HEADS[s.decided_by] || tieBreakName(s.decided_by)}`));
      else small.firstChild.className = "";
      small.title = decidedWords(s, order);
      small.dataset.testid = "decided-by";
      name.append(small);
    }
    tr.append(name, el("td", "played", String(s.played ?? 0)));
    const byes = s.byes ? ` (${s.byes} bye${s.byes === 1 ? "" : "s"})` : "";
    tr.append(el("td", "", `${s.wins ?? 0}–${s.draws ?? 0}–${s.losses ?? 0}${byes}`));
    for (const key of order) {
      const td = el("td", "value");
      td.dataset.tieBreak = key;
      const raw = s.values ? s.values[key] : null;
      const value = key === "bracket" ? reachedWords(view.bracket, raw) : tieBreakValue(key, raw);
      if (s.decided_by === key) {
        td.classList.add("decider");
        const strong = el("strong", "", value);
        td.append(strong);
        td.title = decidedWords(s, order);
      } else td.textContent = value;
      tr.append(td);
    }
    body.append(tr);
  }
  const thead = el("thead");
  thead.append(head);
  table.append(caption, thead, body);
  const wrap = el("div", "table-card");
  // It scrolls sideways on a phone: reachable by the keyboard too.
  wrap.tabIndex = 0;
  wrap.setAttribute("role", "region");
  wrap.setAttribute("aria-label", "Standings (scroll sideways for every tie-break)");
  wrap.append(table);
  const note = el("p", "note", `Ordered by ${order.map(tieBreakName).join(", then ")}. The value in bold is the one that decided the place.`);
  box.replaceChildren(wrap, note);
}
