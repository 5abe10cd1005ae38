// The lobby of a party: seats and who sits where, presence, the rules, the invite, and the
// host's controls. Every action goes through `act(message)`; the server answers with the
// new lobby, which is drawn again from the state.

import { markSvg } from "./board.js";

import { botBadge } from "./ranked.js";
import { $, button, el } from "../lib/dom.js";
import { LAYOUTS, SEATS, allSeatsFilled, canStart, levelName, memberOf, occupantName, tableSettings } from "../lib/state.js";

const SEAT_WORD = { south: "South", west: "West", north: "North", east: "East" };

export function rulesLines(s) {
  const x = s.settings || {};
  const lines = [];
  lines.push(LAYOUTS[x.layout] ? LAYOUTS[x.layout].name : String(x.layout));
  lines.push(`${x.discs} discs each side`);
  lines.push(x.scoring === "to_100" ? "First to 100" : `Four rounds (2 points a round win)${x.rounds && x.rounds !== 4 ? `, ${x.rounds} round${x.rounds === 1 ? "" : "s"} only` : ""}`);
  if (x.scoring !== "to_100") lines.push(x.tie === "extra_rounds" ? "A tie: extra rounds (at most 4)" : "A tie: the game is drawn");
  lines.push(x.required_contact === false ? "No required contact" : "Required contact");
  lines.push(x.turn_time ? `${x.turn_time} s per turn` : "No turn clock");
  lines.push(x.hand === "human" ? "Human hand: shots vary like a strong club player's" : "Steady hand: shots go exactly as aimed");
  if (x.standin_level) lines.push(`A missing player is played by ${levelName(s, x.standin_level)}`);
  if (typeof x.hints === "boolean") lines.push(x.hints ? "Hints allowed: each player may ask for the best shots and a heat map on their turn" : "No hints");
  return lines;
}

function levelSelect(s, label, onPick, testid) {
  const sel = el("select");
  sel.setAttribute("aria-label", label);
  if (testid) sel.dataset.testid = testid;
  sel.append(new Option(label, ""));
  for (const l of s.levels) sel.append(new Option(`CPU ${l.name}`, l.id));
  sel.addEventListener("change", () => {
    if (sel.value) onPick(sel.value);
  });
  return sel;
}

function moveSelect(s, member, current, act) {
  const sel = el("select");
  sel.setAttribute("aria-label", `Move ${(memberOf(s, member) || {}).name || "player"}`);
  sel.dataset.testid = `move-${member}`;
  sel.append(new Option("Move to…", ""));
  // Only free seats (a person's seat is refused: seat_taken); a CPU's seat is taken over.
  const free = s.seats.filter((x) => x.seat !== current && !(x.occupant && x.occupant.kind === "person"));
  for (const x of free) sel.append(new Option(SEAT_WORD[x.seat], x.seat));
  // (The host's own seat has its "Stand up" button already.)
  if (current && member !== s.you.member) sel.append(new Option("Stand up", "none"));
  if (sel.options.length === 1) return null; // nowhere to move
  sel.addEventListener("change", () => {
    if (!sel.value) return;
    act({ type: "move", table: s.table, member, seat: sel.value === "none" ? null : sel.value });
  });
  return sel;
}

/** The host's "Allow hints" switch: the party's settings as they are, with hints on or off. */
export function wireHintsSwitch(state, act) {
  $("hints-toggle").addEventListener("change", (ev) => {
    const s = state();
    if (!s.table || !s.settings) return;
    act({ type: "settings", table: s.table, settings: { ...s.settings, hints: ev.target.checked } });
  });
}

