// The start screen: the big choices (the CPU at each level, pass and play, a party: one tap
// each starts with the default rules), and under "More options" the full form: how to play
// (against the CPU, on this device, a party), the format and R2's house rules, and the
// `create` message they make (docs/protocol.md).

import { $, escapeHtml } from "../../lib/dom.js";
import { clamp } from "../../lib/geometry.js";
import { LAYOUTS, levelName, soloSeats, tableSettings } from "../../lib/state.js";

export function readStart() {
  const f = $("start-form").elements;
  return {
    mode: f.mode.value,
    layout: f.layout.value,
    opponent: f.opponent.value,
    scoring: f.scoring.value,
    discs: Number(f.discs.value),
    required_contact: f.required_contact.checked,
    tie: f.tie.value,
    turn_time: f.turn_time.value,
    hand: f.hand.value,
    standin_level: f.standin_level.value || "normal",
    name: f.name.value.trim().slice(0, 24),
    people: Number(f.people.value) || 2,
    names: seatNames(),
  };
}

/** The names typed for the people on this device, by seat (those left empty are left out). */
function seatNames() {
  const out = {};
  for (const input of $("seat-name-fields").querySelectorAll("input")) {
    const name = input.value.trim();
    if (name && !input.closest("[hidden]")) out[input.name.slice("seat_name_".length)] = name;
  }
  return out;
}

let typed = {}; // the names typed (or remembered) for the seats on this device

/** A name field for each person on this device, by seat; what was typed stays. */
function fillSeatNames(seats) {
  const box = $("seat-name-fields");
  for (const input of box.querySelectorAll("input")) typed[input.name.slice("seat_name_".length)] = input.value;
  box.replaceChildren(...seats.map((seat) => {
    const word = seat.charAt(0).toUpperCase() + seat.slice(1);
    const label = document.createElement("label");
    label.className = "field";
    label.textContent = word;
    const input = document.createElement("input");
    Object.assign(input, { name: `seat_name_${seat}`, maxLength: 24, placeholder: word, spellcheck: false, value: typed[seat] || "" });
    input.autocomplete = "off";
    input.dataset.testid = `seat-name-${seat}`;
    label.append(input);
    return label;
  }));
}

export function createFrom(o, test = {}) {
  const party = o.mode === "party";
  const settings = tableSettings({
    ...o,
    rounds: test.rounds,
    tie: party ? o.tie : "draw",
    turn_time: party ? o.turn_time : null,
    hand: party ? o.hand : "steady",
  });
  if (Number.isFinite(test.turnTime) && test.turnTime > 0) settings.turn_time = test.turnTime; // a test setting
  const msg = { type: "create", kind: party ? "party" : "solo", settings, name: o.name || "You" };
  if (!party) {
    const seats = LAYOUTS[settings.layout].seats.length;
    const people = o.mode === "device" ? clamp(o.people, 2, seats) : 1;
    msg.seats = soloSeats(settings.layout, people, o.opponent || "normal");
    // People sharing the device may name their seats (the server checks the names).
    const names = Object.fromEntries(Object.entries(o.names || {}).filter(([seat]) => msg.seats[seat] === "me"));
    if (o.mode === "device" && Object.keys(names).length) msg.names = names;
  }
  return msg;
}

/** "South, West and North". */
function seatList(seats) {
  const words = seats.map((x) => x.charAt(0).toUpperCase() + x.slice(1));
  return words.length > 1 ? `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}` : words.join("");
}

