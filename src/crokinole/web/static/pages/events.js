// The events page (/events): the events open to join, under way and finished lately
// (GET /api/events, and the account's own with ?mine=1), a join code's box, and the form that
// creates an event (POST /api/events {settings}: docs/events.md). The big choices first, the
// rules, the tie-breaks' order, rating and the clock under "More options".

import { fetchJson } from "../lib/api.js";
import { $, el } from "../lib/dom.js";
import { DEFAULT_TIE_BREAKS, FORMATS, TEAMS, VENUES, eventDay, eventSummary, moveItem, settingsFrom, teamsWords, tieBreakName, venueWords } from "../lib/events.js";
import { whoIsSignedIn } from "../views/topbar.js";

const P = { tieBreaks: DEFAULT_TIE_BREAKS.slice(), username: null };
const HINTS = {
  swiss: "Each round pairs players with the same score; nobody meets twice while it can be avoided, and an odd player out gets a bye (a win).",
  round_robin: "Everyone plays everyone once.",
  pools: "Players are split into pools by rating (snake seeding); each pool plays a round robin.",
  pools_playoffs: "Pools first, then the best of each pool go into a seeded knockout bracket, as the World Championship does.",
  elimination: "A seeded knockout bracket: lose once and you are out; the top seeds get the byes.",
};

function fill(select, options, value) {
  select.replaceChildren(...options.map(([v, text]) => new Option(text, v)));
  select.value = value;
}

function renderFormat() {
  const f = $("ev-format").value;
  $("rounds-field").hidden = f !== "swiss";
  $("pools-field").hidden = !(f === "pools" || f === "pools_playoffs");
  $("top-field").hidden = f !== "pools_playoffs";
  $("best-field").hidden = !(f === "pools_playoffs" || f === "elimination");
  $("format-hint").textContent = HINTS[f] || "";
  // Rotating partners are drawn round by round: a Swiss.
  const rotating = $("ev-teams").querySelector('option[value="rotating"]');
  rotating.disabled = f !== "swiss";
  if (rotating.disabled && $("ev-teams").value === "rotating") $("ev-teams").value = "singles";
  renderTeams();
}

function renderFormatBest() {
  // The World Championship's playoffs are best of 3; a plain knockout is one game.
  $("ev-best").value = $("ev-format").value === "pools_playoffs" ? "3" : "1";
}

function renderTeams() {
  $("discs-field").hidden = $("ev-teams").value !== "singles"; // doubles: 12 a team (R2)
}

function renderVenue() {
  $("online-options").hidden = $("ev-venue").value === "hall";
}

function renderTieBreaks() {
  const list = $("tie-breaks");
  const order = P.tieBreaks;
  list.replaceChildren(
    ...order.map((key, i) => {
      const li = el("li");
      li.dataset.testid = `tie-break-${key}`;
      li.append(el("span", "tb-name", `${i + 1}. ${tieBreakName(key)}`));
      const up = el("button", "", "↑");
      up.type = "button";
      up.disabled = i === 0;
      up.setAttribute("aria-label", `Move ${tieBreakName(key)} up`);
      up.dataset.testid = `tie-break-up-${key}`;
      up.addEventListener("click", () => move(i, -1, `tie-break-up-${key}`));
      const down = el("button", "", "↓");
      down.type = "button";
      down.disabled = i === order.length - 1;
      down.setAttribute("aria-label", `Move ${tieBreakName(key)} down`);
      down.dataset.testid = `tie-break-down-${key}`;
      down.addEventListener("click", () => move(i, 1, `tie-break-down-${key}`));
      li.append(up, down);
      return li;
    }),
  );
}

function move(i, delta, focus) {
  P.tieBreaks = moveItem(P.tieBreaks, i, delta);
  renderTieBreaks();
  const again = document.querySelector(`[data-testid="${focus}"]`);
  (again && !again.disabled ? again : $("tie-breaks").querySelector("button:not(:disabled)")).focus();
}

function choices() {
  return {
    name: $("ev-name").value,
    date: $("ev-date").value,
    format: $("ev-format").value,
    rounds: $("ev-rounds").value,
    pools: $("ev-pools").value,
    playoff_size: $("ev-top").value,
    best_of: $("ev-best").value,
    teams: $("ev-teams").value,
    venue: $("ev-venue").value,
    discs: $("ev-discs").value,
    contact: $("ev-contact").checked,
    tie: $("ev-tie").value,
    tie_breaks: P.tieBreaks,
    rated: $("ev-venue").value !== "hall" && $("ev-rated").checked,
    turn_seconds: $("ev-clock").value,
  };
}

