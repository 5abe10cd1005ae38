// Shot reports in words, for the person looking at the screen (docs/protocol.md, "report").
// The server sends what happened (which disc, whose, where it went and why); this module
// words it once: "Your disc went into the 20.", "CPU Easy's disc in the 10 went into the ditch."
// Pure functions: no DOM, so they are tested on their own.
// The Expert's hints in words are here too: "Best: straight, 29% power — a sure 20 (68% to win
// the round)" (docs/protocol.md, "hints"), each figure's exact value kept by hintNumbers.

import { zoneOf } from "./geometry.js";

const SEAT_WORD = { south: "South", west: "West", north: "North", east: "East" };

/**
 * Who is who for the viewer.
 * @param {object} game  snapshot (its `seats` carry the players' names)
 * @param {string[]} you seats this screen controls
 * @param {boolean} local two players share the screen: everyone is named, nobody is "you"
 */
export function viewerOf(game, you, local) {
  return { game, you: local ? [] : you || [] };
}

function nameOf(v, seat) {
  const info = v.game && v.game.seats ? v.game.seats.find((s) => s.seat === seat) : null;
  let name = info && typeof info.name === "string" ? info.name.trim() : "";
  // "You" is the server's name for the device's own seat: to anyone else it is the seat.
  if (name.toLowerCase() === "you") name = "";
  return name || SEAT_WORD[seat] || String(seat);
}

function isYou(v, seat) {
  return v.you.includes(seat);
}

/** "You" / "CPU Easy" (subject). */
export function who(v, seat) {
  return isYou(v, seat) ? "You" : nameOf(v, seat);
}

/** "your" / "CPU Easy's" (possessive). */
export function whose(v, seat) {
  if (isYou(v, seat)) return "your";
  const name = nameOf(v, seat);
  return name.endsWith("s") ? `${name}'` : `${name}'s`;
}

