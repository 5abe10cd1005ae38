// The round result and the end of the game, written from the state (no sending here).

import { markSvg } from "./board.js";
import { $, closeDialog, escapeHtml, openDialog } from "../lib/dom.js";
import { LADDER_NAME, deltaText, profileLink, provisionalMark } from "./ranked.js";
import { clock, isHotSeat, isSpectator, mySide, sideName } from "../lib/state.js";

const FORMAT_NAME = { four_rounds: "four rounds", to_100: "to 100" };

/** A round's result, one column per side (so it fits a phone whatever the names). */
export function resultTable(g, h) {
  const four = g.rules.scoring !== "to_100";
  const sides = g.sides.map((_, i) => i);
  const head = sides.map((i) => `<th scope="col"><span class="side-head">${markSvg(g, i, 16)}<span>${escapeHtml(sideName(g, i))}</span></span></th>`).join("");
  const row = (label, cells, cls = "") => `<tr${cls ? ` class="${cls}"` : ""}><th scope="row">${label}</th>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;
  const counts = (k) => sides.map((i) => ((h.counts && h.counts[i]) || [0, 0, 0, 0])[k]);
  const rows = [
    row("20s", counts(0)), row("15s", counts(1)), row("10s", counts(2)), row("5s", counts(3)),
    row("Round total", sides.map((i) => h.totals[i]), "total"),
    row(four ? "Round points" : "Points added", sides.map((i) => {
      const pts = h.points ? h.points[i] : 0;
      return four ? pts : `+${pts}`;
    })),
    row("Game score", sides.map((i) => (h.scores_after ? h.scores_after[i] : ""))),
  ];
  return `<table class="result-table"><thead><tr><td></td>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

/** "Ann wins", "Ann & Bob win": a side of two players takes the plural. */
function sideWins(g, side) {
  return `${sideName(g, side)} ${g.seats.filter((x) => x.side === side).length > 1 ? "win" : "wins"}`;
}

export function roundWinnerLine(s, h) {
  const g = s.game;
  const t = h.totals;
  const best = Math.max(...t);
  const winners = t.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0);
  if (winners.length > 1) return `Round ${h.number} is tied, ${t.join(" to ")}.`;
  const w = winners[0];
  const you = mySide(s) === w;
  return `${you ? "You win" : sideWins(g, w)} round ${h.number}, ${t[w]} to ${Math.max(...t.filter((_, i) => i !== w))}.`;
}

export function roundBody(s, h) {
  return `<p class="result-line">${escapeHtml(roundWinnerLine(s, h))}</p>${resultTable(s.game, h)}
    <p class="countdown" id="round-countdown" data-testid="round-countdown"></p>`;
}

/**
 * A ranked game abandoned (a player resigned or left), from this player's point of view: who
 * left, and what their rating counted it as (the `finished` ratings' outcome); null when this
 * screen played no seat there.
 */
export function rankedAbandonTitle(s) {
  const g = s.game;
  const mine = s.you.seats.length ? s.you.seats : s.mySeats || [];
  if (!g || !mine.length) return null;
  const info = g.seats.find((x) => x.seat === mine[0]);
  if (!info) return null;
  const side = info.side;
  const doubles = g.seats.filter((x) => x.side === side).length > 1;
  const empty = (seat) => {
    const x = s.seats.find((y) => y.seat === seat);
    return Boolean(x) && !x.occupant;
  };
  const name = ((s.seatNames || {})[mine[0]] || (s.ratings && s.ratings[mine[0]] && s.ratings[mine[0]].username) || "").toLowerCase();
  const rated = (s.ratingChanges || []).find((r) => name && r.username.toLowerCase() === name);
  const outcome = rated ? rated.outcome : null;
  const word = { win: doubles ? "your side wins" : "you win", loss: "a loss", draw: "a draw" }[outcome];
  const iLeft = (!s.you.member && !s.you.seats.length) || mine.some(empty);
  if (iLeft) return `You resigned${word ? `: ${word}` : ""}`;
  const partner = g.seats.some((x) => x.side === side && !mine.includes(x.seat) && empty(x.seat));
  const opponent = g.seats.some((x) => x.side !== side && empty(x.seat));
  const who = partner ? "Your partner left" : opponent ? (doubles ? "An opponent left" : "Your opponent left") : "A player left";
  return word ? `${who}: ${word}` : who;
}

