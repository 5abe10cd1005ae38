// The scoreboard: a card per side (score, this round, discs in hand, 20s, ditch), its players
// with their presence, the round, whose turn it is and the turn clock.

import { markSvg } from "./board.js";
import { $, escapeHtml } from "../lib/dom.js";
import { provisionalMark } from "./ranked.js";
import { clock, isSpectator, reactionLine, reactionText, seatOf, seatRating, sideName, standInText } from "../lib/state.js";

const MAX_SIDES = 3;

function presence(s, seat) {
  const x = seatOf(s, seat);
  const o = x && x.occupant;
  if (!o || o.kind !== "person" || (s.kind !== "party" && !s.ranked)) return "";
  const on = o.connected !== false;
  return `<i class="dot ${on ? "on" : "off"}" title="${on ? "connected" : "not connected"}" aria-label="${on ? "connected" : "not connected"}"></i>`;
}

/**
 * Draw the cards. `ui`: {moving (seat or null while discs move), turnText, thinking, left: {seat:
 * name} of players who left this game (a CPU plays their seats)}.
 */
export function renderScoreboard(s, ui) {
  const g = s.game;
  if (!g) return;
  const board = $("side-card-0").parentElement;
  board.classList.toggle("three", g.sides.length > 2);
  for (let i = 0; i < MAX_SIDES; i += 1) {
    const card = $(`side-card-${i}`);
    const side = g.sides[i];
    if (!side) {
      card.hidden = true;
      continue;
    }
    card.hidden = false;
    const seats = g.seats.filter((x) => x.side === i);
    const inHand = seats.reduce((n, x) => n + (x.in_hand || 0), 0);
    const toMove = g.phase === "playing" && seats.some((x) => x.seat === ui.moving);
    card.classList.toggle("to-move", toMove);
    const name = escapeHtml(sideName(g, i));
    const players = seats.length > 1 || s.kind === "party" || s.ranked
      ? `<div class="players">${seats.map((x) => {
        const left = ui.left && ui.left[x.seat];
        const stand = standInText(s, x.seat) || (left ? `for ${left}, who left` : null);
        const cls = x.seat === ui.moving ? " class=\"moving\"" : "";
        const r = seatRating(s, x.seat);
        const rating = r ? ` <span class="seat-rating" data-testid="seat-rating-${x.seat}" title="ranked rating">${r.rating}</span>${provisionalMark(r.provisional)}` : "";
        return `<span${cls} data-seat="${x.seat}">${presence(s, x.seat)}${escapeHtml(x.name)}${rating}${stand ? ` <em class="stand-in">(${escapeHtml(stand)})</em>` : ""}</span>`;
      }).join("")}</div>`
      : "";
    card.innerHTML = `<div class="name">${markSvg(g, i)}<span title="${name}">${name}</span></div>${players}
      <div class="stats"><span>Score <b class="score" data-testid="score-${i}">${side.score}</b></span>
      <span>This round <b data-testid="round-total-${i}">${side.round_total}</b></span>
      <span>In hand <b data-testid="in-hand-${i}">${inHand}</b></span>
      <span>20s <b data-testid="twenties-${i}">${side.twenties}</b></span>
      <span>Ditch <b>${side.ditch ?? 0}</b></span></div>`;
    card.setAttribute("aria-label", `${sideName(g, i)}: score ${side.score}, this round ${side.round_total}, ${inHand} discs in hand, ${side.twenties} twenties, ${side.ditch ?? 0} in the ditch${toMove ? ", to shoot" : ""}`);
  }
  const rules = g.rules;
  // Ranked games always have the human hand (the start screen says so): the label stays short.
  const hand = s.settings && s.settings.hand === "human" && !s.ranked ? " · human hand" : "";
  const watching = s.kind === "party" && s.spectators ? ` · ${s.spectators} watching` : "";
  $("round-label").textContent = (s.ranked ? "Ranked · " : "") + (rules.scoring === "to_100"
    ? `Round ${g.round} · to ${rules.target || 100}`
    : `Round ${g.round} of ${rules.rounds}`) + hand + watching;
  const turn = $("turn-indicator");
  turn.textContent = ui.turnText;
  turn.classList.toggle("thinking", Boolean(ui.thinking));
}

/** The turn clock (and the stand-in grace) counted down from the server's deadline. */
export function renderClock(s, localNow) {
  const box = $("turn-clock");
  const c = clock(s, localNow);
  const g = s.game;
  if (!c || !g || (c.kind !== "turn" && c.kind !== "standin") || g.phase !== "playing") {
    box.hidden = true;
    box.textContent = "";
    return;
  }
  // The server adds a small grace for latency: the player is shown the turn time itself.
  const shown = c.kind === "turn" && s.settings && s.settings.turn_time ? Math.min(c.left, s.settings.turn_time) : c.left;
  const left = Math.ceil(shown);
  box.hidden = false;
  box.classList.toggle("low", c.kind === "turn" && left <= 10);
  if (c.kind === "turn") box.textContent = left > 0 ? `${left} s left` : "Time is up";
  else {
    const x = seatOf(s, g.current_seat);
    const who = x && x.occupant && x.occupant.name ? x.occupant.name : "The player";
    box.textContent = `${who} is away: a CPU plays in ${left} s`;
  }
}

/** Quick reactions: a fixed set of buttons for players of a party, and the latest few. */
let reactionsKey = "";
export function renderReactions(S, send) {
  const box = $("reactions");
  const on = S.kind === "party";
  box.hidden = !on;
  if (!on) return;
  const key = `${S.reactionIds.join()}/${isSpectator(S)}`;
  if (key !== reactionsKey) {
    reactionsKey = key;
    $("reaction-buttons").replaceChildren(...(isSpectator(S) ? [] : S.reactionIds.map((id) => {
      const b = document.createElement("button");
      b.type = "button";
      b.textContent = reactionText(id);
      b.dataset.testid = `react-${id}`;
      b.addEventListener("click", () => send({ type: "react", table: S.table, reaction: id }));
      return b;
    })));
  }
  const feed = $("reaction-feed");
  const items = S.reactions.slice(-3).map((r) => {
    const li = document.createElement("li");
    li.textContent = reactionLine(S, r);
    return li;
  });
  const text = items.map((li) => li.textContent).join("|");
  if (feed.dataset.text !== text) {
    feed.dataset.text = text;
    feed.replaceChildren(...items);
  }
}
