// Ranked play in the browser (docs/protocol.md#ranked-play): the "Ranked" panel of the start screen (a big
// choice when logged in, a note in the side column for a guest)
// (the queue: singles or doubles, alone or with a named doubles partner, the wait counted from the server's clock, the rating window,
// Leave), and the words and pictures the ranked pages share (the leaderboard, a profile, the
// table's seats, the result's ratings). The pure helpers at the top touch no DOM and run in node;
// `wireRanked` is called once by app.js with what it needs of the connection.

export const LADDERS = ["singles", "doubles"];
/** The bots' ladder (rated apart from people): on the leaderboard and a bot's profile, never in a person's queue. */
export const BOT_LADDER = "bots";
export const LADDER_NAME = { singles: "Singles", doubles: "Doubles", bots: "Bots" };
/** The server's refusals about ranked play, shown in the ranked panel. */
export const RANKED_ERRORS = new Set(["not_logged_in", "already_queued", "in_ranked_game", "bad_ladder", "bad_partner", "no_shows"]);
const OUTCOME_WORD = { win: "Won", won: "Won", draw: "Drawn", drawn: "Drawn", loss: "Lost", lost: "Lost" };

/** "Won", "Drawn" or "Lost" for a stored outcome (win/draw/loss). */
export function outcomeWord(outcome) {
  return OUTCOME_WORD[String(outcome || "").toLowerCase()] || String(outcome || "");
}

/** "win", "draw" or "loss" (for styling), whatever spelling the server used. */
export function outcomeKey(outcome) {
  const w = outcomeWord(outcome);
  return w === "Won" ? "win" : w === "Drawn" ? "draw" : w === "Lost" ? "loss" : "other";
}

/** "2:05" for 125 seconds; "1:02:03" past an hour. Never negative. */
export function waitText(seconds) {
  const s = Math.max(0, Math.floor(Number(seconds) || 0));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = String(s % 60).padStart(2, "0");
  return h ? `${h}:${String(m).padStart(2, "0")}:${r}` : `${m}:${r}`;
}

/**
 * How long the player has waited, in seconds, by the server's clock: `queued` carries the
 * server's time when the wait began (`since`) and when it was sent (`server_time`); the page's
 * own clock only measures the time since that message arrived (`receivedAt`, same clock as `now`).
 */
export function waited(queued, now) {
  if (!queued || typeof queued.since !== "number" || typeof queued.server_time !== "number") return 0;
  const atMessage = queued.server_time - queued.since;
  const since = typeof queued.receivedAt === "number" ? Math.max(0, now - queued.receivedAt) : 0;
  return Math.max(0, atMessage + since);
}

/** The rating range the queue looks in: "990–1090" (the window is ± the player's rating). */
export function windowText(rating, window) {
  if (!Number.isFinite(rating) || !Number.isFinite(window)) return "";
  return `${Math.max(0, Math.round(rating - window))}–${Math.round(rating + window)}`;
}

/** A rating change's words: "+12", "−8", "±0". */
export function deltaText(before, after) {
  const d = Math.round(after) - Math.round(before);
  return d > 0 ? `+${d}` : d < 0 ? `−${-d}` : "±0";
}

/** A time the server gave (seconds since 1970, or an ISO text) as a Date, or null. */
export function dateOf(at) {
  if (typeof at === "number" && Number.isFinite(at)) return new Date(at < 1e11 ? at * 1000 : at);
  if (typeof at === "string" && at) {
    const t = Date.parse(at);
    return Number.isNaN(t) ? null : new Date(t);
  }
  return null;
}

/** "12 May 2025" (the page's locale, short). */
export function dayText(at) {
  const d = dateOf(at);
  return d ? d.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" }) : "";
}

/** What the "Partner" field holds, trimmed: "" for none. */
export function partnerName(text) {
  return typeof text === "string" ? text.trim() : "";
}

/**
 * Why the partner typed cannot be (the page's own check before asking the server), or "":
 * yourself (any case), or a name no account can have (3–20 letters, digits, _ or -).
 */
export function partnerProblem(partner, me) {
  const p = partnerName(partner);
  if (!p) return "";
  if (me && p.toLowerCase() === String(me).toLowerCase()) return "You cannot be your own partner.";
  if (!/^[A-Za-z0-9_-]{3,20}$/.test(p)) return `No player is called ${p}: a username is 3–20 letters, digits, _ or -.`;
  return "";
}

