// The event page (/events/{id}, and /events/join/{code} with the join form open): the public
// view of an event (docs/events.md, "The public view") kept live by its stream, the join form
// and check-in, and for the organiser the controls that run it. Every request goes through
// lib/api.js; every error the server answers is shown next to the control that asked.
//
// The page's state: the last view, who the viewer is ({organiser, entrant}), and the errors
// shown per control. Each view from the stream re-renders the parts (no reload).

import { fetchJson, listen } from "../lib/api.js";
import { $, closeDialog, el, openDialog } from "../lib/dom.js";
import { currentRound, eventDay, eventFromPath, eventSummary, joinLink, nextSteps, rulesWords, statusWords, swapEntrants } from "../lib/events.js";
import * as bracketView from "../views/bracket.js";
import * as pairingsView from "../views/pairings.js";
import { botBadge } from "../views/ranked.js";
import * as standingsView from "../views/standings.js";
import { whoIsSignedIn } from "../views/topbar.js";

const KEY = "crokinole.events"; // this device's entrant in each event it joined: {id: entrant}
const S = { id: null, view: null, username: null, viewer: { organiser: false, entrant: null }, errors: {}, live: false, joinWanted: false };

function remembered() {
  try {
    return JSON.parse(localStorage.getItem(KEY) || "{}") || {};
  } catch {
    return {};
  }
}

function remember(entrant) {
  const all = remembered();
  all[S.id] = entrant;
  localStorage.setItem(KEY, JSON.stringify(all));
}

/** Who the viewer is: the server's word (the view's `you`, in answers to this page) when it
 * gave one, else what we know (the entrant this device joined as). */
function viewerOf(view) {
  const given = view.you || view.viewer;
  if (given && typeof given === "object") {
    return { organiser: Boolean(given.organiser), entrant: given.entrant || remembered()[S.id] || null };
  }
  const organiser = Boolean(S.username && view.organiser_name && view.organiser_name === S.username);
  let entrant = remembered()[S.id] || null;
  if (!entrant && S.username) {
    const mine = (view.entrants || []).find((e) => e.online && (e.members || []).includes(S.username));
    entrant = mine ? mine.id : null;
  }
  return { organiser: organiser || S.viewer.organiser, entrant: entrant || S.viewer.entrant };
}

function api(path) {
  return `/api/events/${encodeURIComponent(S.id)}${path}`;
}

/** A request of the page: the answer; a view in the answer is shown at once. */
async function ask(method, path, body) {
  const r = await fetchJson(api(path), { method, body, token: true });
  if (r.ok && r.body && r.body.id === S.id && Array.isArray(r.body.rounds)) apply(r.body);
  return r;
}

function show(id, words) {
  $(id).textContent = words || "";
}

// ------------------------------------------------------------------ drawing

function apply(view) {
  if (!view || typeof view !== "object") return;
  if (S.view && Number(view.version) < Number(S.view.version)) return; // an older one, late
  // The stream's views are everyone's: who the viewer is comes from this page's own answers.
  if (!(view.you || view.viewer) && S.view && S.view.you) view = { ...view, you: S.view.you };
  S.view = view;
  S.viewer = viewerOf(view);
  render();
}

function render() {
  const view = S.view;
  if (!view) return;
  // The parts are drawn again: the control that had the focus gets it back.
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.testid : null;
  draw(view);
  if (focused && document.activeElement === document.body) {
    const again = document.querySelector(`[data-testid="${CSS.escape(focused)}"]`);
    if (again && !again.disabled) again.focus();
  }
}

function draw(view) {
  const s = view.settings || {};
  document.title = `${s.name} — Crokinole event`;
  $("event-name").textContent = s.name;
  const date = s.date ? ` · ${eventDay(s.date, true)}` : "";
  $("event-summary").textContent = `${eventSummary(s)} · ${rulesWords(s.rules)}${s.rated ? " · rated" : ""}${date}`;
  $("event-status").textContent = statusWords(view) + (S.live ? "" : " (reconnecting…)");
  $("main").setAttribute("aria-busy", "false");
  $("main").dataset.version = String(view.version);
  renderJoin(view);
  renderOrganiser(view);
  pairingsView.render({ view, viewer: S.viewer, errors: S.errors });
  bracketView.render({ view });
  standingsView.render({ view });
  renderEntrants(view);
  renderCorrections(view);
  $("csv-link").href = api("/standings.csv");
  $("cmn-link").href = api("/cmn.json");
}