export function gameTitle(s) {
  const g = s.game;
  const o = g.outcome;
  const side = mySide(s);
  if (!o && g.phase !== "game_over") {
    if (s.aborted) return "Game aborted: not rated";
    const ranked = s.ranked ? rankedAbandonTitle(s) : null;
    if (ranked) return ranked;
    if (s.kind === "party" || s.ranked || isHotSeat(s) || isSpectator(s)) return "Game abandoned";
    return "You resigned";
  }
  if (o && o.winner !== null && o.winner !== undefined) {
    if (side === null) return `${sideWins(g, o.winner)}!`;
    return o.winner === side ? "You win!" : sideWins(g, o.winner);
  }
  return "A draw";
}

/** The cpu level of a game against the CPU (every other seat a CPU of one level), or null. */
export function cpuOpponent(s) {
  const g = s.game;
  if (!g || s.kind !== "solo" || isHotSeat(s)) return null;
  const levels = g.seats.filter((x) => x.cpu).map((x) => x.cpu);
  return levels.length ? levels[0] : null;
}

/**
 * The sides the result puts first: the winner, or those who drew (every side when the
 * outcome names none); none for a game with no outcome (resigned, abandoned, aborted).
 */
export function heroSides(g) {
  const o = g && g.outcome;
  if (!o) return [];
  if (o.winner !== null && o.winner !== undefined) return [o.winner];
  return Array.isArray(o.drawn) && o.drawn.length ? o.drawn : g.sides.map((_, i) => i);
}

/** The winner's mark drawn large (their disc in their colour), or the marks of a draw. */
export function gameHero(s) {
  const g = s.game;
  const sides = heroSides(g);
  const size = sides.length > 1 ? 56 : 88;
  return sides.map((i) => `<span class="hero-disc" data-side="${i}">${markSvg(g, i, size)}</span>`).join("");
}

/**
 * Whether the result celebrates (a brighter flourish): your side won; on one device, a side
 * of people won (every player there is at this screen); never a CPU's win or for a spectator.
 */
export function celebrates(s) {
  const g = s.game;
  const o = g && g.outcome;
  if (!o || o.winner === null || o.winner === undefined || isSpectator(s)) return false;
  if (isHotSeat(s)) return g.seats.some((x) => x.side === o.winner && !x.cpu);
  return mySide(s) === o.winner;
}

export function gameBody(s, levelName) {
  const g = s.game;
  const first = new Set(heroSides(g));
  // Each side's mark, name and score stay on one line (a line may break between sides).
  const scores = g.sides.map((x, i) => `<span class="side-score${first.has(i) ? " top" : ""}">${markSvg(g, i, 16)} ${escapeHtml(sideName(g, i))} <b>${x.score}</b></span>`).join(" · ");
  const rounds = g.history.map((h) => `<tr><th scope="row">${h.number}</th><td>${h.totals.join(" – ")}</td>
    <td>${(h.points || []).join(" – ")}</td><td>${(h.scores_after || []).join(" – ")}</td></tr>`).join("");
  const last = g.history[g.history.length - 1];
  return `<p class="result-line final-score">${scores}</p>${hintsUsedLine(s)}
    ${last ? `<h3>Last round</h3>${resultTable(g, last)}` : ""}
    ${rounds ? `<h3>Rounds</h3><table class="result-table"><thead><tr><th scope="col">Round</th><th scope="col">Totals</th>
    <th scope="col">${g.rules.scoring === "to_100" ? "Points added" : "Round points"}</th><th scope="col">Game score</th></tr></thead><tbody>${rounds}</tbody></table>` : ""}
    <div id="game-record" data-testid="game-record"></div>`;
}

