// A player's profile (/players/{username}): per ladder the displayed rating (and whether it is
// provisional), wins, draws and losses and the rating over time drawn as an SVG line chart,
// then the player's ranked games, each with its rating change and a link to its replay.
// From GET /api/players/{username} (docs/protocol.md#ranked-play).

import { fetchJson, said } from "../lib/api.js";
import { $, escapeHtml } from "../lib/dom.js";
import {
  BOT_LADDER, LADDERS, LADDER_NAME, botMark, dayText, deltaText, outcomeKey, outcomeWord, profileLink, provisionalMark, ratingChart,
} from "../views/ranked.js";

const PATH_RE = /^\/players\/([^/]+)\/?$/;
const CHARTS = {}; // ladder -> {points, title}: drawn at the width of their box (text stays readable)

/** Draw each chart at its box's width in CSS pixels, so its labels are the page's size. */
function drawCharts() {
  for (const box of document.querySelectorAll(".chart-box")) {
    const c = CHARTS[box.dataset.ladder];
    const width = Math.max(240, Math.round(box.clientWidth));
    if (!c || box.dataset.width === String(width)) continue;
    box.dataset.width = String(width);
    box.innerHTML = ratingChart(c.points, { width, height: Math.round(Math.min(240, Math.max(150, width * 0.42))), title: c.title });
  }
}

function status(text, bad = false) {
  $("profile-status").textContent = text;
  $("profile-status").classList.toggle("status-bad", bad);
  $("profile-status").hidden = !text;
}

function names(list) {
  return (Array.isArray(list) ? list : []).map((x) => (typeof x === "string" ? x : x && x.username)).filter(Boolean);
}

function joinLinks(list) {
  const rows = Array.isArray(list) ? list : [];
  const links = names(list).map((n, i) => profileLink(n, "", Boolean(rows[i] && rows[i].bot === true)));
  return links.length > 1 ? `${links.slice(0, -1).join(", ")} and ${links[links.length - 1]}` : links.join("");
}

function ladderCard(ladder, l) {
  const name = LADDER_NAME[ladder] || ladder;
  if (!l || !l.games) {
    return `<section class="ladder-card empty" data-testid="ladder-${ladder}" aria-label="${name}">
      <h2>${name}</h2><p class="note">${ladder === BOT_LADDER ? "No ranked games on the bots' ladder yet." : `No ranked ${name.toLowerCase()} games yet.`}</p></section>`;
  }
  const history = Array.isArray(l.history) ? l.history : [];
  const points = history.map((h, i) => ({
    rating: h.rating,
    outcome: h.outcome,
    label: `Game ${i + 1}${h.at ? ` (${dayText(h.at)})` : ""}: ${outcomeWord(h.outcome)}, rating ${h.rating}`,
  }));
  CHARTS[ladder] = { points, title: `${name} rating over time` };
  return `<section class="ladder-card" data-testid="ladder-${ladder}" aria-label="${name}">
    <h2>${name}</h2>
    <p class="big-rating"><b data-testid="rating-${ladder}">${l.rating}</b>${provisionalMark(l.provisional)}</p>
    <p class="wdl-line" data-testid="wdl-${ladder}">${l.games} game${l.games === 1 ? "" : "s"}: <span class="w">${l.wins} won</span>, <span class="d">${l.draws} drawn</span>, <span class="l">${l.losses} lost</span></p>
    ${points.length ? `<figure class="chart"><div class="chart-box" data-ladder="${ladder}"></div><figcaption class="note">Rating after each ranked game. A dot's colour is the result: <span class="w">won</span>, <span class="d">drawn</span>, <span class="l">lost</span>.</figcaption></figure>` : ""}
  </section>`;
}

function gameItem(g) {
  const against = joinLinks(g.opponents);
  const partners = joinLinks(g.partners);
  const key = outcomeKey(g.outcome);
  const change = Number.isFinite(g.before) && Number.isFinite(g.after)
    ? `<span class="change" data-testid="game-change">${g.before} → ${g.after} <span class="delta ${key}">(${deltaText(g.before, g.after)})</span></span>`
    : "";
  return `<li class="game-item" data-testid="game-item">
    <span class="outcome ${key}">${escapeHtml(outcomeWord(g.outcome))}</span>
    <span class="vs">${partners ? `with ${partners} ` : ""}${against ? `against ${against}` : ""}</span>
    <span class="meta">${escapeHtml(LADDER_NAME[g.ladder] || g.ladder || "")}${g.at ? ` · ${escapeHtml(dayText(g.at))}` : ""}</span>
    ${change}
    <a class="replay" href="/replay/${encodeURIComponent(g.table)}" data-testid="game-replay">Replay</a>
  </li>`;
}

function render(data) {
  const bot = data.bot === true;
  $("player-name").innerHTML = `${escapeHtml(data.username)}${botMark(bot)}`;
  document.title = `${data.username}: crokinole ${bot ? "bot" : "player"}`;
  $("bot-note").hidden = !bot;
  const ladders = data.ladders || {};
  $("ladders").innerHTML = (bot ? [BOT_LADDER] : LADDERS).map((l) => ladderCard(l, ladders[l])).join("");
  const games = Array.isArray(data.games) ? data.games : [];
  drawCharts();
  $("games-box").hidden = false;
  $("games").innerHTML = games.length
    ? `<ol class="game-list">${games.map(gameItem).join("")}</ol>`
    : '<p class="note">No ranked games yet.</p>';
  status("");
}

async function start() {
  const m = PATH_RE.exec(location.pathname);
  let username = "";
  try {
    username = m ? decodeURIComponent(m[1]) : "";
  } catch {
    username = "";
  }
  if (!username) {
    status("This address names no player.", true);
    return;
  }
  $("player-name").textContent = username;
  const r = await fetchJson(`/api/players/${encodeURIComponent(username)}`);
  if (r.ok) render(r.body);
  else status(r.status === 404 ? r.error : said(r), true); // a missing player in a sentence, else the words as said
  $("main").setAttribute("aria-busy", "false");
  document.body.dataset.loaded = "true";
}

window.addEventListener("resize", drawCharts);
start();