function renderJoin(view) {
  const open = view.status !== "finished";
  $("join-box").hidden = !open;
  if (!open) return;
  $("join-code").textContent = view.code || "";
  $("join-link").value = view.code ? joinLink(location.origin, view.code) : "";
  const qr = $("join-qr");
  if (S.viewer.organiser || S.joinWanted || view.status === "open") {
    if (!qr.getAttribute("src")) qr.src = api("/qr.svg");
    qr.alt = `A QR code of the join link, ${view.code}`;
    qr.hidden = false;
  }
  const teams = fixedTeams(view);
  $("join-members").hidden = !teams;
  $("join-name-label").textContent = teams ? "Your team's name" : "Your name";
  const me = (view.entrants || []).find((e) => e.id === S.viewer.entrant);
  const online = (view.settings || {}).venue === "online";
  $("join-form").hidden = Boolean(me);
  $("join-login").hidden = !(online && !S.username);
  $("join-form").querySelector("button").disabled = online && !S.username;
  $("me-box").hidden = !me;
  if (me) {
    const status = me.status === "active" ? "" : me.status === "paused" ? " You are paused." : " You dropped out.";
    $("me-words").textContent = me.checked_in ? `You are in as ${me.name}, checked in.${status}` : `You are in as ${me.name}. Check in when you are here.${status}`;
    $("check-in").hidden = me.checked_in || view.status !== "open";
  }
}

function renderOrganiser(view) {
  const box = $("organiser");
  box.hidden = !S.viewer.organiser;
  if (!S.viewer.organiser) return;
  const steps = nextSteps(view);
  const round = currentRound(view);
  $("pair-next").hidden = !steps.pair;
  $("start-round").hidden = !steps.start;
  $("repair").hidden = !steps.repair;
  $("finish-event").hidden = !steps.finish;
  $("pause-event").hidden = view.status === "finished";
  $("pause-event").textContent = view.paused ? "Resume the event" : "Pause the event";
  if (steps.start) $("start-round").textContent = `Start round ${steps.start}`;
  if (steps.repair) $("repair").textContent = `Pair round ${steps.repair} again`;
  const checked = (view.entrants || []).filter((e) => e.checked_in && e.status === "active").length;
  let next;
  if (view.status === "finished") next = "The event is finished.";
  else if (view.complete && (!round || round.over)) next = "Every round is played: finish the event to make the standings final.";
  else if (!round) next = `${checked} of ${(view.entrants || []).length} players checked in. Pair round 1 when everyone is here.`;
  else if (!round.started) next = `Round ${round.number} is paired: start it when the boards are ready.`;
  else if (!round.over) next = `Round ${round.number} is under way: results come in below.`;
  else next = `Round ${round.number} is over: pair the next round.`;
  $("next-step").textContent = next;
  $("add-form").hidden = view.status === "finished";
  renderSwap(view, steps.repair ? round : null);
  $("add-members").hidden = !fixedTeams(view);
  $("add-name-label").textContent = fixedTeams(view) ? "Team name" : "Name";
  $("add-form").querySelector("h3").textContent = fixedTeams(view) ? "Add a team" : "Add a player";
}

/** Before a round starts, the organiser may swap two of its entrants (their own pairings). */
function renderSwap(view, round) {
  $("swap-form").hidden = !round;
  if (!round) return;
  $("swap-title").textContent = `Change round ${round.number}'s pairings`;
  const names = new Map((view.entrants || []).map((e) => [e.id, e.name]));
  const ids = (round.pairings || []).flatMap((p) => p.sides.flat());
  for (const [id, other] of [["swap-a", 0], ["swap-b", 1]]) {
    const select = $(id);
    const before = select.value;
    select.replaceChildren(...ids.map((e) => new Option(names.get(e) || e, e)));
    select.value = ids.includes(before) ? before : ids[Math.min(other, ids.length - 1)] || "";
  }
}

async function swap(ev) {
  ev.preventDefault();
  show("swap-error", "");
  const round = currentRound(S.view);
  const a = $("swap-a").value;
  const b = $("swap-b").value;
  if (!round || a === b) {
    show("swap-error", "Choose two different players to swap.");
    return;
  }
  const r = await ask("PUT", `/rounds/${round.number}`, { pairings: swapEntrants(round.pairings, a, b) });
  if (!r.ok) show("swap-error", r.error);
}