/** The `queue` message: `partner` only for doubles and only when one is named. */
export function queueMessage(ladder, partner) {
  const p = partnerName(partner);
  return ladder === "doubles" && p ? { type: "queue", ladder, partner: p } : { type: "queue", ladder };
}

/**
 * The partner's line while queued: "Waiting for bob to queue with you…" until the server says
 * the partner queued naming this player (`partner_ready`), then "Queued with bob"; "" without a
 * partner. The name is the server's (`partner`, as the partner spells it), else the one asked for.
 */
export function partnerText(queued, asked = "") {
  const name = (queued && typeof queued.partner === "string" && queued.partner) || partnerName(asked);
  if (!name) return "";
  return queued && queued.partner_ready === true ? `Queued with ${name}` : `Waiting for ${name} to queue with you…`;
}

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

/** The provisional marker: a short pill, spelled out for screen readers and on hover. */
export function provisionalMark(provisional) {
  return provisional
    ? ' <abbr class="provisional" title="Provisional: fewer than 10 ranked games, the rating still moves a lot" data-testid="provisional">prov.</abbr>'
    : "";
}

/**
 * The BOT mark beside a name the server says a program plays (`bot: true` in every player row and
 * seat): a short pill, spelled out for screen readers and on hover; "" for a person.
 */
export function botMark(bot) {
  return bot === true
    ? ' <abbr class="bot-mark" title="A bot: a program plays this account" data-testid="bot-mark">BOT</abbr>'
    : "";
}

/** The BOT mark as an element (for views built with el()): the same words as botMark's. */
export function botBadge() {
  const mark = document.createElement("abbr");
  mark.className = "bot-mark";
  mark.textContent = "BOT";
  mark.title = "A bot: a program plays this account";
  mark.dataset.testid = "bot-mark";
  return mark;
}

/** A player's name linking to their profile, with the BOT mark when `bot` is true. */
export function profileLink(username, attrs = "", bot = false) {
  return `<a href="/players/${encodeURIComponent(username)}"${attrs}>${esc(username)}</a>${botMark(bot)}`;
}

/**
 * The rating over time as an SVG line chart (a string; no library): one point per rated game,
 * the game's number along the bottom, the rating up the side with three labelled lines.
 * `points`: [{rating, label}] oldest first. Returns "" for no points.
 */
export function ratingChart(points, { width = 640, height = 220, title = "Rating over time" } = {}) {
  const ratings = points.map((p) => Number(p.rating)).filter(Number.isFinite);
  if (!ratings.length) return "";
  const left = 44;
  const right = 12;
  const top = 12;
  const bottom = 26;
  let lo = Math.min(...ratings);
  let hi = Math.max(...ratings);
  if (hi - lo < 20) {
    const mid = (hi + lo) / 2;
    lo = mid - 10;
    hi = mid + 10;
  }
  const pad = (hi - lo) * 0.08;
  lo = Math.max(0, Math.floor(lo - pad));
  hi = Math.ceil(hi + pad);
  const n = ratings.length;
  const x = (i) => left + (n === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (n - 1));
  const y = (r) => top + ((hi - r) * (height - top - bottom)) / (hi - lo);
  const f = (v) => v.toFixed(1);
  const grid = [lo, Math.round((lo + hi) / 2), hi].map((r) => `<line class="grid" x1="${left}" x2="${width - right}" y1="${f(y(r))}" y2="${f(y(r))}"/>`
    + `<text class="axis" x="${left - 6}" y="${f(y(r) + 4)}" text-anchor="end">${r}</text>`).join("");
  const path = ratings.map((r, i) => `${i ? "L" : "M"}${f(x(i))} ${f(y(r))}`).join(" ");
  const dots = points.map((p, i) => `<circle class="dot ${p.outcome ? outcomeKey(p.outcome) : ""}" cx="${f(x(i))}" cy="${f(y(ratings[i]))}" r="${n > 40 ? 2.5 : 4}"><title>${esc(p.label || `Game ${i + 1}: ${ratings[i]}`)}</title></circle>`).join("");
  const xLabels = `<text class="axis" x="${f(x(0))}" y="${height - 8}" text-anchor="${n === 1 ? "middle" : "start"}">game 1</text>`
    + (n > 1 ? `<text class="axis" x="${f(x(n - 1))}" y="${height - 8}" text-anchor="end">game ${n}</text>` : "");
  const summary = `${title}: ${n} game${n === 1 ? "" : "s"}, from ${ratings[0]} to ${ratings[n - 1]} (lowest ${Math.min(...ratings)}, highest ${Math.max(...ratings)}).`;
  return `<svg class="rating-chart" viewBox="0 0 ${width} ${height}" role="img" aria-label="${esc(summary)}" data-testid="rating-chart" preserveAspectRatio="xMidYMid meet">`
    + `${grid}<path class="line" d="${path}"/>${dots}${xLabels}</svg>`;
}