async function create(ev) {
  ev.preventDefault();
  $("create-error").textContent = "";
  if (!P.username) {
    $("create-error").textContent = "Log in to organise an event.";
    return;
  }
  if (!$("ev-name").value.trim()) {
    $("create-error").textContent = "Give the event a name.";
    $("ev-name").focus();
    return;
  }
  const button = $("create-form").querySelector('button[type="submit"]');
  button.disabled = true;
  const r = await fetchJson("/api/events", { method: "POST", body: { settings: settingsFrom(choices()) }, token: true });
  button.disabled = false;
  if (!r.ok || !r.body || !r.body.id) {
    $("create-error").textContent = r.ok ? "The server made no event." : r.error;
    return;
  }
  location.assign(`/events/${encodeURIComponent(r.body.id)}`);
}

async function goToCode(ev) {
  ev.preventDefault();
  const code = $("code").value.trim().toUpperCase();
  $("code-error").textContent = "";
  if (!/^[A-Z0-9]{4,12}$/.test(code)) {
    $("code-error").textContent = "A code is 4 to 12 letters and digits.";
    return;
  }
  const r = await fetchJson(`/api/events/code/${encodeURIComponent(code)}`);
  if (!r.ok || !r.body || !r.body.id) {
    $("code-error").textContent = r.status === 404 ? `No event has the code ${code}.` : r.error;
    return;
  }
  location.assign(`/events/${encodeURIComponent(r.body.id)}?join=1`);
}

function eventsOf(body) {
  if (Array.isArray(body)) return body;
  return (body && Array.isArray(body.events) && body.events) || [];
}

function item(e) {
  // A list's row is a summary (name, date, format, venue, teams, entrants: a count, rounds
  // played); an event's view has its settings.
  const s = e.settings || e;
  const li = el("li", "card");
  li.dataset.testid = `event-${e.id}`;
  const a = el("a", "", s.name || e.id);
  a.href = `/events/${encodeURIComponent(e.id)}`;
  li.append(a);
  const bits = e.settings
    ? [eventSummary(s)]
    : [(FORMATS.find(([k]) => k === s.format) || ["", s.format])[1], teamsWords(s.teams), venueWords(s.venue)];
  if (s.date) bits.push(eventDay(s.date)); // the event page's words, not the ISO "2026-12-04"
  const count = Array.isArray(e.entrants) ? e.entrants.length : e.entrants;
  if (typeof count === "number") bits.push(`${count} player${count === 1 ? "" : "s"}`);
  if (!e.settings && e.status === "running" && typeof e.rounds === "number") bits.push(`round ${e.rounds}`);
  li.append(el("span", "note", bits.filter(Boolean).join(" · ")));
  return li;
}

function show(box, list, events) {
  $(box).hidden = !events.length;
  $(list).replaceChildren(...events.map(item));
}

async function loadLists() {
  const r = await fetchJson("/api/events");
  if (!r.ok) {
    $("list-status").textContent = r.error;
    return;
  }
  const all = eventsOf(r.body);
  show("open-box", "open", all.filter((e) => e.status === "open"));
  show("running-box", "running", all.filter((e) => e.status === "running"));
  show("recent-box", "recent", all.filter((e) => e.status === "finished"));
  $("list-status").textContent = all.length ? "" : "No events at the moment: create one below.";
  if (P.username) {
    const m = await fetchJson("/api/events?mine=1");
    if (m.ok) show("mine-box", "mine", eventsOf(m.body));
  }
}

async function start() {
  fill($("ev-format"), FORMATS, "swiss");
  fill($("ev-teams"), TEAMS, "singles");
  fill($("ev-venue"), VENUES, "online");
  $("ev-date").value = new Date().toISOString().slice(0, 10);
  $("ev-format").addEventListener("change", () => {
    renderFormatBest();
    renderFormat();
  });
  $("ev-teams").addEventListener("change", renderTeams);
  $("ev-venue").addEventListener("change", renderVenue);
  $("create-form").addEventListener("submit", create);
  $("code-form").addEventListener("submit", goToCode);
  renderFormat();
  renderVenue();
  renderTieBreaks();
  P.username = await whoIsSignedIn();
  $("create-login").hidden = Boolean(P.username);
  $("create-form").querySelector('button[type="submit"]').disabled = !P.username;
  await loadLists();
  $("main").setAttribute("aria-busy", "false");
  window.crokinoleEvents = { ready: true, tieBreaks: () => P.tieBreaks.slice() };
}

start();
