// The bots page (/bots): the bots here (GET /api/bots: online or not, rating, games) with a
// Challenge link for a signed-in person, and for a signed-in account its own bot: make the
// account a bot (POST /api/account/bot, the password asked again), then create API tokens
// (POST /api/account/tokens: the token shown once), list them and revoke them
// (GET, DELETE /api/account/tokens/{id}). docs/bots.md is the protocol a bot speaks.
// The words and checks are views/bots.js's (pure; they run in node).

import { fetchJson } from "../lib/api.js";
import { $, button, el, escapeHtml } from "../lib/dom.js";
import { CHALLENGE_GAMES, challengeHref, challengeState, scopesProblem, scopesText, tokenNameProblem, tokenState } from "../views/bots.js";
import { botMark, dayText, profileLink } from "../views/ranked.js";

const P = { account: null };

function status(id, text, bad = false) {
  const box = $(id);
  box.textContent = text;
  box.classList.toggle("status-bad", bad);
}

function botRow(b) {
  const state = challengeState(P.account, b);
  const online = b.online === true;
  const action = state === "challenge"
    ? `<a class="button" href="${challengeHref(b.username, $("challenge-game").value)}" data-testid="challenge-${escapeHtml(b.username)}">Challenge</a>`
    : `<span class="note">${{ guest: "Log in to challenge", offline: "", self: "Yours", bot: "" }[state]}</span>`;
  return `<tr data-testid="bot-row">
    <th scope="row" class="who">${profileLink(b.username, "", true)}</th>
    <td class="presence"><i class="dot ${online ? "on" : "off"}" aria-hidden="true" title="${online ? "online" : "offline"}"></i> <span class="presence-word">${online ? "online" : "offline"}</span></td>
    <td class="rating"><b>${Number.isFinite(b.rating) ? b.rating : "—"}</b></td>
    <td class="num">${Number.isFinite(b.games) ? b.games : 0}</td>
    <td class="act">${action}</td>
  </tr>`;
}

async function loadBots() {
  const r = await fetchJson("/api/bots");
  if (!r.ok) {
    status("bots-status", r.error, true);
    return;
  }
  const bots = Array.isArray(r.body.bots) ? r.body.bots : [];
  const online = bots.filter((b) => b.online === true).length;
  $("challenge-game-field").hidden = !(online && P.account && P.account.bot !== true);
  status("bots-status", bots.length
    ? `${bots.length === 1 ? "1 bot" : `${bots.length} bots`}, ${online} online now.${online && !P.account ? " Log in to challenge one." : ""}`
    : "No bots yet: make the first below.");
  $("bots-table").innerHTML = bots.length
    ? `<table class="ladder-table" data-testid="bots"><caption class="sr-only">The bots here</caption>
      <thead><tr><th scope="col">Bot</th><th scope="col">Now</th><th scope="col" class="rating">Rating</th><th scope="col" class="num" title="rated games">Games</th><th scope="col"><span class="sr-only">Challenge</span></th></tr></thead>
      <tbody>${bots.map(botRow).join("")}</tbody></table>`
    : "";
}

function tokenItem(t) {
  const li = el("li", `token-item${t.revoked ? " revoked" : ""}`);
  li.dataset.testid = "token-item";
  const head = el("div", "token-head");
  head.append(el("b", "token-name", t.name), el("span", "token-scopes", `may ${scopesText(t.scopes)}`));
  const meta = el("div", "token-meta note", `Created ${dayText(t.created)} · ${tokenState(t)}`);
  li.append(head, meta);
  if (!t.revoked) {
    li.append(button("Revoke", () => revoke(t), { cls: "danger", "data-testid": `revoke-${t.id}`, "aria-label": `Revoke ${t.name}` }));
  }
  return li;
}

async function loadTokens() {
  const r = await fetchJson("/api/account/tokens");
  if (!r.ok) {
    $("tokens").replaceChildren(el("p", "note status-bad", r.error));
    return;
  }
  const tokens = Array.isArray(r.body.tokens) ? r.body.tokens : [];
  if (!tokens.length) {
    $("tokens").replaceChildren(el("p", "note", "No tokens yet: create one above, then give it to your program."));
    return;
  }
  const list = el("ul", "token-list");
  list.append(...tokens.map(tokenItem));
  $("tokens").replaceChildren(list);
}