// ------------------------------------------------------------------ the queue panel (start screen)

const Q = {
  hooks: null, // {send, open, canQueue}
  ladder: "singles",
  queued: null, // the last `queued` message, with receivedAt (this page's clock, seconds)
  wanted: null, // the ladder asked for (re-sent on reconnect while queued)
  partner: "", // the doubles partner asked for with it ("" for none)
  username: null,
  known: false, // account.js has told who is signed in at least once
  timer: null,
};

const localNow = () => performance.now() / 1000;
const byId = (id) => document.getElementById(id);

function say(text, bad = false) {
  const e = byId("ranked-status");
  if (!e) return;
  e.textContent = text || "";
  e.classList.toggle("status-bad", Boolean(bad && text));
}

function renderPanel() {
  const box = byId("ranked-box");
  if (!box) return;
  const signedIn = Boolean(Q.username);
  box.hidden = false;
  // Logged in, ranked play is one of the start screen's big choices; a guest's note about it
  // waits in the side column (below everything on a phone).
  const home = byId(signedIn ? "start-choices" : "start-side");
  if (home && box.parentElement !== home) {
    const focused = box.contains(document.activeElement) ? document.activeElement : null;
    home.append(box);
    if (focused) focused.focus({ preventScroll: true });
  }
  byId("ranked-guest").hidden = signedIn;
  byId("ranked-choose").hidden = !signedIn || Boolean(Q.queued) || Boolean(Q.wanted);
  byId("ranked-queue").hidden = !signedIn || !(Q.queued || Q.wanted);
  const me = byId("my-profile-link");
  if (me) {
    me.hidden = !signedIn;
    if (signedIn) me.href = `/players/${encodeURIComponent(Q.username)}`;
  }
  renderWait();
}

function renderWait() {
  const q = Q.queued;
  if (!byId("ranked-wait")) return;
  const partnerLine = byId("ranked-partner");
  const partner = q ? partnerText(q) : partnerText(null, Q.partner);
  if (partnerLine && partnerLine.textContent !== partner) partnerLine.textContent = partner;
  if (!q) {
    byId("ranked-queue-title").textContent = Q.wanted ? `Joining the ${Q.wanted} queue…` : "";
    byId("ranked-wait").textContent = "";
    byId("ranked-window").textContent = "";
    return;
  }
  byId("ranked-queue-title").textContent = q.ladder !== "doubles" ? "Looking for an opponent (singles)…"
    : !partner ? "Looking for three players (doubles)…"
      : q.partner_ready === true ? "Looking for two opponents (doubles)…" : "Doubles with a partner";
  byId("ranked-wait").textContent = `Waiting ${waitText(waited(q, localNow()))}`;
  const range = windowText(q.rating, q.window);
  byId("ranked-window").textContent = range
    ? `Your rating ${q.rating}${q.provisional ? " (provisional)" : ""} · looking for ${range} (±${Math.round(q.window)}); the range widens as you wait.`
    : "";
}

/** The partner field shows for doubles only. */
function renderPartnerField() {
  const form = byId("ranked-form");
  const field = byId("ranked-partner-field");
  if (!form || !field) return;
  field.hidden = form.elements.ladder.value !== "doubles";
}