function fixedTeams(view) {
  return (view.settings || {}).teams === "fixed";
}

/** A fixed team's two players from a form's boxes; an Error in words when one is missing. */
function membersFrom(prefix) {
  const names = [1, 2].map((k) => $(`${prefix}-member-${k}`).value.trim());
  if (names.some((n) => !n)) throw new Error("A team is two players: write both names.");
  return names;
}

function statusWordsOf(e) {
  const parts = [];
  if (e.status === "paused") parts.push("paused");
  if (e.status === "dropped") parts.push("dropped");
  parts.push(e.checked_in ? "checked in" : "not checked in");
  if (e.online) parts.push("plays online"); // has an account for an online table (not: connected now)
  return parts.join(", ");
}

function entrantItem(view, e) {
  const li = el("li", `entrant ${e.status}`);
  li.dataset.testid = `entrant-${e.id}`;
  const name = el("span", "entrant-name", e.name);
  const members = (e.members || []).length > 1 ? ` (${e.members.join(" & ")})` : "";
  if (members) name.append(el("span", "note", members));
  if (e.bot === true) name.append(" ", botBadge());
  li.append(name, el("span", "note entrant-state", statusWordsOf(e)));
  if (S.viewer.organiser && view.status !== "finished") {
    const tools = el("span", "entrant-tools");
    if (!e.checked_in && view.status === "open") tools.append(entrantButton("Check in", () => checkIn(e.id), `check-in-${e.id}`));
    if (e.status === "active") tools.append(entrantButton("Pause", () => setStatus(e, "paused"), `pause-${e.id}`));
    if (e.status !== "active") tools.append(entrantButton("Resume", () => setStatus(e, "active"), `resume-${e.id}`));
    if (e.status !== "dropped") tools.append(entrantButton("Drop", () => setStatus(e, "dropped"), `drop-${e.id}`, "danger"));
    li.append(tools);
  }
  return li;
}

function renderEntrants(view) {
  const list = $("entrants");
  const entrants = view.entrants || [];
  if (!entrants.length) {
    list.replaceChildren(el("li", "note", "Nobody has joined yet."));
    return;
  }
  const pools = view.pools || [];
  if (!pools.length) {
    list.replaceChildren(...entrants.map((e) => entrantItem(view, e)));
    return;
  }
  // Pools: each pool's players under its name, then anyone in none.
  const byId = new Map(entrants.map((e) => [e.id, e]));
  const placed = new Set();
  const items = [];
  for (const pool of pools) {
    const head = el("li", "pool-head");
    head.append(el("h3", "", pool.name));
    items.push(head);
    for (const id of pool.entrants) {
      if (!byId.has(id)) continue;
      placed.add(id);
      items.push(entrantItem(view, byId.get(id)));
    }
  }
  for (const e of entrants) if (!placed.has(e.id)) items.push(entrantItem(view, e));
  list.replaceChildren(...items);
}

function entrantButton(text, onClick, testid, cls = "") {
  const b = el("button", cls, text);
  b.type = "button";
  b.dataset.testid = testid;
  b.addEventListener("click", onClick);
  return b;
}

function renderCorrections(view) {
  const items = view.corrections || [];
  $("corrections-box").hidden = !items.length;
  $("corrections").replaceChildren(
    ...items.map((c) => {
      const when = c.at ? new Date(c.at * 1000).toLocaleString() : "";
      const li = el("li", "", `Round ${c.round}, board ${c.table}: ${c.reason}`);
      if (when) li.append(el("span", "note", ` (${when})`));
      return li;
    }),
  );
}

// ------------------------------------------------------------------ confirm dialog

/** Ask before something that cannot be undone; resolves to true for yes. */
function confirmAsk(text, yes) {
  const d = $("confirm-dialog");
  $("confirm-text").textContent = text;
  $("confirm-yes").textContent = yes;
  return new Promise((resolve) => {
    d.returnValue = "";
    d.addEventListener("close", () => resolve(d.returnValue === "yes"), { once: true });
    openDialog(d);
  });
}

// ------------------------------------------------------------------ the organiser's actions

