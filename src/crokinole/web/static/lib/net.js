// The websocket to the server (docs/protocol.md, v2): hello on every (re)connect, keep-alive pings,
// automatic reconnection with exponential backoff.
//
// A socket can die without closing (a phone changing network, a proxy that holds bytes): the
// browser then says it is open for minutes. So the page pings whenever it has heard nothing for
// PING_AFTER_MS, and a socket whose ping had no answer (nor any other message) within
// PONG_WAIT_MS is taken for dead: "reconnecting" is shown and a new socket opened at once, about
// 8 s after the server was last heard.

/** Ping when nothing was heard from the server for this long. */
export const PING_AFTER_MS = 3000;
/** A ping that nothing answered for this long means a dead socket: it is replaced. */
export const PONG_WAIT_MS = 4000;
const WATCH_EVERY_MS = 1000;
/** The websocket of protocol version 2 (docs/protocol.md). */
export const WS_PATH = "/ws/v2";
const BACKOFF_MS = [300, 1000, 2000, 4000, 8000, 15000];
const PARTY_CODE = /^[23456789ABCDEFGHJKMNPQRSTUVWXYZ]{6}$/;
const TABLE_ID = /^[a-f0-9]{32}$/;

/**
 * The websocket address's query naming the party (its code) or else the table this page is
 * at, for a load balancer to send one game's players to one process (docs/deploy.md,
 * "Affinity"); "" when it is at neither. The server reads nothing there but refuses a
 * malformed one, so anything else is left out.
 * @param {{party?: string|null, table?: string|null}} at
 */
export function affinityQuery({ party = null, table = null } = {}) {
  if (typeof party === "string" && PARTY_CODE.test(party)) return `?party=${party}`;
  if (typeof table === "string" && TABLE_ID.test(table)) return `?table=${table}`;
  return "";
}

export class Connection {
  /**
   * @param {object} opts
   * @param {() => object} opts.hello  builds the hello message for each (re)connection
   * @param {() => {party?: string|null, table?: string|null}} [opts.at]  the party or table
   *   this page is at when it (re)connects, named in the address (affinityQuery)
   * @param {(msg: object) => void} opts.onMessage
   * @param {(status: "connecting"|"open"|"reconnecting") => void} opts.onStatus
   */
  constructor({ hello, at = () => ({}), onMessage, onStatus }) {
    this.hello = hello;
    this.at = at;
    this.onMessage = onMessage;
    this.onStatus = onStatus;
    this.ws = null;
    this.attempt = 0;
    this.timer = null;
    this.pinger = null;
    this.heardAt = 0;
    this.pingedAt = 0;
    this.everOpened = false;
    this.closedByUs = false;
  }

  get url() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    return `${proto}//${location.host}${WS_PATH}${affinityQuery(this.at())}`;
  }

  get open() {
    return this.ws !== null && this.ws.readyState === WebSocket.OPEN;
  }

  connect() {
    clearTimeout(this.timer);
    this.closedByUs = false;
    this.onStatus(this.everOpened ? "reconnecting" : "connecting");
    let ws;
    try {
      ws = new WebSocket(this.url);
    } catch {
      this._schedule();
      return;
    }
    this.ws = ws;
    ws.onopen = () => {
      if (ws !== this.ws) return;
      this.attempt = 0;
      this.everOpened = true;
      ws.send(JSON.stringify(this.hello()));
      this.onStatus("open");
      this.heardAt = Date.now();
      this.pingedAt = 0;
      clearInterval(this.pinger);
      this.pinger = setInterval(() => this._watch(ws), WATCH_EVERY_MS);
    };
    ws.onmessage = (ev) => {
      if (ws !== this.ws) return;
      this.heardAt = Date.now();
      let msg;
      try {
        msg = JSON.parse(ev.data);
      } catch {
        return;
      }
      if (msg && typeof msg === "object") this.onMessage(msg);
    };
    ws.onclose = () => {
      if (ws !== this.ws) return;
      clearInterval(this.pinger);
      this.ws = null;
      if (!this.closedByUs) this._schedule();
    };
    ws.onerror = () => {
      // onclose follows and schedules the retry.
    };
  }

  /** Drop the socket and connect again at once (a new hello is sent). */
  restart() {
    this.closedByUs = true;
    const old = this.ws;
    this.ws = null;
    clearInterval(this.pinger);
    if (old) {
      try {
        old.close();
      } catch {
        /* already closed */
      }
    }
    this.attempt = 0;
    this.connect();
  }

  /** Keep the socket alive, and replace it when its ping went unanswered (PONG_WAIT_MS). */
  _watch(ws) {
    if (ws !== this.ws) return;
    const now = Date.now();
    const waiting = this.pingedAt > this.heardAt;
    if (waiting && now - this.pingedAt >= PONG_WAIT_MS) {
      this.restart(); // shows "reconnecting"; the old socket is let go whatever it says
      return;
    }
    if (!waiting && now - this.heardAt >= PING_AFTER_MS) {
      this.pingedAt = now;
      this.send({ type: "ping" });
    }
  }

  _schedule() {
    this.onStatus("reconnecting");
    const base = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
    this.attempt += 1;
    const delay = base * (0.8 + Math.random() * 0.4);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), delay);
  }

  /** Send a message; returns false when the socket is not open (the caller tells the user). */
  send(msg) {
    if (!this.open) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }
}
