// A person challenges a bot from the game's page (docs/bots.md, "Challenges"): the bots page links
// to /?challenge=<bot>; once the connection is open this sends `challenge {opponent, settings}`
// and shows who was asked, the time left to answer and a Cancel button. The bot's answer comes
// as the table itself (the usual `table` view: the game starts at once) or as
// `challenge_declined {id, reason}`. The pure helpers at the top touch no DOM and run in node.

/** The challenge's refusals the server may answer with (shown in the challenge's box). */
export const CHALLENGE_ERRORS = new Set(["bad_opponent", "bad_settings", "unknown_challenge", "not_logged_in", "scope", "too_many_games", "rate_limited"]);
const DECLINED = {
  declined: (who) => `${who} declined the challenge.`,
  expired: (who) => `${who} did not answer in time: the challenge has lapsed.`,
  cancelled: () => "You cancelled the challenge.",
  offline: (who) => `${who} went offline before answering.`,
  busy: (who) => `${who} is playing as many games as it may: try again later.`,
};

/** The bot named in the address (?challenge=name), or "" (a name no account can have is none). */
export function challengedIn(search) {
  const name = new URLSearchParams(search || "").get("challenge") || "";
  return /^[A-Za-z0-9_-]{3,20}$/.test(name) ? name : "";
}

/** The game chosen in the address (?game=to100): its TableSettings fields; the four rounds ({}) else. */
export function challengeSettings(search, games) {
  const id = new URLSearchParams(search || "").get("game") || "four";
  return Object.hasOwn(games, id) ? { ...games[id].settings } : {};
}

/** The `challenge` message: `settings` only the fields the page chose (the server fills the rest). */
export function challengeMessage(opponent, settings = {}) {
  return { type: "challenge", opponent, settings: settings && typeof settings === "object" ? settings : {} };
}

/** Seconds left to answer, by the server's `expires` and its clock (`serverNow`), never negative. */
export function secondsLeft(expires, serverNow) {
  if (!Number.isFinite(expires) || !Number.isFinite(serverNow)) return null;
  return Math.max(0, Math.ceil(expires - serverNow));
}

/**
 * The server's words ended as a sentence (a full stop added). No capital is added: its words
 * often begin with a username, which is spelled as its player spells it.
 */
export function asSentence(text) {
  const t = String(text || "").trim();
  return !t || /[.!?]$/.test(t) ? t : `${t}.`;
}

/** The words of a declined challenge: its reason in a sentence, naming the bot. */
export function declinedText(msg, who) {
  const name = who || "The bot";
  const say = DECLINED[msg && msg.reason];
  if (say) return say(name);
  return msg && typeof msg.message === "string" && msg.message ? asSentence(msg.message) : `${name} did not take the challenge.`;
}

const C = { hooks: null, asked: "", id: null, expires: null, sent: false, timer: null };
const byId = (id) => document.getElementById(id);

function show(text, bad = false, waiting = false) {
  const box = byId("challenge-box");
  if (!box) return;
  box.hidden = !text;
  byId("challenge-text").textContent = text;
  box.classList.toggle("status-bad", bad);
  byId("challenge-cancel").hidden = !waiting;
}

function tick() {
  if (!C.id || !C.hooks) return;
  const left = secondsLeft(C.expires, C.hooks.serverNow());
  show(`Challenge sent to ${C.asked}: waiting for its answer${left === null ? "" : ` (${left} s)`}…`, false, true);
}

function stop() {
  C.id = null;
  C.expires = null;
  if (C.timer) clearInterval(C.timer);
  C.timer = null;
}

/** Send the challenge in the address once the connection is open (app.js calls it on `welcome`). */
export function challengeConnected() {
  if (!C.hooks || !C.asked || C.sent) return;
  C.sent = true;
  if (!C.hooks.send(challengeMessage(C.asked, C.hooks.settings()))) {
    C.sent = false;
    show("Not connected to the server: the challenge is sent when the connection is back.");
    return;
  }
  show(`Challenging ${C.asked}…`, false, true);
}

/** Messages about a challenge (app.js passes them first); true when it was one. */
export function challengeReceived(msg) {
  if (!msg || typeof msg !== "object") return false;
  if (msg.type === "challenge_sent") {
    C.id = msg.id;
    C.expires = Number.isFinite(msg.expires) ? msg.expires : null;
    tick();
    if (!C.timer) C.timer = setInterval(tick, 1000);
    return true;
  }
  if (msg.type === "challenge_declined") {
    if (C.id && msg.id !== C.id) return true;
    stop();
    show(declinedText(msg, C.asked), msg.reason !== "cancelled");
    return true;
  }
  if (msg.type === "challenge_accepted") {
    stop();
    show("");
    if (msg.table && C.hooks) C.hooks.open(msg.table);
    return true;
  }
  if (msg.type === "table" && C.id) {
    stop(); // accepted: the table is the answer
    show("");
    return false; // and the table is shown as any other
  }
  if (msg.type === "error" && CHALLENGE_ERRORS.has(msg.code) && C.asked && !C.id && C.sent) {
    stop();
    show(asSentence(msg.message || msg.code), true);
    return true;
  }
  return false;
}

/** `hooks`: {send(msg) -> bool, open(table), settings() -> the table settings chosen, serverNow() -> seconds}. */
export function wireChallenge(hooks) {
  C.hooks = hooks;
  C.asked = challengedIn(location.search);
  const cancel = byId("challenge-cancel");
  if (cancel) {
    cancel.addEventListener("click", () => {
      if (C.id) hooks.send({ type: "challenge_cancel", id: C.id });
      stop();
      show("You cancelled the challenge.");
    });
  }
  if (C.asked) show(`Challenging ${C.asked}: connecting…`, false, false);
}