async function organiserAct(button, method, path, body, done) {
  show("organiser-error", "");
  button.disabled = true;
  const r = await ask(method, path, body);
  button.disabled = false;
  if (!r.ok) show("organiser-error", r.error);
  else if (done) done();
}

async function pairNext() {
  await organiserAct($("pair-next"), "POST", "/rounds");
}

async function startRound() {
  const n = nextSteps(S.view).start;
  if (n) await organiserAct($("start-round"), "POST", `/rounds/${n}/start`);
}

async function repair() {
  const n = nextSteps(S.view).repair;
  if (!n) return;
  if (!(await confirmAsk(`Pair round ${n} again? Its pairings are drawn anew; nobody has played yet.`, "Pair again"))) return;
  await organiserAct($("repair"), "PUT", `/rounds/${n}`, {});
}

async function togglePause() {
  await organiserAct($("pause-event"), "POST", "/pause", { paused: !S.view.paused });
}

async function finish() {
  if (!(await confirmAsk("Finish the event? No more rounds can be paired; the standings are final.", "Finish"))) return;
  await organiserAct($("finish-event"), "POST", "/finish", {});
}

async function addPlayer(ev) {
  ev.preventDefault();
  const name = $("add-name").value.trim();
  const account = $("add-account").value.trim();
  show("add-error", "");
  if (!name && !account) {
    show("add-error", "Write the player's name (or their username).");
    return;
  }
  const body = { name: name || account };
  if (account) body.account = account;
  if (fixedTeams(S.view)) {
    try {
      body.members = membersFrom("add");
    } catch (err) {
      show("add-error", err.message);
      return;
    }
  }
  const r = await ask("POST", "/entrants", body);
  if (!r.ok) {
    show("add-error", r.error);
    return;
  }
  for (const id of ["add-name", "add-account", "add-member-1", "add-member-2"]) $(id).value = "";
  $("add-name").focus();
  if (!(r.body && r.body.rounds)) await reload();
}

async function setStatus(entrant, status) {
  show("entrants-error", "");
  if (status === "dropped" && !(await confirmAsk(`Drop ${entrant.name} from the event? Their games so far still count; they are paired no more.`, "Drop"))) return;
  const r = await ask("POST", `/entrants/${encodeURIComponent(entrant.id)}/status`, { status });
  if (!r.ok) show("entrants-error", `${entrant.name}: ${r.reason}`);
}

async function checkIn(entrant) {
  const mine = entrant === S.viewer.entrant;
  show(mine ? "me-error" : "entrants-error", "");
  const r = await ask("POST", `/entrants/${encodeURIComponent(entrant)}/check-in`, {});
  if (!r.ok) show(mine ? "me-error" : "entrants-error", r.error);
}

// ------------------------------------------------------------------ joining

async function join(ev) {
  ev.preventDefault();
  const name = $("join-name").value.trim() || S.username || "";
  show("join-error", "");
  if (!name) {
    show("join-error", "Write your name to join.");
    return;
  }
  const sent = { name };
  if (fixedTeams(S.view)) {
    try {
      sent.members = membersFrom("join");
    } catch (err) {
      show("join-error", err.message);
      return;
    }
  }
  const r = await fetchJson(api("/join"), { method: "POST", body: sent, token: true });
  if (!r.ok) {
    show("join-error", r.error);
    return;
  }
  const body = r.body || {};
  const entrant = body.entrant || (body.viewer && body.viewer.entrant) || (body.entrants || []).slice().reverse().find((e) => e.name === name)?.id;
  if (entrant) {
    remember(entrant);
    S.viewer = { ...S.viewer, entrant };
  }
  if (body.id === S.id && Array.isArray(body.rounds)) apply(body);
  else await reload();
}

// ------------------------------------------------------------------ a pairing's actions

function errorOf(round, pairing, words) {
  S.errors[`${round.number}/${pairing.table}`] = words;
  render();
}