function join(ladder, partner = "") {
  if (!Q.hooks) return;
  if (!Q.username) {
    say("Log in to play ranked.", true);
    return;
  }
  const problem = Q.hooks.canQueue();
  if (problem) {
    say(problem, true);
    return;
  }
  const named = ladder === "doubles" ? partnerName(partner) : "";
  const wrong = partnerProblem(named, Q.username);
  if (wrong) {
    say(wrong, true);
    return;
  }
  Q.wanted = ladder;
  Q.partner = named;
  if (!Q.hooks.send(queueMessage(ladder, named))) {
    say("Not connected to the server: you join the queue when the connection is back.");
  } else say("");
  renderPanel();
}

function leave() {
  const was = Q.wanted;
  Q.wanted = null;
  Q.queued = null;
  Q.partner = "";
  if (was && Q.hooks) Q.hooks.send({ type: "leave_queue" });
  say("You left the queue.");
  renderPanel();
}

/** Messages of the queue (app.js passes them first); true when it was one. */
export function rankedMessage(msg) {
  if (!msg || typeof msg !== "object") return false;
  if (msg.type === "queued") {
    if (!Q.wanted) {
      Q.wanted = msg.ladder; // the server kept this page's entry (a restart)
      Q.partner = typeof msg.partner === "string" ? msg.partner : "";
    }
    Q.queued = { ...msg, receivedAt: localNow() };
    renderPanel();
    return true;
  }
  if (msg.type === "queue_left") {
    const why = msg.reason;
    Q.queued = null;
    Q.wanted = null;
    Q.partner = "";
    if (why === "restart") say("The server restarted and the queue was emptied: press Play ranked again.", true);
    else if (why === "disconnected") say("You were out of the queue while disconnected: press Play ranked again.", true);
    renderPanel();
    return true;
  }
  if (msg.type === "matched") {
    Q.queued = null;
    Q.wanted = null;
    Q.partner = "";
    say(`Matched: ${LADDER_NAME[msg.ladder] || msg.ladder} ranked game. Opening the table…`);
    renderPanel();
    if (Q.hooks) Q.hooks.open(msg.table);
    return true;
  }
  if (msg.type === "error" && RANKED_ERRORS.has(msg.code)) {
    if (msg.code !== "already_queued") {
      Q.queued = null;
      Q.wanted = null;
      Q.partner = "";
    }
    say(msg.message || msg.code, true);
    renderPanel();
    return true;
  }
  return false;
}

/** The connection is (back) open: a page that was queued asks again (the server keeps `since`). */
export function rankedConnected() {
  if (Q.wanted && Q.hooks && Q.username) Q.hooks.send(queueMessage(Q.wanted, Q.partner));
}

/** Who is signed in (account.js tells, on the document's `account` event). */
function setUser(username) {
  const first = !Q.known;
  Q.known = true;
  if ((username || null) === Q.username) return;
  Q.username = username || null;
  // The websocket knows its account from its handshake's cookie: a new login reconnects it.
  if (!first && Q.hooks && Q.hooks.reconnect) Q.hooks.reconnect();
  if (!Q.username && Q.wanted) {
    Q.wanted = null;
    Q.queued = null;
    Q.partner = "";
    if (Q.hooks) Q.hooks.send({ type: "leave_queue" });
  }
  renderPanel();
}

/**
 * Start the panel: `hooks` {send(msg) -> bool, open(table), canQueue() -> problem words or "",
 * reconnect() (a new websocket, whose handshake carries the new session cookie)}.
 */
export function wireRanked(hooks) {
  Q.hooks = hooks;
  const form = byId("ranked-form");
  if (!form) return;
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const ladder = form.elements.ladder.value === "doubles" ? "doubles" : "singles";
    join(ladder, form.elements.partner ? form.elements.partner.value : "");
  });
  form.addEventListener("change", renderPartnerField);
  renderPartnerField();
  byId("ranked-leave").addEventListener("click", leave);
  document.addEventListener("account", (ev) => setUser(ev.detail && ev.detail.username));
  if (window.crokinoleAccount && window.crokinoleAccount.ready) setUser(window.crokinoleAccount.username);
  clearInterval(Q.timer);
  Q.timer = setInterval(renderWait, 500);
  renderPanel();
}

/** For tests: the queue as the page sees it. */
export function rankedView() {
  return { wanted: Q.wanted, partner: Q.partner, queued: Q.queued ? { ...Q.queued } : null, username: Q.username };
}