/** "Your disc" from "your disc": a phrase made the start of a sentence. */
export function cap(s) {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function zoneWords(zone) {
  return `the ${zone}`;
}

/** "your disc", "CPU Easy's disc in the 10", "your other disc in the 5" (the shooter's own). */
function discWords(v, d, shooter) {
  const other = !d.shot && d.owner === shooter ? "other " : "";
  const base = `${whose(v, d.owner)} ${other}disc`;
  return d.from_zone ? `${base} in ${zoneWords(d.from_zone)}` : base;
}

// Why a disc went to the ditch. Only the shooting line words the shot disc and a disc it
// moved differently: the one stopped there, the other was knocked there.
const REASON = {
  off_board: "went into the ditch",
  on_line: "stopped on the shooting line and is out",
  touched_beyond_line: "touched a disc beyond the shooting line and is out",
  timeout: "went to the ditch: time ran out",
  foul: "goes to the ditch",
};
const KNOCKED_ONTO_LINE = "was knocked onto the shooting line and is out";

/** What happened to one disc, as a clause after its name. */
function fate(d) {
  if (d.result === "hole") {
    return d.cancelled_twenty ? "dropped into the 20, but the foul cancels it: it goes to the ditch" : "went into the 20";
  }
  if (d.result === "ditch") {
    return d.reason === "on_line" && !d.shot ? KNOCKED_ONTO_LINE : REASON[d.reason] || REASON.off_board;
  }
  if (d.zone === null || d.zone === undefined) return "stopped on the board";
  if (d.shot) return `stopped in ${zoneWords(d.zone)}`;
  if (d.from_zone && d.from_zone !== d.zone) return `was knocked into ${zoneWords(d.zone)}`;
  return null; // moved within its zone: not worth a sentence
}

function count(n, word) {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function foulSentence(v, r, shooter) {
  const yours = r.discs.filter((d) => !d.shot && d.owner === shooter && d.result !== "board" && (d.reason === "foul" || d.cancelled_twenty));
  const mine = isYou(v, shooter);
  const shotDisc = r.discs.find((d) => d.shot);
  let disc = mine ? "your disc" : `${whose(v, shooter)} disc`;
  if (shotDisc && shotDisc.cancelled_twenty) disc += " (its drop into the 20 does not count)";
  const moved = yours.length ? ` and ${count(yours.length, "disc")} of ${mine ? "yours" : "theirs"} it moved` : "";
  const go = yours.length ? "go" : "goes";
  if (r.foul === "no_contact") {
    return `Foul: no opposing disc was touched — ${disc}${moved} ${go} to the ditch.`;
  }
  if (r.foul === "not_in_fifteen") {
    return `Foul: on an open board a disc must stop in the 15 circle — ${disc}${moved} ${go} to the ditch.`;
  }
  if (r.foul === "timeout") {
    return `Time ran out: ${disc}${moved} ${go} to the ditch.`;
  }
  return `Foul: ${disc}${moved} ${go} to the ditch.`;
}

/**
 * A shot report in sentences for the viewer.
 * @param {object} r      the `report` of a `shot` message
 * @param {object} v      from viewerOf()
 * @param {string} shooter seat that shot (the message's `seat`)
 * @returns {string}
 */
/**
 * How a logged shot's foul reads to this viewer (issue 22: the opponent's fouls in a neutral
 * tone, yours in red): "mine" when one of the viewer's own seats (`yourSeats`) fouled, "theirs"
 * when another seat did, null when the shot was valid (or is not a shot).
 */
export function foulTone(entry, yourSeats) {
  if (!entry || !entry.report || entry.report.valid !== false) return null;
  return (yourSeats || []).includes(entry.seat) ? "mine" : "theirs";
}

export function describeShot(r, v, shooter) {
  if (!r || typeof r !== "object") return "Shot played.";
  const seat = r.seat || shooter;
  const discs = Array.isArray(r.discs) ? r.discs : [];
  if (r.unplayed) {
    const subject = who(v, seat);
    return `${subject} had no room on the shooting line: ${isYou(v, seat) ? "your" : "the"} disc goes to the ditch unplayed.`;
  }
  const parts = [];
  let toldOpponent = false;
  const fouled = r.valid === false;
  if (fouled) parts.push(foulSentence(v, { ...r, discs }, seat));
  for (const d of discs) {
    // A foul's own discs are told in the foul sentence; a cancelled 20 is told there too.
    if (fouled && d.owner === seat && (d.shot || d.reason === "foul" || d.cancelled_twenty)) {
      if (d.cancelled_twenty && !d.shot) parts.push(`${cap(discWords(v, d, seat))} dropped into the 20, but the foul cancels it.`);
      continue;
    }
    const what = fate(d);
    if (!what) continue;
    parts.push(`${cap(discWords(v, d, seat))} ${what}.`);
    if (d.owner !== seat) toldOpponent = true;
  }
  if (!fouled && Array.isArray(r.hit) && r.hit.length && !toldOpponent) {
    parts.push(r.hit.length === 1 ? "It hit an opposing disc." : `It hit ${r.hit.length} opposing discs.`);
  }
  return parts.join(" ") || "Shot played.";
}

// ------------------------------------------------------------------ hints in words

const RANK_WORD = ["Best", "Second", "Third"];
/** A sure thing, in words, from this chance up (a 20 "sure" at 95%). */
export const SURE = 0.95;
/** "Likely" from this chance up; below it a 20 is not what a hint is told by. */
export const LIKELY = 0.5;

function finite(v, fallback = 0) {
  const x = Number(v);
  return Number.isFinite(x) ? x : fallback;
}

/** A chance (0..1) in whole percent: "64%". */
export function chance(v) {
  return `${Math.round(Math.max(0, Math.min(1, finite(v))) * 100)}%`;
}

/** "+12", "−3", "0": points in whole numbers, signed (halves away from 0 on both sides). */
export function signed(v) {
  const x = finite(v);
  const r = Math.sign(x) * Math.round(Math.abs(x));
  if (r > 0) return `+${r}`;
  if (r < 0) return `\u2212${-r}`;
  return "0";
}

/** An aim in words (R3: 0 at the centre, positive to the shooter's right): "straight", "3° left". */
export function directionWords(direction) {
  const d = Math.round(finite(direction));
  if (d === 0) return "straight";
  return `${Math.abs(d)}° ${d > 0 ? "right" : "left"}`;
}

/** Where on the shooting line (R3: 0 the middle of the quarter, positive to the right): "20° left". */
export function placeWords(position) {
  const p = Math.round(finite(position));
  if (p === 0) return "the middle";
  return `${Math.abs(p)}° ${p > 0 ? "right" : "left"}`;
}

/** Power as the shooter sets it: "29% power". */
export function powerWords(power) {
  return `${Math.round(Math.max(0, Math.min(100, finite(power))))}% power`;
}

function discs(n, whose) {
  return n === 1 ? `their disc` : `${n} of ${whose} discs`;
}

/**
 * What a hint's shot does, in words: "a sure 20" (a 20 at least 95% of the time), "likely a 20
 * (70%)", "takes out their disc", "stops in the 15" (played exactly), or the margin it leaves
 * ("+15 expected"). The zone is the stop's (`stop.zone`), or else judged on `board` when given.
 */
export function outcomeWords(h, board = null) {
  const twenty = finite(h.twenty);
  if (twenty >= SURE) return "a sure 20";
  if (twenty >= LIKELY) return `likely a 20 (${chance(twenty)})`;
  const stop = h.stop && typeof h.stop === "object" ? h.stop : null;
  const out = stop ? Math.max(0, Math.round(finite(stop.theirs_out))) : 0;
  if (out > 0) return `takes out ${discs(out, "their")}`;
  if (stop && stop.status === "on_board") {
    // The server names the zone (R6); an older answer without it is judged here from the board.
    let zone = Number.isFinite(stop.zone) ? stop.zone : null;
    if (zone === null && board) zone = zoneOf(board, finite(stop.x), finite(stop.y));
    if (zone > 0 && zone < 20) return `stops in the ${zone}`;
  }
  return `${signed(h.margin)} expected`;
}

/** The short words of a hint by its line on the board: "1 · a sure 20". */
export function hintTag(h, board = null) {
  return `${h.rank} \u00b7 ${outcomeWords(h, board)}`;
}

/**
 * A hint in plain words for the list: "Best: straight, 29% power — a sure 20 (68% to win the
 * round)"; off the middle of the line it says where to place ("place 20° left, aim 3° left"),
 * and a shot that is often a foul says so.
 */
export function hintSentence(h, board = null) {
  const s = h.shot || {};
  const rank = finite(h.rank, 1);
  const name = RANK_WORD[rank - 1] || `Hint ${rank}`;
  const aim = Math.round(finite(s.position)) === 0
    ? directionWords(s.direction)
    : `place ${placeWords(s.position)}, aim ${directionWords(s.direction)}`;
  const valid = finite(h.valid, 1);
  const foul = valid < 0.9 ? `, a foul ${chance(1 - valid)} of the time` : "";
  return `${name}: ${aim}, ${powerWords(s.power)} \u2014 `
    + `${outcomeWords(h, board)}${foul} (${chance(h.round_win)} to win the round)`;
}

/** A hint's exact figures, for whoever wants them: "Place 0.0°, aim 0.3°, power 29.1% · margin +20 · …". */
export function hintNumbers(h) {
  const s = h.shot || {};
  const deg = (v) => `${(Math.round(finite(v) * 10) / 10).toFixed(1).replace("-", "\u2212")}°`;
  const pct = (v) => `${(Math.round(finite(v) * 10) / 10).toFixed(1)}%`;
  const parts = [
    `Place ${deg(s.position)}, aim ${deg(s.direction)}, power ${pct(s.power)}`,
    `margin ${signed(h.margin)} pts`,
    `round ${chance(h.round_win)}`,
  ];
  if (Number.isFinite(Number(h.twenty))) parts.push(`a 20 ${chance(h.twenty)}`);
  if (Number.isFinite(Number(h.valid))) parts.push(`valid ${chance(h.valid)}`);
  return parts.join(" \u00b7 ");
}
