// The client's state as a pure function of the server's messages (docs/protocol.md, v2).
//
//   state = reduce(state, message, localNow)
//
// No DOM, no timers, no clock reads: `localNow` (seconds, the page's own clock when the message
// arrived) is passed in and is used for one thing only, the offset between the server's clock
// and this page's, so that a deadline the server set can be counted down on screen. The rule
// itself (a turn ran out) is always the server's; the count on screen is only a display.
// The selectors below (shooter, clock, placementProblem, …) are pure too; tests run them in node.

export const SEATS = ["south", "west", "north", "east"];

/** Seats of each layout (R2), and the discs per side R2 allows (first = default). */
export const LAYOUTS = {
  singles: { seats: ["south", "north"], sides: [["south"], ["north"]], discs: [8, 12], name: "Singles (2 players)" },
  doubles: {
    seats: ["south", "west", "north", "east"], sides: [["south", "north"], ["west", "east"]], discs: [12],
    name: "Doubles (4 players, partners opposite)",
  },
  two_vs_one: {
    seats: ["south", "west", "north"], sides: [["south", "north"], ["west"]], discs: [12],
    name: "2 against 1 (3 players)",
  },
  three_singles: {
    seats: ["south", "west", "north"], sides: [["south"], ["west"], ["north"]], discs: [8],
    name: "Three singles (3 players)",
  },
};

/** The fixed set of quick reactions (the server sends its list in welcome.reactions). */
export const REACTION_WORDS = {
  nice_shot: "Nice shot!",
  good_game: "Good game",
  well_played: "Well played",
  oops: "Oops!",
  thanks: "Thanks",
  good_luck: "Good luck!",
};

const LOG_MAX = 80;
const REACTIONS_KEPT = 6;
const SEAT_WORD = { south: "South", west: "West", north: "North", east: "East" };

export function initialState() {
  return {
    connection: "connecting",
    token: null,
    protocol: null,
    levels: [], // [{id, name}] weakest first
    reactionIds: Object.keys(REACTION_WORDS),
    record: null,
    myTables: [], // welcome.tables: [{table, kind, stage}]
    offset: 0, // server clock minus this page's clock, seconds
    table: null, // the table on screen (32-hex id) or null
    kind: null, // "solo" | "party"
    code: null,
    invite: null,
    stage: null, // "lobby" | "playing" | "finished" | "closed"
    host: null, // mid
    you: { member: null, seats: [], spectator: false, host: false },
    members: [],
    spectators: 0,
    seats: [], // [{seat, side, occupant}]
    settings: null,
    deadline: null, // {kind, at} in server seconds
    placement: {}, // {seat: [[lo, hi], ...]}
    nextPressed: [],
    rematchVotes: [],
    game: null,
    event: null, // the table's version of the last message applied
    log: [], // this round's shots: [{seat, report, by, event}]
    reactions: [], // recent reactions: [{member, reaction, event}]
    closed: null, // reason
    abandoned: false,
    aborted: null, // a ranked game aborted for a no-show: {reason, seat, name, message}
    error: null, // the last refusal {code, message}
    ranked: false, // a ranked table (docs/protocol.md#ranked-play): fixed rules, each seat's rating shown
    ratings: {}, // a ranked table's {seat: {username, rating, provisional}} as the view gave them
    ratingChanges: null, // the `finished` message's ratings: [{username, ladder, before, after, provisional}]
    gameNumber: null, // the table's game on screen (1, 2, … after rematches), from the view's game_number
    seatNames: {}, // {seat: name} of each seat's player as seen at this table (a seat left empty keeps it)
    mySeats: [], // the seats this screen played at this table (kept after it left or resigned)
    hintsUsed: {}, // {seat: hints and heat maps asked for in this game} (the view's hints_used)
    eventLink: null, // an event's table: {id, name, stage, round, table, game, best_of, label, page}
  };
}

// ------------------------------------------------------------------ the reducer

const LOBBY_KEYS = [
  "kind", "code", "invite", "stage", "host", "you", "members", "spectators", "seats", "settings",
  "deadline", "placement", "next_pressed", "rematch_votes", "ranked", "ratings", "hints_used",
  "event_link",
];

const RENAME = {
  next_pressed: "nextPressed", rematch_votes: "rematchVotes", hints_used: "hintsUsed", event_link: "eventLink",
};

