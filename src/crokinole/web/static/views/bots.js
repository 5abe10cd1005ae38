// The bots' words and checks (the bots page and the game's challenge): pure helpers that touch no
// DOM and run in node (tests/web/js/bots.test.mjs). docs/bots.md is the protocol behind them.

import { dayText } from "./ranked.js";

export const SCOPES = ["play", "challenge", "ladder"];
const SCOPE_WORD = { play: "play", challenge: "challenge", ladder: "ladder" };

/** Why a token's name cannot be (the page's own check before asking the server), or "". */
export function tokenNameProblem(name) {
  const n = typeof name === "string" ? name.trim() : "";
  if (!n) return "Name the token (say, where the program runs), so you know which one to revoke.";
  if (n.length > 40) return "A token's name is at most 40 characters.";
  return "";
}

/** Why these scopes cannot be, or "": at least one, each one the server knows. */
export function scopesProblem(scopes) {
  if (!Array.isArray(scopes) || !scopes.length) return "Choose at least one thing the token may do.";
  const bad = scopes.find((s) => !SCOPES.includes(s));
  return bad ? `No such scope: ${bad}.` : "";
}

/** "play, challenge" for a token's scopes, in the page's order. */
export function scopesText(scopes) {
  const list = Array.isArray(scopes) ? SCOPES.filter((s) => scopes.includes(s)) : [];
  return list.length ? list.map((s) => SCOPE_WORD[s]).join(", ") : "nothing";
}

/** A token's state in words: "Revoked 3 Dec 2026", "Never used" or "Last used 3 Dec 2026". */
export function tokenState(t) {
  if (t && t.revoked) return `Revoked ${dayText(t.revoked)}`.trim();
  if (!t || !t.last_used) return "Never used";
  return `Last used ${dayText(t.last_used)}`.trim();
}

/** The games a person may offer a bot from the bots page: id -> {words, settings (TableSettings fields)}. */
export const CHALLENGE_GAMES = {
  four: { words: "Four rounds", settings: {} },
  to100: { words: "First to 100", settings: { scoring: "to_100" } },
  one: { words: "One round", settings: { rounds: 1 } },
};

/** Where a Challenge goes: the game's page, which sends the challenge over its connection. */
export function challengeHref(username, game = "four") {
  const g = Object.hasOwn(CHALLENGE_GAMES, game) && game !== "four" ? `&game=${game}` : "";
  return `/?challenge=${encodeURIComponent(username)}${g}`;
}

/**
 * What a signed-in account (GET /api/account: {username, bot}, or null for a guest) may do with
 * a listed bot: "challenge" (a person, the bot online), "offline", "self" (your own bot), "guest", "bot"
 * (a bot account challenges through its token, not the page).
 */
export function challengeState(account, bot) {
  if (!account || !account.username) return "guest";
  if (account.username.toLowerCase() === String(bot.username).toLowerCase()) return "self";
  if (account.bot === true) return "bot";
  return bot.online === true ? "challenge" : "offline";
}