/** "Your record against CPU Easy, four rounds: 1 won, 0 drawn, 0 lost." (a game against the CPU), or "". */
export function recordLine(s, levelName) {
  const g = s.game;
  const lvl = cpuOpponent(s);
  const r = lvl && s.record && s.record[lvl] ? s.record[lvl][g.rules.scoring] : null;
  if (!r) return "";
  return `<p class="note">Your record against ${escapeHtml(levelName(lvl))}, ${FORMAT_NAME[g.rules.scoring]}: ${r.wins} won, ${r.draws} drawn, ${r.losses} lost.</p>`;
}

/**
 * The record under the result: only once the game's `finished` brought the record with this
 * game counted (`counted`); the last shot, which shows the result, comes before it.
 */
export function renderGameRecord(s, levelName, counted) {
  const box = $("game-record");
  if (!box) return;
  const html = counted ? recordLine(s, levelName) : "";
  if (box.dataset.html === html) return;
  box.dataset.html = html;
  box.innerHTML = html;
}

/**
 * How many hints each player asked for in this game (a heat map counts as one), where the
 * table allowed them or any were used: "You used 2 hints.", "Hints used: Ann 2, Bob 0.".
 */
export function hintsUsedLine(s) {
  const g = s.game;
  if (!g || !Array.isArray(g.seats)) return "";
  const used = s.hintsUsed || {};
  const count = (seat) => Math.max(0, Number(used[seat]) || 0);
  const allowed = Boolean(s.settings && s.settings.hints);
  const people = g.seats.filter((x) => !x.cpu);
  if (!people.length || (!allowed && !people.some((x) => count(x.seat) > 0))) return "";
  const mine = (seat) => !isHotSeat(s) && !isSpectator(s) && s.you.seats.includes(seat);
  const hints = (n) => (n === 0 ? "no hints" : n === 1 ? "1 hint" : `${n} hints`);
  let text;
  if (people.length === 1) {
    const x = people[0];
    text = `${mine(x.seat) ? "You" : x.name} used ${hints(count(x.seat))}.`;
  } else {
    text = `Hints used: ${people.map((x) => `${mine(x.seat) ? "you" : x.name} ${count(x.seat)}`).join(", ")}.`;
  }
  return `<p class="note hints-used" data-testid="hints-used">${escapeHtml(text)}</p>`;
}

/** The round result over the board; `hooks`: {say: words for screen readers, place: put it beside the board}. */
export function openRoundDialog(S, now, hooks) {
  const g = S.game;
  const h = g.history[g.history.length - 1];
  if (!h) return;
  $("round-title").textContent = `Round ${h.number} result`;
  $("round-body").innerHTML = roundBody(S, h);
  setPeek(false);
  hooks.place();
  openDialog($("round-dialog"));
  renderNext(S, now, hooks.roundLeft());
  if (!isSpectator(S)) $("next-button").focus({ preventScroll: true });
  $("round-dialog").scrollTop = 0; // a phone shows the result's title first
  $("round-body").scrollTop = 0; // (the buttons stay in view under the body, which scrolls)
  hooks.say($("round-body").querySelector(".result-line").textContent);
}

/**
 * Next: pressed or not, how many of the players pressed, and the countdown: the server's in a
 * party; on one device the page's own (`ownLeft`, seconds), counted from when it showed the result.
 */
export function renderNext(S, now, ownLeft = null) {
  const d = $("round-dialog");
  if (!d.open || !S.game) return;
  const next = $("next-button");
  const pressed = S.you.member && S.nextPressed.includes(S.you.member);
  next.hidden = isSpectator(S);
  next.disabled = Boolean(pressed);
  const c = clock(S, now);
  const left = S.kind === "solo" && ownLeft !== null ? Math.max(0, Math.ceil(ownLeft))
    : c && c.kind === "round" ? Math.ceil(c.left) : null;
  next.textContent = pressed ? "Waiting…" : left !== null ? `Next (${left})` : "Next";
  const players = S.members.filter((m) => !m.spectator && m.connected !== false && m.seat).length;
  const parts = [];
  if (left !== null) parts.push(`The next round starts in ${left} s.`);
  if (S.kind === "party" && S.nextPressed.length) parts.push(`${S.nextPressed.length} of ${players} pressed Next.`);
  const cd = $("round-countdown");
  if (cd) cd.textContent = parts.join(" ");
}