/**
 * The game with every seat's name told apart: two seats of one name (two "CPU Easy" against
 * you in three singles) get their seat word added, "CPU Easy (West)".
 */
export function withDistinctNames(game) {
  if (!game || !Array.isArray(game.seats)) return game;
  const count = new Map();
  for (const x of game.seats) count.set(x.name, (count.get(x.name) || 0) + 1);
  if (game.seats.every((x) => count.get(x.name) === 1)) return game;
  return {
    ...game,
    seats: game.seats.map((x) => (count.get(x.name) > 1 ? { ...x, name: `${x.name} (${SEAT_WORD[x.seat] || x.seat})` } : x)),
  };
}

/** Copy the parts of a (possibly partial) view onto the state. */
function applyParts(s, part) {
  const out = { ...s };
  for (const key of LOBBY_KEYS) {
    if (part[key] === undefined) continue;
    let value = part[key];
    if (key === "you") value = { member: null, seats: [], spectator: false, host: false, ...value };
    if (key === "placement" && value === null) value = {};
    if (key === "ratings" || key === "hints_used") value = value && typeof value === "object" ? value : {};
    out[RENAME[key] || key] = value;
  }
  if (part.game !== undefined) out.game = withDistinctNames(part.game);
  if (part.kind === "ranked") out.ranked = true;
  return out;
}

/**
 * Remember each seat's player and this screen's seats while they are seen; a seat left empty
 * (a ranked player who resigned or left: the server names them no more) keeps its player's
 * name in the game, so the final score still says who played it.
 */
function withSeen(s) {
  let names = s.seatNames || {};
  const gameName = (seat) => {
    const x = s.game && Array.isArray(s.game.seats) ? s.game.seats.find((y) => y.seat === seat) : null;
    return x && typeof x.name === "string" ? x.name : "";
  };
  for (const x of s.seats) {
    const o = x.occupant;
    if (!o || o.kind !== "person") continue;
    const name = (typeof x.username === "string" && x.username) || gameName(x.seat) || o.name || "";
    if (name && names[x.seat] !== name) names = { ...names, [x.seat]: name };
  }
  let out = names === s.seatNames ? s : { ...s, seatNames: names };
  if (s.you.seats.length && s.you.seats.join() !== (s.mySeats || []).join()) out = { ...out, mySeats: s.you.seats.slice() };
  const empty = new Set(s.seats.filter((x) => !x.occupant && names[x.seat]).map((x) => x.seat));
  if (empty.size && s.game && Array.isArray(s.game.seats) && s.game.seats.some((x) => empty.has(x.seat) && x.name !== names[x.seat])) {
    out = { ...out, game: withDistinctNames({ ...s.game, seats: s.game.seats.map((x) => (empty.has(x.seat) ? { ...x, name: names[x.seat] } : x)) }) };
  }
  return out;
}

function withOffset(s, serverTime, localNow) {
  if (typeof serverTime !== "number" || typeof localNow !== "number") return s;
  return { ...s, offset: serverTime - localNow };
}

/** A snapshot of a whole table (a `table` message, or game_started's view). */
function applyView(s, view, event, localNow) {
  const same = view.table === s.table;
  // The view does not say that a game was abandoned: a snapshot of the same table after its
  // end (a reload's `hello` gets one) keeps what the `finished` message said.
  const ended = view.stage === "finished" || view.stage === "closed";
  let out = { ...s, table: view.table, closed: null, abandoned: same && ended && s.abandoned, error: null };
  if (!same) out = { ...out, ranked: false, ratings: {}, ratingChanges: null, seatNames: {}, mySeats: [], hintsUsed: {} };
  out = applyParts(out, view);
  // Why the last game was aborted (a ranked no-show), as the view says; none once a game starts.
  out.aborted = view.aborted && typeof view.aborted.message === "string" ? view.aborted : null;
  // The game's number at the table (a rematch is game 2): the replay link names it.
  if (Number.isInteger(view.game_number) && view.game_number > 0) out.gameNumber = view.game_number;
  else if (!same) out.gameNumber = null;
  if (!same) {
    out.log = [];
    out.reactions = [];
  }
  // A snapshot of another round than the log's: the log is of the round on screen.
  if (same && s.game && out.game && out.game.round !== s.game.round) out.log = [];
  out.event = Number.isInteger(event) ? event : out.event;
  return withOffset(out, view.server_time, localNow);
}

