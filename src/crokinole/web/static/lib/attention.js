// "Your turn, even in another tab": what the page does to call a player back to an online game
// (a party or a ranked table) that waits for their shot. Pure decisions, no DOM: the game page
// gives the state and how the page is seen, and carries out what `attend` returns (the title,
// the favicon, a Notification, a vibration). A game against the CPU or several people on one
// device never asks for attention: whoever plays is at the screen.

import { isHotSeat, isSpectator, shooter } from "./state.js";

export const TURN_TITLE = "● Your turn — Crokinole";
export const FAVICON = "/static/favicon.svg";
export const TURN_FAVICON = "/static/favicon-turn.svg";
export const NOTIFICATION_TITLE = "Your turn in crokinole";
/** One short buzz: noticed in a pocket, not a ringtone. */
export const VIBRATION_MS = 120;

/** What `attend` remembers between calls; a page starts from this. */
export const START = Object.freeze({ turn: undefined, notified: null });

/** A game with other people over the network: a party or a ranked table. */
export function onlineGame(s) {
  return s.kind === "party" || s.kind === "ranked" || Boolean(s.ranked);
}

/**
 * The turn this page waits for, or null: {key, opponents}. `key` names one turn of one player
 * (their discs in hand count down each turn), so the next turn is a new one; `opponents` are
 * the names of the other sides' players, as the game shows them.
 */
export function awaitedTurn(s) {
  if (!onlineGame(s) || isHotSeat(s) || isSpectator(s)) return null;
  const seat = shooter(s);
  if (!seat) return null;
  const g = s.game;
  const me = g.seats.find((x) => x.seat === seat);
  if (!me) return null;
  const opponents = g.seats.filter((x) => x.side !== me.side && x.name).map((x) => x.name);
  return { key: `${s.table}/${s.gameNumber}/${g.round}/${seat}/${me.in_hand}`, opponents };
}

/** The Notification's words: {title, body}; the body names the opponents when they are known. */
export function notificationText(turn) {
  const names = turn && turn.opponents ? turn.opponents : [];
  return { title: NOTIFICATION_TITLE, body: names.length ? `Against ${names.join(" & ")}.` : "" };
}

/**
 * Whether a turn vibrates the phone: the player's choice when they made one, else on for a
 * touch screen unless the device asks for reduced motion; never without navigator.vibrate.
 */
export function vibrationWanted(pref, { touch = false, reducedMotion = false, canVibrate = false } = {}) {
  if (!canVibrate) return false;
  if (typeof pref === "boolean") return pref;
  return touch && !reducedMotion;
}

/**
 * What to do now. `was`: what the last call returned as `memo` (START at first). `now`:
 * {turn (awaitedTurn's), visible, focused, notify (the player asked for notifications and the
 * browser allows them), vibrate (vibrationWanted's)}.
 *
 * Returns {memo, alert, notify, close, vibrate}:
 * - `alert`: the title and favicon say "your turn" (a turn waits and the page is hidden or not
 *   focused), else they are the page's own;
 * - `notify`: {title, body, tag} of the Notification to show, or null — one per turn, and only
 *   for a turn that came while the page was not looked at (one seen coming needs no reminder);
 * - `close`: the Notification shown is closed (its turn passed, or the page is looked at);
 * - `vibrate`: buzz once, when a turn comes while the page is visible.
 * The first call after the page loads only takes note of the turn: a page just opened on a
 * waiting turn is being looked at.
 */
export function attend(was, now) {
  const turn = now.turn || null;
  const key = turn ? turn.key : null;
  const away = !now.visible || !now.focused;
  const fresh = key !== null && was.turn !== undefined && key !== was.turn;
  const notify = fresh && away && Boolean(now.notify)
    ? { ...notificationText(turn), tag: `crokinole-turn/${key}` }
    : null;
  const close = was.notified !== null && (key !== was.notified || !away);
  return {
    memo: { turn: key, notified: notify ? key : close ? null : was.notified },
    alert: key !== null && away,
    notify,
    close,
    vibrate: fresh && Boolean(now.visible) && Boolean(now.vibrate),
  };
}