/** The start form follows the mode: which fields apply, and R2's discs for the format. */
export function updateStartForm(changed = null) {
  const f = $("start-form").elements;
  const mode = f.mode.value;
  const layout = LAYOUTS[f.layout.value] || LAYOUTS.singles;
  const n = layout.seats.length;
  // A new format seats people everywhere; fewer people (CPUs in the other seats) is a choice.
  const keepPeople = changed === "layout" || !f.people.value ? String(n) : f.people.value;
  f.people.replaceChildren(...Array.from({ length: n - 1 }, (_, i) => new Option(`${i + 2} people`, String(i + 2))));
  f.people.value = Number(keepPeople) <= n ? keepPeople : String(n);
  const people = Number(f.people.value);
  $("people-field").hidden = mode !== "device" || n === 2;
  $("opponent-field").hidden = !(mode === "cpu" || (mode === "device" && people < n));
  $("party-rules").hidden = mode !== "party";
  const keep = f.discs.value;
  f.discs.replaceChildren(...layout.discs.map((d) => new Option(d === 8 ? "8 (tournament)" : d === 12 && layout.discs.length > 1 ? "12 (home rule)" : String(d), String(d))));
  f.discs.value = layout.discs.map(String).includes(keep) ? keep : String(layout.discs[0]);
  f.discs.disabled = layout.discs.length === 1;
  const pairs = f.layout.value === "doubles" ? ", partners sitting opposite" : "";
  const notes = {
    cpu: f.layout.value === "singles" ? "You play south against a CPU."
      : f.layout.value === "doubles" ? "You play south with a CPU partner north, against two CPUs."
        : f.layout.value === "two_vs_one" ? "You play south with a CPU partner north, against a CPU west."
          : "You play south against two CPUs, each on their own.",
    device: people < n
      ? `${people} people take turns on this device as ${seatList(layout.seats.slice(0, people))}; CPUs play the other seats.`
      : `${n} people take turns on this device as ${seatList(layout.seats)}${pairs}.`,
    party: `${n} seats${pairs}: friends join with the link or the code; the host can fill seats with CPUs.`,
  };
  $("layout-note").textContent = notes[mode] || "";
  // People sharing this device give a name each (optional): no one name for the device.
  $("name-field").hidden = mode === "device";
  $("seat-names").hidden = mode !== "device";
  fillSeatNames(layout.seats.slice(0, people));
  $("start-button").textContent = mode === "party" ? "Create the party" : "Start";
}

export function fillStart(p, levels, joinLink) {
  const f = $("start-form").elements;
  if (p.mode) f.mode.value = p.mode;
  if (p.layout && LAYOUTS[p.layout]) f.layout.value = p.layout;
  f.scoring.value = p.scoring || "four_rounds";
  f.required_contact.checked = p.required_contact !== false;
  if (p.opponent && levels.some((l) => l.id === p.opponent)) f.opponent.value = p.opponent;
  f.name.value = p.names?.me || "";
  $("join-form").elements.name.value = p.names?.me || "";
  typed = { ...(p.names?.seats || {}) };
  $("seat-name-fields").replaceChildren();
  updateStartForm();
  if (p.discs && Array.from(f.discs.options).some((o) => o.value === String(p.discs))) f.discs.value = String(p.discs);
  if (joinLink) {
    $("join-form").elements.code.value = joinLink.code;
    $("join-form").elements.spectator.checked = joinLink.spectator;
  }
}

/** The device's record against each CPU level, from welcome.record / GET /api/record. */
export function renderRecord(S) {
  const box = $("record-table");
  const rec = S.record;
  if (!rec) return;
  let any = false;
  const rows = S.levels.map(({ id: lvl }) => {
    const cells = ["four_rounds", "to_100"].map((f) => {
      const r = (rec[lvl] && rec[lvl][f]) || { wins: 0, draws: 0, losses: 0 };
      if (r.wins + r.draws + r.losses > 0) any = true;
      return `<td>${r.wins}</td><td>${r.draws}</td><td>${r.losses}</td>`;
    });
    return `<tr><th scope="row">${escapeHtml(levelName(S, lvl))}</th>${cells.join("")}</tr>`;
  });
  if (!any) {
    box.innerHTML = '<p class="note">No games against the CPU yet.</p>';
    return;
  }
  box.innerHTML = `<table><thead><tr><td></td><th colspan="3" scope="colgroup">Four rounds</th><th colspan="3" scope="colgroup">To 100</th></tr>
    <tr><td></td><th scope="col" title="wins">W</th><th scope="col" title="draws">D</th><th scope="col" title="losses">L</th>
    <th scope="col" title="wins">W</th><th scope="col" title="draws">D</th><th scope="col" title="losses">L</th></tr></thead>
    <tbody>${rows.join("")}</tbody></table>`;
}