async function revoke(t) {
  if (!window.confirm(`Revoke the token "${t.name}"? Programs using it are disconnected now and can never use it again.`)) return;
  const r = await fetchJson(`/api/account/tokens/${encodeURIComponent(t.id)}`, { method: "DELETE" });
  if (!r.ok) status("token-error", r.error, true);
  else status("token-error", "");
  await loadTokens();
}

async function makeBot(ev) {
  ev.preventDefault();
  const f = $("make-bot-form").elements;
  if (!f.password.value) {
    status("make-bot-error", "Type your password to confirm.", true);
    return;
  }
  if (!f.sure.checked) {
    status("make-bot-error", "Tick the box to say you understand this cannot be undone.", true);
    return;
  }
  const go = $("make-bot-form").querySelector("button[type=submit]");
  go.disabled = true;
  const r = await fetchJson("/api/account/bot", { method: "POST", body: { password: f.password.value } });
  go.disabled = false;
  f.password.value = "";
  if (!r.ok) {
    status("make-bot-error", r.error, true);
    return;
  }
  status("make-bot-error", "");
  P.account = r.body;
  renderMine();
  await loadBots();
}

async function createToken(ev) {
  ev.preventDefault();
  const f = $("token-form").elements;
  const name = f.name.value.trim();
  const scopes = [...$("token-form").querySelectorAll("input[name=scope]:checked")].map((x) => x.value);
  const problem = tokenNameProblem(name) || scopesProblem(scopes);
  if (problem) {
    status("token-error", problem, true);
    return;
  }
  const go = $("token-form").querySelector("button[type=submit]");
  go.disabled = true;
  const r = await fetchJson("/api/account/tokens", { method: "POST", body: { name, scopes } });
  go.disabled = false;
  if (!r.ok) {
    status("token-error", r.error, true);
    return;
  }
  status("token-error", "");
  f.name.value = "";
  $("new-token-text").value = r.body.token;
  status("copy-status", "");
  $("new-token").hidden = false;
  $("new-token-text").focus();
  $("new-token-text").select();
  await loadTokens();
}

async function copyToken() {
  const text = $("new-token-text").value;
  try {
    await navigator.clipboard.writeText(text);
    status("copy-status", "Copied.");
  } catch {
    $("new-token-text").select();
    status("copy-status", "Your browser would not copy it: it is selected, copy it by hand.");
  }
}

function hideToken() {
  $("new-token-text").value = "";
  $("new-token").hidden = true;
  status("copy-status", "");
  $("token-form").elements.name.focus();
}

function renderMine() {
  const a = P.account;
  $("mine").hidden = false;
  $("make-bot").hidden = !a || a.bot === true;
  $("tokens-box").hidden = !a || a.bot !== true;
  $("mine-guest").hidden = Boolean(a);
  if (!a) {
    $("mine-guest").innerHTML = 'To run a bot of your own, <a href="/#account">log in or sign up</a> with the account it will play as.';
    return;
  }
  if (a.bot === true) {
    $("bot-name").innerHTML = `${profileLink(a.username)}${botMark(true)}`;
    loadTokens();
  }
}

async function start() {
  $("challenge-game").replaceChildren(...Object.entries(CHALLENGE_GAMES).map(([id, g]) => new Option(g.words, id)));
  $("challenge-game").addEventListener("change", loadBots);
  $("make-bot-form").addEventListener("submit", makeBot);
  $("token-form").addEventListener("submit", createToken);
  $("copy-token").addEventListener("click", copyToken);
  $("hide-token").addEventListener("click", hideToken);
  const me = await fetchJson("/api/account");
  P.account = me.ok && me.body && me.body.username ? me.body : null;
  renderMine();
  await loadBots();
  $("main").setAttribute("aria-busy", "false");
  document.body.dataset.loaded = "true";
}

start();