async function pairingAct(action, round, pairing) {
  errorOf(round, pairing, "");
  const path = `/rounds/${round.number}/tables/${pairing.table}`;
  if (action === "confirm") {
    const r = await ask("POST", `${path}/confirm`, {});
    if (!r.ok) errorOf(round, pairing, r.error);
  } else if (action === "sheet") {
    const r = await ask("POST", `${path}/sheet`, {});
    if (!r.ok) {
      errorOf(round, pairing, r.error);
      return;
    }
    const body = r.body || {};
    if (!body.sheet) {
      errorOf(round, pairing, "The server made no score sheet for this board.");
      return;
    }
    // The device that opened the sheet first keeps score on it; the others read it by its share link.
    const own = body.owner !== false;
    const q = new URLSearchParams(own ? { sheet: body.sheet } : { share: body.share_id });
    Object.entries({ event: S.id, round: String(round.number), table: String(pairing.table) }).forEach(([k, v]) => q.set(k, v));
    location.assign(`/keep-score?${q}`);
  } else if (action === "enter" || action === "correct") {
    openResult(action, round, pairing);
  }
}

// ------------------------------------------------------------------ the result dialog

const R = { action: null, round: null, pairing: null };

function roundRow(pairing, values, nth) {
  const row = el("div", "result-round");
  const label = el("span", "note round-no", String(nth));
  label.setAttribute("aria-hidden", "true");
  row.append(label);
  const number = (k) => {
    const input = document.createElement("input");
    input.type = "number";
    input.inputMode = "numeric";
    input.min = "0";
    input.step = k % 2 ? "1" : "5";
    input.value = values ? String(k % 2 ? values.twenties[k >> 1] : values.totals[k >> 1]) : "";
    return input;
  };
  [0, 1].forEach((side) => {
    const total = number(side * 2);
    total.dataset.role = `total-${side}`;
    total.setAttribute("aria-label", `Round ${nth}, ${pairing.names[side]}: total`);
    const twenties = number(side * 2 + 1);
    twenties.dataset.role = `twenties-${side}`;
    twenties.setAttribute("aria-label", `Round ${nth}, ${pairing.names[side]}: 20s`);
    const cell = el("span", "result-side");
    cell.append(total, el("span", "note", "20s"), twenties);
    row.append(cell);
  });
  return row;
}

function gameBlock(pairing, number, game) {
  const box = el("fieldset", "result-game");
  box.append(el("legend", "", `Game ${number}: ${pairing.names[0]} – ${pairing.names[1]}`));
  const head = el("div", "result-round result-head");
  head.append(el("span", "note", "#"), el("span", "note", `${pairing.names[0]}: total, 20s`), el("span", "note", `${pairing.names[1]}: total, 20s`));
  head.setAttribute("aria-hidden", "true");
  box.append(head);
  const rounds = game && game.rounds && game.rounds.length ? game.rounds : [null, null, null, null];
  rounds.forEach((r, k) => box.append(roundRow(pairing, r, k + 1)));
  return box;
}

function openResult(action, round, pairing) {
  Object.assign(R, { action, round, pairing });
  const correcting = action === "correct";
  $("result-title").textContent = correcting ? "Correct the result" : "Enter the result";
  $("result-who").textContent = `Round ${round.number}, ${pairing.names[0]} – ${pairing.names[1]}: each round's totals and 20s.`;
  const games = (pairing.result && pairing.result.games) || [];
  const count = Math.max(games.length, pairing.best_of > 1 ? Math.ceil(pairing.best_of / 2) : 1);
  const blocks = [];
  for (let g = 0; g < count; g += 1) blocks.push(gameBlock(pairing, g + 1, games[g]));
  $("result-games").replaceChildren(...blocks);
  $("add-game").hidden = pairing.best_of <= 1;
  $("reason-label").hidden = !correcting;
  $("result-reason").value = "";
  show("result-error", "");
  openDialog($("result-dialog"));
  $("result-games").querySelector("input").focus();
}

function readResult() {
  const games = [];
  for (const box of $("result-games").querySelectorAll(".result-game")) {
    const rounds = [];
    for (const row of box.querySelectorAll(".result-round:not(.result-head)")) {
      const value = (role) => row.querySelector(`[data-role="${role}"]`).value.trim();
      const texts = ["total-0", "twenties-0", "total-1", "twenties-1"].map(value);
      if (texts.every((t) => t === "")) continue;
      if (texts[0] === "" || texts[2] === "") throw new Error("Each round played needs both sides' totals.");
      const n = texts.map((t) => (t === "" ? 0 : Number(t)));
      if (n.some((x) => !Number.isInteger(x) || x < 0)) throw new Error("Totals and 20s are whole numbers, 0 or more.");
      rounds.push({ totals: [n[0], n[2]], twenties: [n[1], n[3]] });
    }
    if (rounds.length) games.push({ rounds });
  }
  if (!games.length) throw new Error("Enter the totals of the rounds played.");
  return games;
}

