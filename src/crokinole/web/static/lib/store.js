// What the client keeps in localStorage: the device token, preferences, and the table it shows
// (its id, last fully-shown event and that state, so a reopened tab resumes where it was).

const PREFIX = "crokinole.";
const TOKEN_RE = /^[A-Za-z0-9_-]{16,64}$/;

function read(key, fallback) {
  try {
    const raw = localStorage.getItem(PREFIX + key);
    return raw === null ? fallback : JSON.parse(raw);
  } catch {
    return fallback;
  }
}

function write(key, value) {
  try {
    if (value === null || value === undefined) localStorage.removeItem(PREFIX + key);
    else localStorage.setItem(PREFIX + key, JSON.stringify(value));
  } catch {
    /* storage full or disabled: the game still works, only without resuming */
  }
}

/** A random device token matching the protocol's rule (16–64 of [A-Za-z0-9_-]). */
export function deviceToken() {
  let token = read("token", null);
  if (typeof token === "string" && TOKEN_RE.test(token)) return token;
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes); // randomUUID needs a secure context; a phone on the LAN has none
  token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  write("token", token);
  return token;
}

const DEFAULT_PREFS = {
  opponent: "normal",
  scoring: "four_rounds",
  discs: 8,
  required_contact: true,
  sound: false,
  // Several people on one device: the board turns toward the player to move unless they fix it
  // (a new key: the old "turn_board" was saved as false by default and would keep it fixed).
  fixed_board: false,
  names: {},
  scheme: "classic", // colours of the discs: board.js SCHEMES
  cpu_pause: 0.8, // seconds the CPU waits after the previous shot before its own is shown
};

export function loadPrefs() {
  const p = read("prefs", {});
  return { ...DEFAULT_PREFS, ...(p && typeof p === "object" ? p : {}) };
}

export function savePrefs(prefs) {
  write("prefs", prefs);
}

/** {table, event, state, aim} of the table on screen (state.js's state), or null. */
export function loadGame() {
  const g = read("game", null);
  if (!g || typeof g.table !== "string" || !g.state || typeof g.state !== "object") return null;
  return g;
}

export function saveGame(value) {
  write("game", value);
}