/**
 * The next state after one server message.
 * @param {object} s the current state (never changed)
 * @param {object} msg a server message (docs/protocol.md)
 * @param {number} [localNow] this page's clock in seconds when the message arrived
 */
export function reduce(s, msg, localNow) {
  const out = reduceMessage(s, msg, localNow);
  return out === s ? s : withSeen(out);
}

function reduceMessage(s, msg, localNow) {
  if (!msg || typeof msg !== "object") return s;
  switch (msg.type) {
    case "welcome": {
      const out = {
        ...s,
        token: msg.token ?? s.token,
        protocol: msg.protocol ?? s.protocol,
        levels: Array.isArray(msg.levels) ? msg.levels.filter((l) => l && typeof l.id === "string") : s.levels,
        reactionIds: Array.isArray(msg.reactions) ? msg.reactions.slice() : s.reactionIds,
        record: msg.record ?? s.record,
        myTables: Array.isArray(msg.tables) ? msg.tables.slice() : s.myTables,
        error: null,
      };
      return withOffset(out, msg.server_time, localNow);
    }
    case "pong":
      return withOffset(s, msg.server_time, localNow);
    case "error":
      return { ...s, error: { code: msg.code, message: msg.message || msg.code } };
    case "table":
      if (!msg.view) return s;
      return applyView(s, msg.view, msg.event, localNow);
    case "game_started": {
      if (!msg.view) return s;
      const out = applyView(s, msg.view, msg.event, localNow);
      const used = msg.view.hints_used && typeof msg.view.hints_used === "object" ? msg.view.hints_used : {};
      return { ...out, log: [], ratingChanges: null, hintsUsed: used }; // a new game counts afresh
    }
    default:
  }
  // Every other message is one event of a table: it must be the table on screen, and newer
  // than what is shown (a resent copy after a reconnect changes nothing).
  if (!s.table || msg.table !== s.table) return s;
  if (Number.isInteger(msg.event) && Number.isInteger(s.event) && msg.event <= s.event) return s;
  let out = { ...s, error: null };
  if (Number.isInteger(msg.event)) out.event = msg.event;
  // Every event message carries the lobby parts of the table after it (who is where, the
  // stage, deadline, placement, next and rematch presses, hints used, `you`): copied over,
  // they are the whole of those; the cases below add only what the lobby does not hold.
  if (msg.lobby) out = applyParts(out, msg.lobby);
  if (typeof msg.server_time === "number") out = withOffset(out, msg.server_time, localNow);
  switch (msg.type) {
    case "member":
      // A player renamed mid-game is named so at once (the game's next state would say it later).
      if (msg.change === "renamed" && msg.name && out.game) {
        const seats = new Set(out.seats.filter((x) => x.occupant && x.occupant.member === msg.member).map((x) => x.seat));
        if (seats.size) {
          out.game = withDistinctNames({ ...out.game, seats: out.game.seats.map((x) => (seats.has(x.seat) ? { ...x, name: msg.name } : x)) });
        }
      }
      return out;
    case "shot":
    case "timeout": {
      if (msg.game) out.game = withDistinctNames(msg.game);
      const entry = { seat: msg.seat, report: msg.report || null, by: msg.by || null, event: msg.event ?? null };
      if (msg.type === "timeout") entry.reason = msg.reason || "clock";
      out.log = [...s.log, entry].slice(-LOG_MAX);
      if (out.game && out.game.phase === "game_over") out.stage = "finished";
      return out;
    }
    case "round":
      if (msg.game) out.game = withDistinctNames(msg.game);
      out.log = [];
      return out;
    case "aborted":
      // A ranked game stopped before it was played: the player who did not take a first shot.
      out.aborted = typeof msg.message === "string" ? { reason: msg.reason, seat: msg.seat, name: msg.name, message: msg.message } : null;
      return out;
    case "finished":
      if (msg.aborted && typeof msg.aborted.message === "string") out.aborted = msg.aborted;
      if (msg.game) out.game = withDistinctNames(msg.game);
      out.abandoned = Boolean(msg.abandoned);
      if (msg.record) out.record = msg.record;
      if (Array.isArray(msg.ratings)) out.ratingChanges = msg.ratings.filter((r) => r && typeof r.username === "string");
      return out;
    case "reaction":
      out.reactions = [...s.reactions, { member: msg.member, reaction: msg.reaction, event: msg.event ?? null }]
        .slice(-REACTIONS_KEPT);
      return out;
    case "closed":
      out.closed = msg.reason || "closed";
      return out;
    default:
      // seat, settings, presence, stand_in, next_pressed, rematch_vote, hint_taken and anything
      // newer: the lobby parts applied above say it all.
      return out;
  }
}

