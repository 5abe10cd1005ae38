// The leaderboard page (/leaderboard): a ladder's players by displayed rating, from
// GET /api/leaderboard?ladder=…&min_games=… (docs/protocol.md#ranked-play). The choices live in the address
// (?ladder=doubles&min_games=0), so a link shows the same board.

import { fetchJson, said } from "../lib/api.js";
import { $, escapeHtml } from "../lib/dom.js";
import { BOT_LADDER, LADDERS, LADDER_NAME, profileLink, provisionalMark } from "../views/ranked.js";
import { whoIsSignedIn } from "../views/topbar.js";

const MIN_GAMES = [0, 1, 5, 10, 20, 50, 100];
const P = { me: null, seq: 0 };

function choices() {
  const f = $("ladder-form").elements;
  return { ladder: f.ladder.value, min_games: Number(f.min_games.value) };
}

function fromAddress() {
  const q = new URLSearchParams(location.search);
  const f = $("ladder-form").elements;
  if ([...LADDERS, BOT_LADDER].includes(q.get("ladder"))) f.ladder.value = q.get("ladder");
  const n = Number.parseInt(q.get("min_games") ?? "", 10);
  if (Number.isInteger(n) && n >= 0 && n <= 100) {
    if (!MIN_GAMES.includes(n)) f.min_games.append(new Option(String(n), String(n)));
    f.min_games.value = String(n);
  }
}

function status(text, bad = false) {
  $("board-status").textContent = text;
  $("board-status").classList.toggle("status-bad", bad);
}

function render(data) {
  const players = Array.isArray(data.players) ? data.players : [];
  const ladder = LADDER_NAME[data.ladder] || data.ladder;
  const who = data.ladder === BOT_LADDER ? "bots" : "players";
  const atLeast = data.min_games > 0 ? ` with at least ${data.min_games} game${data.min_games === 1 ? "" : "s"}` : "";
  if (!players.length) {
    status(data.ladder === BOT_LADDER
      ? `No bots${atLeast} on the ladder yet.${data.min_games > 0 ? " Choose fewer games to see newer bots." : " A bot joins it by queueing for a rated game (see Bots)."}`
      : `No ${ladder.toLowerCase()} players${atLeast} yet.${data.min_games > 0 ? " Choose fewer games to see newer players." : ""}`);
    $("board-table").replaceChildren();
    return;
  }
  status(`${ladder}: ${players.length === 1 ? `1 ${who.slice(0, -1)}` : `the top ${players.length} ${who}`}${atLeast}.`);
  const rows = players.map((p) => {
    const mine = P.me && p.username.toLowerCase() === P.me.toLowerCase();
    return `<tr${mine ? ' class="me" aria-current="true"' : ""} data-testid="leader-row">
      <td class="rank">${p.rank}</td>
      <th scope="row" class="who">${profileLink(p.username, "", p.bot === true)}</th>
      <td class="rating"><b data-testid="leader-rating">${p.rating}</b>${provisionalMark(p.provisional)}</td>
      <td class="num">${p.games}</td>
      <td class="wdl"><span class="w">${p.wins}</span>–<span class="d">${p.draws}</span>–<span class="l">${p.losses}</span></td>
    </tr>`;
  });
  $("board-table").innerHTML = `<table class="ladder-table" data-testid="leaderboard">
    <caption class="sr-only">${escapeHtml(ladder)} leaderboard</caption>
    <thead><tr><th scope="col" class="rank">#</th><th scope="col">${data.ladder === BOT_LADDER ? "Bot" : "Player"}</th><th scope="col" class="rating">Rating</th>
    <th scope="col" class="num" title="ranked games">Games</th><th scope="col" class="wdl" title="wins, draws, losses">W–D–L</th></tr></thead>
    <tbody>${rows.join("")}</tbody></table>`;
}

async function load() {
  const { ladder, min_games } = choices();
  const seq = ++P.seq;
  const q = new URLSearchParams({ ladder, min_games: String(min_games) });
  history.replaceState(null, "", `/leaderboard?${q}`);
  document.title = `Crokinole leaderboard: ${LADDER_NAME[ladder]}`;
  status("Loading the leaderboard…");
  const r = await fetchJson(`/api/leaderboard?${q}`);
  if (seq !== P.seq) return; // a newer choice was made meanwhile
  if (!r.ok) {
    status(said(r), true);
    $("board-table").replaceChildren();
    return;
  }
  render(r.body);
  $("main").setAttribute("aria-busy", "false");
  document.body.dataset.loaded = "true";
}

async function whoAmI() {
  P.me = await whoIsSignedIn();
  if (P.me) {
    $("my-profile-link").href = `/players/${encodeURIComponent(P.me)}`;
    $("my-profile-link").hidden = false;
  }
}

async function start() {
  fromAddress();
  $("ladder-form").addEventListener("change", load);
  $("ladder-form").addEventListener("submit", (ev) => ev.preventDefault());
  await whoAmI();
  await load();
}

start();