/** Draw the lobby of state `s`; `act(msg)` sends a message. */
export function renderLobby(s, act) {
  $("lobby-title").textContent = s.you.spectator ? "Watching a party" : "Party lobby";
  $("party-code").textContent = s.code || "";
  const link = s.invite ? new URL(s.invite, location.origin).href : "";
  const input = $("invite-link");
  if (input.value !== link) input.value = link;
  const host = Boolean(s.you.host);
  const list = $("lobby-seats");
  const clockwise = s.seats.slice().sort((a, b) => SEATS.indexOf(a.seat) - SEATS.indexOf(b.seat));
  const items = clockwise.map((x) => {
    const li = el("li", "lobby-seat");
    li.dataset.seat = x.seat;
    li.dataset.testid = `seat-${x.seat}`;
    const o = x.occupant;
    const head = el("div", "seat-head");
    // The side's disc as the board draws it (in the chosen colours), and the partner if any.
    const word = el("span", "seat-word");
    word.innerHTML = markSvg(null, x.side, 16); // a fixed picture: no text of anyone's in it
    const team = ((LAYOUTS[(s.settings || {}).layout] || {}).sides || []).find((t) => t.includes(x.seat)) || [];
    const partner = team.filter((y) => y !== x.seat).map((y) => SEAT_WORD[y]).join(" & ");
    word.append(`${SEAT_WORD[x.seat]}${partner ? ` · partner ${partner}` : ""}`);
    head.append(word);
    const who = el("span", "seat-who");
    if (o && o.kind === "person") {
      const dot = el("i", `dot ${o.connected === false ? "off" : "on"}`);
      dot.setAttribute("aria-label", o.connected === false ? "not connected" : "connected");
      who.append(dot);
    }
    const mine = o && o.kind === "person" && o.member === s.you.member;
    who.append(el("span", "seat-name", occupantName(s, x.seat) + (mine ? " (you)" : "")));
    if (o && o.bot === true) who.append(botBadge());
    if (o && o.kind === "person" && o.member === s.host) who.append(el("span", "badge", "host"));
    if (!o) who.classList.add("empty");
    head.append(who);
    li.append(head);
    const tools = el("div", "seat-tools");
    if (!o && !s.you.spectator && s.you.member) {
      tools.append(button("Sit here", () => act({ type: "take_seat", table: s.table, seat: x.seat }), { "data-testid": `sit-${x.seat}` }));
    }
    if (mine) tools.append(button("Stand up", () => act({ type: "take_seat", table: s.table, seat: null }), { "data-testid": `stand-${x.seat}` }));
    if (host) {
      if (!o) tools.append(levelSelect(s, "Fill with a CPU…", (lvl) => act({ type: "set_cpu", table: s.table, seat: x.seat, level: lvl }), `cpu-${x.seat}`));
      else if (o.kind === "cpu") {
        tools.append(button("Clear", () => act({ type: "set_cpu", table: s.table, seat: x.seat, level: null }), { "data-testid": `clear-${x.seat}` }));
      } else {
        const move = moveSelect(s, o.member, x.seat, act);
        if (move) tools.append(move);
        if (!mine) tools.append(button("Remove", () => act({ type: "remove", table: s.table, member: o.member }), { "data-testid": `remove-${o.member}` }));
      }
    }
    if (tools.childElementCount) li.append(tools);
    return li;
  });
  list.replaceChildren(...items);

  const seated = new Set(s.seats.filter((x) => x.occupant && x.occupant.member).map((x) => x.occupant.member));
  const loose = s.members.filter((m) => !m.spectator && !seated.has(m.member));
  const box = $("lobby-unseated");
  if (!loose.length) box.replaceChildren();
  else {
    const ul = el("ul", "unseated-list");
    for (const m of loose) {
      const li = el("li");
      const dot = el("i", `dot ${m.connected === false ? "off" : "on"}`);
      li.append(dot, el("span", "", `${m.name}${m.member === s.you.member ? " (you)" : ""}`));
      if (m.bot === true) li.append(botBadge());
      li.append(el("span", "", ": not seated"));
      if (host) {
        const move = moveSelect(s, m.member, null, act);
        if (move) li.append(move);
        if (m.member !== s.you.member) li.append(button("Remove", () => act({ type: "remove", table: s.table, member: m.member }), { "data-testid": `remove-${m.member}` }));
      }
      ul.append(li);
    }
    box.replaceChildren(el("h3", "", "Not seated"), ul);
  }
  const watching = s.spectators || 0;
  $("lobby-spectators").textContent = watching ? `${watching} watching` : "";
  $("lobby-rules").replaceChildren(...rulesLines(s).map((t) => el("li", "", t)));

  // The host allows hints (issue 13); the others read it in the rules above.
  const hintsKnown = Boolean(s.settings) && typeof s.settings.hints === "boolean";
  $("hints-switch").hidden = !host || !hintsKnown || Boolean(s.ranked);
  // Set from the settings when they change (or a refusal came): not back over a click on its way.
  const toggle = $("hints-toggle");
  const allowed = String(Boolean(s.settings && s.settings.hints));
  if (toggle.dataset.shown !== allowed || s.error) {
    toggle.checked = allowed === "true";
    toggle.dataset.shown = allowed;
  }
  $("rules-button").hidden = !host;
  $("leave-button").textContent = s.you.spectator ? "Stop watching" : "Leave the party";
  const start = $("party-start-button");
  start.hidden = !host;
  start.disabled = !canStart(s);
  let status = "";
  if (s.you.spectator) status = "You are watching: the game shows here when the host starts it.";
  else if (!allSeatsFilled(s)) status = host ? "Fill every seat (people or CPUs) to start." : "Pick a seat. The host starts the game when every seat is filled.";
  else if (!s.you.seats.length) status = host ? "Every seat is filled without you: start when you are ready, and watch." : "Every seat is filled without you: you will watch the game unless the host seats you.";
  else status = host ? "Every seat is filled: start when you are ready." : "Every seat is filled: waiting for the host to start.";
  // A refusal (a seat taken a moment before, …) stays in view until the lobby changes again.
  const line = $("lobby-status");
  line.textContent = s.error ? s.error.message : status;
  line.classList.toggle("status-bad", Boolean(s.error));
}