/** Forget the table on screen (left it, or the server no longer knows it). */
/**
 * Whether ``msg`` shows that events of the table on screen were lost on the way: one event's
 * message that is more than one past the last event received (``received``). Every event after a
 * table's creation has exactly one message, so a jump means some never arrived; the client then
 * asks for the table whole (the server reads it from its stored log). Snapshots (``table``,
 * ``game_started``) and other tables' messages are never gaps.
 */
export function eventGap(s, received, msg) {
  if (!s.table || msg.table !== s.table || msg.type === "table" || msg.type === "game_started") return false;
  return Number.isInteger(msg.event) && Number.isInteger(received) && msg.event > received + 1;
}

export function leaveTable(s) {
  const fresh = initialState();
  return {
    ...fresh,
    connection: s.connection, token: s.token, protocol: s.protocol, levels: s.levels,
    reactionIds: s.reactionIds, record: s.record, offset: s.offset, // ranked fields: the fresh ones
    myTables: s.myTables.filter((t) => t.table !== s.table),
  };
}

export function withConnection(s, connection) {
  return { ...s, connection };
}

// ------------------------------------------------------------------ selectors

/** Who is who on this screen: one device with several seats names everyone (nobody is "you"). */
export function isHotSeat(s) {
  return s.you.seats.length > 1;
}

export function isSpectator(s) {
  // A party's member left without a seat when the game started watches it like a spectator.
  const unseated = s.kind === "party" && s.stage !== "lobby" && Boolean(s.game) && s.you.seats.length === 0;
  return Boolean(s.you.spectator) || unseated;
}

/** The seat this screen may shoot for now, or null. */
export function shooter(s) {
  const g = s.game;
  if (!g || g.phase !== "playing" || !g.current_seat || s.stage !== "playing") return null;
  if (isSpectator(s) || !s.you.seats.includes(g.current_seat)) return null;
  const seat = seatOf(s, g.current_seat);
  if (seat && seat.occupant && seat.occupant.stand_in) return null; // the CPU plays it now
  return g.current_seat;
}

export function seatOf(s, seat) {
  return s.seats.find((x) => x.seat === seat) || null;
}

export function memberOf(s, mid) {
  return s.members.find((m) => m.member === mid) || null;
}

/**
 * The seat drawn at the bottom of the board for this viewer: their own seat; on one device
 * with several seats, the seat to move when `turnBoard` is on (else the first of theirs);
 * a spectator sees the board from south.
 */
export function bottomSeat(s, turnBoard = false) {
  const mine = s.you.seats;
  if (!mine.length || isSpectator(s)) return "south";
  if (mine.length > 1) {
    const g = s.game;
    if (turnBoard && g && g.phase === "playing" && mine.includes(g.current_seat)) return g.current_seat;
    return mine.includes("south") ? "south" : mine[0];
  }
  return mine[0];
}

/** The layout's seats (from the settings, or the view's seat list). */
export function layoutSeats(s) {
  if (s.seats.length) return s.seats.map((x) => x.seat);
  const l = s.settings && LAYOUTS[s.settings.layout];
  return l ? l.seats.slice() : [];
}

/** "CPU Normal" for a level id. */
export function levelName(s, id) {
  const l = s.levels.find((x) => x.id === id);
  return `CPU ${l ? l.name : id}`;
}

/** The name of a seat's occupant, as people read it ("Ann", "CPU Hard", "Empty seat"). */
export function occupantName(s, seat) {
  const x = seatOf(s, seat);
  const o = x && x.occupant;
  if (!o) return "Empty seat";
  if (o.kind === "cpu") return o.name || levelName(s, o.level);
  return o.name || (memberOf(s, o.member) || {}).name || SEAT_WORD[seat] || seat;
}