/** "Look at the board": the round result shrinks to a bar so the discs can be seen. */
export function setPeek(on) {
  const d = $("round-dialog");
  if (d.open && on !== d.classList.contains("peek")) {
    // Folded, the result is not modal: the board under it can be looked at (and touched).
    d.close();
    if (on) d.show();
    else d.showModal();
  }
  d.classList.toggle("peek", on);
  if (on) window.scrollTo(0, 0); // the layout fits the whole board in the screen from the top
  const b = $("peek-button");
  b.setAttribute("aria-pressed", String(on));
  b.textContent = on ? "Show the result" : "Look at the board";
}

/**
 * A ranked game's rating changes (the `finished` message's "ratings"): each player's rating
 * before → after, the change, and whether it is still provisional; names link to profiles.
 */
export function ratingsBlock(s) {
  if (!s.ranked) return "";
  const link = s.eventLink;
  // An event's game: its result goes to the event by itself; the way back to the event.
  const back = link ? `<p class="note"><a href="${escapeHtml(link.page)}" data-testid="event-back">Back to ${escapeHtml(link.name)}</a></p>` : "";
  return rankedRatings(s, link) + back;
}

function rankedRatings(s, link) {
  const list = s.ratingChanges;
  if (s.aborted) {
    // A no-show: the game was never played, nobody's rating changes; said in words.
    return `<p class="note" data-testid="aborted-message">${escapeHtml(sentenceOf(s.aborted.message))}</p>`;
  }
  if (link && !link.rated) {
    return `<p class="note" data-testid="event-result">${escapeHtml(`This game of ${link.name} is not rated: its result goes to the event by itself.`)}</p>`;
  }
  if (!Array.isArray(list) || !list.length) {
    return s.stage === "finished" || s.stage === "closed" ? '<p class="note" data-testid="ratings-pending">The ratings of this game are being worked out: see them on your profile.</p>' : "";
  }
  const ladder = LADDER_NAME[list[0].ladder] || list[0].ladder || "";
  const rows = list.map((r) => {
    const d = Math.round(r.after) - Math.round(r.before);
    const key = d > 0 ? "win" : d < 0 ? "loss" : "draw";
    return `<tr data-testid="rating-change"><th scope="row">${profileLink(r.username, ' target="_blank" rel="noopener"', r.bot === true)}</th>
      <td class="num">${r.before} → <b>${r.after}</b>${provisionalMark(r.provisional)}</td>
      <td class="num"><span class="delta ${key}">${deltaText(r.before, r.after)}</span></td></tr>`;
  });
  const abandoned = s.abandoned ? '<p class="note">A player left: leaving counts as a loss.</p>' : "";
  return `<h3>Ratings${ladder ? ` (${escapeHtml(ladder.toLowerCase())})` : ""}</h3>${abandoned}
    <table class="ratings-result" data-testid="ratings-result"><thead><tr><th scope="col">Player</th><th scope="col" class="num">Rating</th><th scope="col" class="num">Change</th></tr></thead>
    <tbody>${rows.join("")}</tbody></table>
    <p class="note"><a href="/leaderboard${list[0].ladder ? `?ladder=${encodeURIComponent(list[0].ladder)}` : ""}" target="_blank" rel="noopener">Leaderboard</a></p>`;
}