async function saveResult(ev) {
  ev.preventDefault();
  let games;
  try {
    games = readResult();
  } catch (err) {
    show("result-error", err.message);
    return;
  }
  const path = `/rounds/${R.round.number}/tables/${R.pairing.table}/result`;
  let r;
  if (R.action === "correct") {
    const reason = $("result-reason").value.trim();
    if (!reason) {
      show("result-error", "Say why the result is corrected: it goes in the event's log.");
      return;
    }
    r = await ask("PUT", path, { games, reason });
  } else r = await ask("POST", path, { games });
  if (!r.ok) {
    show("result-error", r.error);
    return;
  }
  closeDialog($("result-dialog"));
}

// ------------------------------------------------------------------ start

async function reload() {
  const r = await fetchJson(api(""), { token: true });
  if (!r.ok) {
    $("event-status").textContent = r.status === 404 ? "There is no such event." : r.error;
    $("main").setAttribute("aria-busy", "false");
    return false;
  }
  apply(r.body);
  return true;
}

function wire() {
  pairingsView.wire({ act: pairingAct });
  bracketView.wire({});
  standingsView.wire({});
  $("pair-next").addEventListener("click", pairNext);
  $("start-round").addEventListener("click", startRound);
  $("repair").addEventListener("click", repair);
  $("pause-event").addEventListener("click", togglePause);
  $("finish-event").addEventListener("click", finish);
  $("add-form").addEventListener("submit", addPlayer);
  $("swap-form").addEventListener("submit", swap);
  $("join-form").addEventListener("submit", join);
  $("check-in").addEventListener("click", () => checkIn(S.viewer.entrant));
  $("result-form").addEventListener("submit", saveResult);
  $("result-cancel").addEventListener("click", () => closeDialog($("result-dialog")));
  $("add-round").addEventListener("click", () => {
    const games = $("result-games").querySelectorAll(".result-game");
    const last = games[games.length - 1];
    last.append(roundRow(R.pairing, null, last.querySelectorAll(".result-round:not(.result-head)").length + 1));
  });
  $("add-game").addEventListener("click", () => {
    const n = $("result-games").querySelectorAll(".result-game").length;
    if (n < R.pairing.best_of) $("result-games").append(gameBlock(R.pairing, n + 1, null));
  });
  $("show-code").addEventListener("click", () => {
    $("screen-code").textContent = S.view ? S.view.code : "";
    $("screen-link").textContent = $("join-link").value;
    $("screen-qr").src = api("/qr.svg");
    $("screen-qr").alt = `A QR code of the join link, ${S.view ? S.view.code : ""}`;
    openDialog($("code-dialog"));
  });
  $("copy-link").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("join-link").value);
      $("copy-link").textContent = "Copied";
    } catch {
      $("join-link").select();
    }
  });
}

async function start() {
  wire();
  const params = new URLSearchParams(location.search);
  const where = eventFromPath(location.pathname) || (params.get("id") ? { id: params.get("id") } : null);
  if (!where) {
    $("event-status").textContent = "This address names no event.";
    return;
  }
  if (where.code) {
    const r = await fetchJson(`/api/events/code/${encodeURIComponent(where.code)}`);
    if (!r.ok || !r.body || !r.body.id) {
      $("event-status").textContent = r.status === 404 ? `No event has the code ${where.code}.` : r.error;
      $("main").setAttribute("aria-busy", "false");
      return;
    }
    S.id = r.body.id;
    S.joinWanted = true;
    history.replaceState(null, "", `/events/${encodeURIComponent(S.id)}?join=1`);
  } else {
    S.id = where.id;
    S.joinWanted = params.has("join");
  }
  S.username = await whoIsSignedIn();
  if (S.username) $("join-name").value = S.username;
  if (!(await reload())) return;
  listen(api("/stream"), apply, (open) => {
    S.live = open;
    if (S.view) $("event-status").textContent = statusWords(S.view) + (open ? "" : " (reconnecting…)");
  });
  S.live = true;
  render();
  if (S.joinWanted && !$("join-form").hidden) $("join-name").focus();
  window.crokinoleEvent = { view: () => S.view, viewer: () => S.viewer };
}

start();
