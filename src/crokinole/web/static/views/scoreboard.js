// The player bars: one per side, the opponents' above the board and the bottom seat's side under
// it (as lichess does), each with its name and players, its score and this round's, its discs
// still to play drawn as a row and its 20s as a little stack; the one to move glows. The round,
// whose turn it is ("Your turn" large) and the turn clock sit in the turn box.

import { markSvg, sideLook } from "./board.js";
import { $, escapeHtml } from "../lib/dom.js";
import { botMark, provisionalMark } from "./ranked.js";
import { clock, isSpectator, reactionLine, reactionText, seatOf, seatRating, sideName, standInText } from "../lib/state.js";

const MAX_SIDES = 3;
/** At most this many discs are drawn in a side's stack of 20s (the count says the rest). */
const STACK_MAX = 5;
/** What each bar holds now, so that a refresh that changes nothing leaves it alone. */
const drawn = new WeakMap();

function presence(s, seat) {
  const x = seatOf(s, seat);
  const o = x && x.occupant;
  if (!o || o.kind !== "person" || (s.kind !== "party" && !s.ranked)) return "";
  const on = o.connected !== false;
  return `<i class="dot ${on ? "on" : "off"}" title="${on ? "connected" : "not connected"}" aria-label="${on ? "connected" : "not connected"}"></i>`;
}

/** Whether a program plays this seat: the server's `bot` on the seat's occupant (a bot account's socket). */
export function seatIsBot(s, seat) {
  const x = seatOf(s, seat);
  return Boolean(x && x.occupant && x.occupant.bot === true);
}

function plural(n, one, many) {
  return `${n} ${n === 1 ? one : many}`;
}

/** The side's discs still to play, drawn as the board draws them, one small disc each. */
function handRow(g, i, n) {
  const disc = `<span class="hand-disc">${markSvg(g, i, 14)}</span>`;
  return `<span class="hand" data-testid="hand-${i}" title="${plural(n, "disc", "discs")} to play">${disc.repeat(n)}</span>`
    + `<span class="sr-only">In hand <b data-testid="in-hand-${i}">${n}</b></span>`;
}

/** A side's disc with "20" on it (the top of its stack of 20s). */
function twentySvg(g, i, size) {
  const { style } = sideLook(g, i);
  return `<svg aria-hidden="true" width="${size}" height="${size}" viewBox="-10 -10 20 20"><circle r="8.8" fill="${style.fill}" stroke="${style.edge}" stroke-width="2"/>`
    + `<text y="3.6" text-anchor="middle" font-size="10" font-weight="800" font-family="system-ui, sans-serif" fill="${style.mark}">20</text></svg>`;
}

/** The side's 20s this round: a little stack of its discs, "20" on the top one, with the count beside it. */
function twentyStack(g, i, n) {
  const shown = Math.min(n, STACK_MAX);
  const discs = Array.from({ length: shown }, (_, k) => `<span class="stack-disc" data-k="${k}">${k === shown - 1 ? twentySvg(g, i, 18) : markSvg(g, i, 18)}</span>`).join("");
  return `<span class="twenties${n ? "" : " none"}" title="${plural(n, "twenty", "twenties")} this round">`
    + `<span class="stack stack-${shown}" aria-hidden="true">${discs}</span>`
    + `<span class="stack-count"><span class="sr-only">20s </span>×<b data-testid="twenties-${i}">${n}</b></span></span>`;
}

/**
 * Draw the bars. `ui`: {moving (seat or null while discs move), turnText, thinking, mine (this
 * device's player is to shoot), bottom (the side whose bar goes under the board), left: {seat:
 * name} of players who left this game (a CPU plays their seats)}.
 */
export function renderScoreboard(s, ui) {
  const g = s.game;
  if (!g) return;
  const top = $("bars-top");
  const bottom = $("bars-bottom");
  const under = Number.isInteger(ui.bottom) && g.sides[ui.bottom] ? ui.bottom : 0;
  top.classList.toggle("two", g.sides.length > 2);
  for (let i = 0; i < MAX_SIDES; i += 1) {
    const card = $(`side-card-${i}`);
    const side = g.sides[i];
    if (!side) {
      card.hidden = true;
      continue;
    }
    card.hidden = false;
    const home = i === under ? bottom : top;
    if (card.parentElement !== home) home.append(card);
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
        return `<span${cls} data-seat="${x.seat}">${presence(s, x.seat)}${escapeHtml(x.name)}${botMark(seatIsBot(s, x.seat))}${rating}${stand ? ` <em class="stand-in">(${escapeHtml(stand)})</em>` : ""}</span>`;
      }).join("")}</div>`
      : "";
    const ditch = side.ditch ?? 0;
    const soleBot = !players && seats.length === 1 && seatIsBot(s, seats[0].seat) ? botMark(true) : "";
    const html = `<div class="who"><div class="name">${markSvg(g, i)}<span title="${name}">${name}</span>${soleBot}</div>${players}</div>
      <div class="points"><span class="sr-only">Score </span><b class="score" data-testid="score-${i}" title="score">${side.score}</b>
      <span class="now">This round <b data-testid="round-total-${i}">${side.round_total}</b></span></div>
      <div class="pieces">${handRow(g, i, inHand)}${twentyStack(g, i, side.twenties)}<span class="sr-only">Ditch <b>${ditch}</b></span></div>`;
    // Only when something changed: the bars are drawn on every refresh.
    if (drawn.get(card) !== html) {
      drawn.set(card, html);
      card.innerHTML = html;
    }
    card.setAttribute("aria-label", `${sideName(g, i)}: score ${side.score}, this round ${side.round_total}, ${plural(inHand, "disc", "discs")} in hand, ${plural(side.twenties, "twenty", "twenties")}, ${ditch} in the ditch${toMove ? ", to shoot" : ""}`);
  }
  const rules = g.rules;
  // Ranked games always have the human hand (the start screen says so): the label stays short.
  const hand = s.settings && s.settings.hand === "human" && !s.ranked ? " · human hand" : "";
  const watching = s.kind === "party" && s.spectators ? ` · ${s.spectators} watching` : "";
  // An event's table says where it is in the event ("Tuesday league · Round 2 · Table 3 · …").
  const where = s.eventLink ? `${s.eventLink.label} · ` : s.ranked ? "Ranked · " : "";
  $("round-label").textContent = where + (rules.scoring === "to_100"
    ? `Round ${g.round} · to ${rules.target || 100}`
    : `Round ${g.round} of ${rules.rounds}`) + hand + watching;
  const turn = $("turn-indicator");
  turn.textContent = ui.turnText;
  turn.classList.toggle("thinking", Boolean(ui.thinking));
  turn.classList.toggle("mine", Boolean(ui.mine));
  $("turn-box").classList.toggle("mine", Boolean(ui.mine));
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