/** The server's words with a full stop (a username keeps its own case, so no capital). */
function sentenceOf(text) {
  const t = String(text).trim();
  return /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The ratings part of the open result: the `finished` message may come after the last shot. */
function renderRatings(S) {
  const box = $("game-ratings");
  if (!box) return;
  const key = JSON.stringify([S.table, S.ranked, S.stage, S.abandoned, S.aborted, S.ratingChanges]);
  if (box.dataset.key === key) return;
  box.dataset.key = key;
  box.innerHTML = ratingsBlock(S);
}

/**
 * "Watch the replay" of the game just ended (/replay/{table}?game=N, a new tab: the table stays
 * open here). The game's number keeps the link on this game after a rematch starts the next.
 */
export function replayLink(s) {
  if (!s.table || !/^[a-f0-9]{32}$/.test(s.table) || !s.game) return "";
  const game = Number.isInteger(s.gameNumber) && s.gameNumber > 0 ? `?game=${s.gameNumber}` : "";
  return `<p class="replay-link"><a href="/replay/${s.table}${game}" target="_blank" rel="noopener" data-testid="replay-link">Watch the replay</a></p>`;
}

/** "Review this game" (/review/{table}?game=N, a new tab): every shot valued against the Expert's. */
export function reviewLink(s) {
  if (!s.table || !/^[a-f0-9]{32}$/.test(s.table) || !s.game) return "";
  const game = Number.isInteger(s.gameNumber) && s.gameNumber > 0 ? `?game=${s.gameNumber}` : "";
  return `<p class="replay-link"><a href="/review/${s.table}${game}" target="_blank" rel="noopener" data-testid="review-link">Review this game</a></p>`;
}

/** The end of the game; `hooks`: {say, place, levelName}. */
export function openGameDialog(S, hooks) {
  closeDialog($("round-dialog"));
  const title = gameTitle(S);
  $("game-title").textContent = title;
  // The winner's disc large, with a short flourish (css/feedback.css), brighter for your win.
  const hero = gameHero(S);
  const box = $("game-hero");
  box.innerHTML = hero;
  box.hidden = !hero;
  $("game-dialog").classList.toggle("you-won", celebrates(S));
  $("game-body").innerHTML = `<div id="game-ratings" data-testid="game-ratings"></div>${gameBody(S, hooks.levelName)}${replayLink(S)}${reviewLink(S)}`;
  renderGameButtons(S);
  renderGameRecord(S, hooks.levelName, hooks.counted());
  hooks.place();
  openDialog($("game-dialog"));
  ($("rematch-button").hidden ? $("new-game-button") : $("rematch-button")).focus({ preventScroll: true });
  $("game-dialog").scrollTop = 0; // a phone shows who won first
  $("game-body").scrollTop = 0; // (the buttons stay in view under the body, which scrolls)
  const g = S.game;
  hooks.say(`${title} Final score ${g.sides.map((x, i) => `${g.seats.filter((y) => y.side === i).map((y) => y.name).join(" & ")} ${x.score}`).join(", ")}.`);
}

export function renderGameButtons(S) {
  renderRatings(S);
  const rematch = $("rematch-button");
  const voted = S.you.member && S.rematchVotes.includes(S.you.member);
  // A ranked game has no rematch: the players queue again.
  rematch.hidden = S.stage !== "finished" || isSpectator(S) || S.ranked;
  rematch.disabled = Boolean(voted);
  const players = S.members.filter((m) => !m.spectator && m.seat).length;
  // A party's rematch is offered, then accepted or declined by every seated player while the
  // offer is open (the table's deadline says until when); unanswered, it lapses.
  const offered = S.kind === "party" && Boolean(S.deadline) && S.deadline.kind === "rematch";
  rematch.textContent = voted
    ? `Waiting for the others (${S.rematchVotes.length} of ${players})`
    : offered ? `Accept the rematch (${S.rematchVotes.length} of ${players} agree)` : "Rematch";
  const decline = $("decline-button");
  decline.hidden = rematch.hidden || !offered || !S.you.seats.length;
  decline.textContent = voted ? "Withdraw the offer" : "Decline";
  $("new-game-button").textContent = S.ranked ? "Back to the start" : S.kind !== "party" ? "New game" : isSpectator(S) ? "Stop watching" : "Leave the party";
  // A player left after the game: no rematch until their seat is filled, in the lobby (the host).
  const empty = S.kind === "party" && S.stage === "finished" && S.seats.some((x) => !x.occupant);
  rematch.dataset.action = empty ? "lobby" : "rematch";
  if (empty && !rematch.hidden) {
    rematch.disabled = !S.you.host;
    rematch.textContent = S.you.host ? "A seat is empty: fill it" : "A seat is empty: waiting for the host";
  }
}
