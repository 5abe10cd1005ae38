// Every request the client makes over HTTP (the websocket is net.js's). One style for all:
// a request resolves to {ok, status, body, error, reason} and never throws. `error` is a
// sentence on its own (the server's words from its {"code", "message"}, or ours when the
// server cannot be reached or answers something that is not JSON), `reason` the same words
// to follow a colon ("No review: table … has no game."). A page shows `error` (or `said()`,
// the server's words as it wrote them) where it tells the player what went wrong.

import { deviceToken } from "./store.js";

export const UNREACHABLE = "The server cannot be reached: try again in a moment.";

/**
 * Fetch JSON. `body` (any JSON value) is sent as JSON; `token` adds this device's token
 * (a header, never the address: it would land in access logs); `headers` adds more.
 * A 204 answer is ok with a null body.
 */
export async function fetchJson(url, { method = "GET", body = undefined, token = false, headers = {} } = {}) {
  const sent = { Accept: "application/json", ...headers };
  if (body !== undefined) sent["Content-Type"] = "application/json";
  if (token) sent["X-Device-Token"] = deviceToken();
  let answer;
  try {
    answer = await fetch(url, { method, headers: sent, body: body === undefined ? undefined : JSON.stringify(body), credentials: "same-origin" });
  } catch {
    return { ok: false, status: 0, body: null, error: UNREACHABLE, reason: "the server cannot be reached: try again in a moment." };
  }
  if (answer.ok && answer.status === 204) return { ok: true, status: 204, body: null, error: "", reason: "" };
  let data = null;
  try {
    data = await answer.json();
  } catch {
    /* not JSON: said below */
  }
  if (answer.ok && data) return { ok: true, status: answer.status, body: data, error: "", reason: "" };
  const said = data && typeof data.message === "string" ? data.message : "";
  const words = said ? sentence(said) : `The server answered ${answer.status}.`;
  return { ok: false, status: answer.status, body: data, error: words, reason: said ? sentence(said, false) : `the server answered ${answer.status}.` };
}

/** Fetch a text (a page): {ok, status, text, error}; never throws. */
export async function fetchText(url) {
  let answer;
  try {
    answer = await fetch(url, { credentials: "same-origin" });
  } catch {
    return { ok: false, status: 0, text: "", error: UNREACHABLE };
  }
  const text = await answer.text().catch(() => "");
  return { ok: answer.ok, status: answer.status, text, error: answer.ok ? "" : `The server answered ${answer.status}.` };
}

/** A failed answer's words as the server wrote them (no capital or full stop added), else `error`. */
export function said(result) {
  const m = result.body && typeof result.body.message === "string" ? result.body.message : "";
  return m || result.error;
}

/** Words as a sentence: a full stop at the end, and a capital first letter unless `cap` is false. */
export function sentence(text, cap = true) {
  const t = String(text).trim();
  if (!t) return t;
  const ended = /[.!?]$/.test(t) ? t : `${t}.`;
  return cap ? capital(ended) : ended;
}

export function capital(text) {
  const t = String(text);
  return t ? t[0].toUpperCase() + t.slice(1) : t;
}

/**
 * Listen to a Server-Sent Events stream of JSON (an event's views): `onData(value)` for each
 * message, `onState(open)` when the stream opens or drops (the browser reconnects by itself).
 * Returns a function that stops listening. Never throws; a message that is not JSON is skipped.
 */
export function listen(url, onData, onState = () => {}) {
  if (typeof EventSource === "undefined") return () => {};
  const source = new EventSource(url, { withCredentials: true });
  const take = (message) => {
    let value;
    try {
      value = JSON.parse(message.data);
    } catch {
      return;
    }
    onData(value);
  };
  source.onmessage = take;
  source.addEventListener("view", take);
  source.onopen = () => onState(true);
  source.onerror = () => onState(false);
  return () => source.close();
}