/** The host's rules form filled with the party's settings. */
export function fillRules(x) {
  const f = $("rules-form").elements;
  f.layout.value = x.layout || "singles";
  fillRulesDiscs();
  f.discs.value = String(x.discs || 8);
  f.scoring.value = x.scoring || "four_rounds";
  f.required_contact.checked = x.required_contact !== false;
  f.tie.value = x.tie || "extra_rounds";
  f.turn_time.value = [30, 60].includes(x.turn_time) ? String(x.turn_time) : "";
  f.hand.value = x.hand || "human";
  f.standin_level.value = x.standin_level || "normal";
}

export function fillRulesDiscs() {
  const f = $("rules-form").elements;
  const l = LAYOUTS[f.layout.value] || LAYOUTS.singles;
  const keep = f.discs.value;
  f.discs.replaceChildren(...l.discs.map((d) => new Option(String(d), String(d))));
  if (l.discs.map(String).includes(keep)) f.discs.value = keep;
}

/** The settings the host's rules form says, keeping the shortened rounds and a test clock. */
export function readRules(current) {
  const f = $("rules-form").elements;
  const settings = tableSettings({
    layout: f.layout.value, discs: f.discs.value, scoring: f.scoring.value,
    rounds: current && current.rounds, tie: f.tie.value, required_contact: f.required_contact.checked,
    turn_time: f.turn_time.value, hand: f.hand.value, standin_level: f.standin_level.value,
  });
  // A short test clock (not one of R2's choices) stays unless another clock is chosen.
  if (current && typeof current.hints === "boolean") settings.hints = current.hints; // the lobby's switch sets it
  const old = current && current.turn_time;
  if (!f.turn_time.value && old && ![30, 60].includes(old)) settings.turn_time = old;
  return settings;
}