/**
 * A ranked table's player at `seat`: {username, rating, provisional}, or null (not ranked, or
 * nothing said). The view may say it on the seat, on its occupant, or in `ratings` by seat.
 */
export function seatRating(s, seat) {
  if (!s.ranked) return null;
  const x = seatOf(s, seat) || {};
  const o = x.occupant || {};
  const r = (s.ratings && s.ratings[seat]) || {};
  const pick = (k) => (x[k] !== undefined ? x[k] : o[k] !== undefined ? o[k] : r[k]);
  const rating = pick("rating");
  if (typeof rating !== "number") return null;
  const username = pick("username") || o.name || (memberOf(s, o.member) || {}).name || null;
  return { username, rating, provisional: Boolean(pick("provisional")) };
}

/**
 * The game on screen is over: played to its end, the table closed, or finished by an abandon
 * (a ranked table is finished only when its one game is).
 */
export function gameEnded(s) {
  const g = s.game;
  if (!g) return false;
  return g.phase === "game_over" || s.stage === "closed" || (s.stage === "finished" && (s.abandoned || s.ranked));
}

/** "CPU playing for Ann" when a stand-in plays a seat, else null. */
export function standInText(s, seat) {
  const x = seatOf(s, seat);
  if (!x || !x.occupant || !x.occupant.stand_in) return null;
  return `CPU playing for ${occupantName(s, seat)}`;
}

/** Every seat of the layout holds someone: the host may start. */
export function allSeatsFilled(s) {
  return s.seats.length > 0 && s.seats.every((x) => x.occupant);
}

export function canStart(s) {
  // Between games too: the host fills a seat a player left, then starts the next game.
  return (s.stage === "lobby" || s.stage === "finished") && Boolean(s.you.host) && allSeatsFilled(s);
}

/** The server's clock now, from this page's clock and the offset measured on messages. */
export function serverNow(s, localNow) {
  return localNow + s.offset;
}

/**
 * The deadline on screen: {kind, left} (seconds left, never below 0), or null.
 * The count is for display; the server alone decides when a turn ran out.
 */
export function clock(s, localNow) {
  const d = s.deadline;
  if (!d || typeof d.at !== "number") return null;
  return { kind: d.kind, left: Math.max(0, d.at - serverNow(s, localNow)) };
}

/** The free stretches of `seat`'s quarter of the line, from the server ([] when none known). */
export function freeStretches(s, seat) {
  const p = s.placement && s.placement[seat];
  return Array.isArray(p) ? p : [];
}

const EDGE = 1e-6;

/** Is `position` (degrees) inside one of the server's free stretches for `seat`? */
export function placementFree(s, seat, position) {
  if (!Number.isFinite(position)) return false;
  // No stretches sent for this seat: nothing known here, the server judges the placement.
  if (!s.placement || !Array.isArray(s.placement[seat])) return true;
  return freeStretches(s, seat).some(([lo, hi]) => position >= lo - EDGE && position <= hi + EDGE);
}

/** The free position nearest to `position`, or null when the line is full. */
export function nearestFree(s, seat, position) {
  let best = null;
  for (const [lo, hi] of freeStretches(s, seat)) {
    const p = Math.min(hi, Math.max(lo, position));
    if (best === null || Math.abs(p - position) < Math.abs(best - position)) best = p;
  }
  return best;
}

/**
 * Why a disc may not be placed at `position`, or null. The stretches are the server's
 * (R3: inside the quarter, overlapping no disc); `inTheWay` (optional) names what blocks it.
 */
export function placementProblem(s, seat, position, inTheWay = null) {
  const g = s.game;
  const limit = g ? g.placement_limit : 45;
  if (!Number.isFinite(position) || Math.abs(position) > limit + EDGE) {
    return `the disc would cross the quadrant line (allowed −${limit.toFixed(1)}° to ${limit.toFixed(1)}°)`;
  }
  if (placementFree(s, seat, position)) return null;
  if (!freeStretches(s, seat).length) {
    return "there is no room on your part of the shooting line";
  }
  return `the disc would overlap ${inTheWay || "a disc"}`;
}

/** Name of a side, e.g. "Ann & Bob". */
export function sideName(game, side) {
  const names = game.seats.filter((x) => x.side === side).map((x) => x.name);
  return names.join(" & ") || `Side ${side + 1}`;
}