// ------------------------------------------------------------------ the big choices

/** The rules a one-tap game is played by: the full form's defaults (singles, four rounds, 8 discs). */
export const QUICK_RULES = Object.freeze({
  layout: "singles", scoring: "four_rounds", discs: "8", required_contact: true,
  tie: "extra_rounds", turn_time: "", hand: "human",
});

let quick = false; // the start form is being sent by a big choice, not by its own Start

/** The full form set to a big choice: `mode` with the default rules (and the CPU's `level`). */
function setQuick(mode, level) {
  const f = $("start-form").elements;
  f.mode.value = mode;
  f.layout.value = QUICK_RULES.layout;
  f.scoring.value = QUICK_RULES.scoring;
  f.required_contact.checked = QUICK_RULES.required_contact;
  f.tie.value = QUICK_RULES.tie;
  f.turn_time.value = QUICK_RULES.turn_time;
  f.hand.value = QUICK_RULES.hand;
  if (level) f.opponent.value = level;
  updateStartForm("layout"); // everyone on this device plays (two people in singles)
  f.discs.value = QUICK_RULES.discs;
}

/** Send the start form as app.js does for its Start; a question it asks shows in the full form. */
function submitQuick() {
  const form = $("start-form");
  quickStatus();
  quick = true;
  try {
    form.requestSubmit();
  } finally {
    quick = false;
  }
  // An unfinished game on this device: app.js asks first, in the full form, above its Start.
  if (!$("start-confirm").hidden) {
    const more = $("more-options");
    more.open = true;
    $("start-confirm").scrollIntoView({ block: "center" });
    $("start-button").focus({ preventScroll: true });
  }
}

/** The start screen's line for the player ("Starting…", any trouble), under the big choices. */
function quickStatus() {
  const status = $("start-status");
  $("start-choices").after(status);
  return status;
}

function quickLevel(level) {
  const options = Array.from($("start-form").elements.opponent.options, (o) => o.value);
  if (!options.includes(level)) {
    // The levels come with the server's welcome: not connected yet.
    quickStatus().textContent = "Connecting to the server… try again in a moment.";
    return;
  }
  setQuick("cpu", level);
  submitQuick();
}

function quickParty() {
  const join = $("join-form").elements;
  const f = $("start-form").elements;
  const name = join.name.value.trim() || f.name.value.trim();
  if (!name) {
    // The others see this name in the lobby and on every turn.
    const status = $("join-status");
    status.textContent = "Enter your name: the other players see it.";
    status.classList.add("status-bad");
    join.name.focus();
    return;
  }
  join.name.value = name;
  f.name.value = name;
  $("join-status").textContent = "";
  $("join-status").classList.remove("status-bad");
  setQuick("party");
  submitQuick();
}

/**
 * Wire the big choices once, as the page starts (app.js, before its own listeners): each level's
 * button, Pass and play and Create a party fill the full form with the default rules and send
 * it, so that one path (app.js's submit) makes every game. The two "Your name" fields (the
 * online card's, the full form's) say the same.
 */
export function wireStart() {
  for (const b of document.querySelectorAll("#start-choices .level[data-level]")) {
    b.addEventListener("click", () => quickLevel(b.dataset.level));
  }
  $("quick-device").addEventListener("click", () => {
    setQuick("device");
    submitQuick();
  });
  $("quick-party").addEventListener("click", quickParty);
  // The full form's own Start: its words show beside it.
  $("start-form").addEventListener("submit", () => {
    if (!quick) $("start-button").after($("start-status"));
  });
  const join = $("join-form").elements.name;
  const own = $("start-form").elements.name;
  join.addEventListener("input", () => {
    own.value = join.value;
  });
  // Enter after the name, with no code typed, creates the party (with a code it joins).
  join.addEventListener("keydown", (ev) => {
    if (ev.key !== "Enter" || $("join-form").elements.code.value.trim()) return;
    ev.preventDefault();
    quickParty();
  });
  own.addEventListener("input", () => {
    join.value = own.value;
  });
}