/** The side a viewer plays for (null for hot-seat screens and spectators). */
export function mySide(s) {
  if (isHotSeat(s) || isSpectator(s) || !s.game || !s.you.seats.length) return null;
  const x = s.game.seats.find((y) => y.seat === s.you.seats[0]);
  return x ? x.side : null;
}

/** What the turn line says. */
export function turnText(s) {
  const g = s.game;
  if (!g) return "";
  if (g.phase === "round_over") return "Round over";
  if (g.phase === "game_over") return "Game over";
  const seat = g.current_seat;
  if (!seat) return "";
  const info = g.seats.find((x) => x.seat === seat);
  const name = info ? info.name : SEAT_WORD[seat];
  const standIn = standInText(s, seat);
  if (standIn) return `${standIn}…`;
  if (s.you.seats.includes(seat) && !isSpectator(s)) return isHotSeat(s) ? `${name} to shoot` : "Your turn";
  if (info && info.cpu) return `${name} is thinking…`;
  return `${name} to shoot`;
}

/** The words of a reaction id. */
export function reactionText(id) {
  return REACTION_WORDS[id] || String(id);
}

/** Who reacted, for the viewer. */
export function reactionLine(s, r) {
  const m = memberOf(s, r.member);
  const who = r.member === s.you.member ? "You" : m ? m.name : "Someone";
  return `${who}: ${reactionText(r.reaction)}`;
}

// ------------------------------------------------------------------ what the client sends

/**
 * The settings of a new table from the start screen's choices (TableSettings fields).
 * `opts`: {layout, discs, scoring, rounds, tie, required_contact, turn_time, hand, standin_level}.
 */
export function tableSettings(opts) {
  const layout = LAYOUTS[opts.layout] ? opts.layout : "singles";
  const allowed = LAYOUTS[layout].discs;
  const discs = allowed.includes(Number(opts.discs)) ? Number(opts.discs) : allowed[0];
  const scoring = opts.scoring === "to_100" ? "to_100" : "four_rounds";
  const settings = {
    layout,
    discs,
    scoring,
    rounds: scoring === "four_rounds" ? clampRounds(opts.rounds) : null,
    tie: opts.tie === "extra_rounds" ? "extra_rounds" : "draw",
    required_contact: opts.required_contact !== false,
    turn_time: [30, 60].includes(Number(opts.turn_time)) ? Number(opts.turn_time) : null,
    hand: opts.hand === "human" ? "human" : "steady",
    standin_level: opts.standin_level || "normal",
  };
  if (Number(opts.turn_time) > 0 && opts.allow_short_clock) settings.turn_time = Number(opts.turn_time);
  return settings;
}

function clampRounds(r) {
  const n = Number.parseInt(r, 10);
  return n >= 1 && n <= 4 ? n : 4;
}

/**
 * The `seats` of a solo table: {seat: "me" | level}. `people` seats are played on this
 * device (the first `people` seats of the layout, south first); the others by `cpu` levels.
 * `cpuLevels` may give a level per seat ({seat: level}); `level` is the default.
 */
export function soloSeats(layout, people, level, cpuLevels = {}) {
  const seats = (LAYOUTS[layout] || LAYOUTS.singles).seats;
  const n = Math.max(1, Math.min(seats.length, people));
  // One person against CPUs in doubles sits south with a CPU partner north; more people fill
  // south, west, north, east in turn.
  const order = n === 1 ? ["south"] : seats.slice(0, n);
  const out = {};
  for (const seat of seats) out[seat] = order.includes(seat) ? "me" : cpuLevels[seat] || level;
  return out;
}

/** A party code as typed: upper case, only the code's alphabet (no 0/O, 1/I/l). */
export function normalizeCode(text) {
  return String(text || "").toUpperCase().replace(/[^23456789ABCDEFGHJKMNPQRSTUVWXYZ]/g, "").slice(0, 6);
}

/** `/join/CODE` or `/watch/CODE` in the address: {code, spectator}, or null. */
export function codeFromPath(path) {
  const m = /^\/(join|watch)\/([A-Za-z0-9]{4,12})\/?$/.exec(path || "");
  if (!m) return null;
  return { code: normalizeCode(m[2]), spectator: m[1] === "watch" };
}
