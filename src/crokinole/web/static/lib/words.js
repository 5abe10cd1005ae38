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

// ------------------------------------------------------------------ names

/** A seat's title, as the server names a player who gave no name: "South". */
export function seatTitle(seat) {
  return SEAT_WORD[seat] || String(seat);
}

/**
 * The one name of a seat's player, from a `names` object ({"south": "Ann", "north": "CPU
 * Easy"}: the replay's and the review's `names`): the name they chose, or their account's
 * username, or the seat's title ("South") when they had none ("You" is no name to others).
 */
export function playerName(names, seat) {
  const given = names && typeof names[seat] === "string" ? names[seat].trim() : "";
  return given && given.toLowerCase() !== "you" ? given : seatTitle(seat);
}

/**
 * A viewer (as viewerOf) from a `names` object: `you` the seats of the person reading, who is
 * "you" only when they held one seat (on a shared device everyone is named).
 */
export function namesViewer(names, you = []) {
  const seats = Object.keys(names || {}).map((seat) => ({ seat, name: playerName(names, seat) }));
  for (const seat of you || []) if (!seats.some((s) => s.seat === seat)) seats.push({ seat, name: seatTitle(seat) });
  return viewerOf({ seats }, (you || []).length === 1 ? you : [], false);
}

// ------------------------------------------------------------------ a game's review in words

/** How hard a shot was played, in words (28% reaches the 20 from the line): soft, firm, hard. */
export function powerFeel(power) {
  const p = finite(power);
  if (p <= 35) return "soft";
  if (p <= 60) return "firm";
  return "hard";
}

/**
 * A shot in a few words, as the hints word place and aim: "a soft straight shot", "a hard shot
 * aimed 3° left", "a firm shot placed 20° left, aimed 2° right" (the place on the shooting line
 * when it is not the middle).
 */
export function shotStyle(shot) {
  const s = shot || {};
  const feel = powerFeel(s.power);
  const dir = directionWords(s.direction);
  const placed = Math.round(finite(s.position)) === 0 ? "" : `placed ${placeWords(s.position)}`;
  if (dir === "straight") return `a ${feel} straight shot${placed ? ` ${placed}` : ""}`;
  return `a ${feel} shot ${placed ? `${placed}, ` : ""}aimed ${dir}`;
}

/** "15", "15 and 10", "15, 10 and 5": zones (0: a disc out on the line) in words. */
function zoneList(zones) {
  const words = zones.map((z) => (z > 0 ? String(z) : "disc on the line"));
  if (words.length <= 1) return words.join("");
  return `${words.slice(0, -1).join(", ")} and ${words[words.length - 1]}`;
}

/** "their 15" / "both their 15s": the discs taken out, owned by `owner` ("their", "your"). */
function discsOf(owner, zones) {
  if (zones.length === 2 && zones[0] === zones[1] && zones[0] > 0) return `both ${owner} ${zones[0]}s`;
  return `${owner} ${zoneList(zones)}`;
}

const FOUL_WORDS = {
  no_contact: "touched no opposing disc (a foul)",
  not_in_fifteen: "left no disc in the 15 on an open board (a foul)",
  timeout: "ran out of time (a foul)",
};

/**
 * What a shot did (a review's `played_effect`), as the end of "you played a soft shot ...":
 * "that dropped into the 20", "that took out their 15 and stayed in the 10", "that missed and
 * went into the ditch", "that touched no opposing disc (a foul)".
 * @param {object} e  {lands, foul, hit, taken, lost}
 * @param {object} o  {theirs: owner word of the opposing discs ("their", "your"), own: the
 *                    shooter's ("your", "their")}
 */
export function effectWords(e, o = {}) {
  if (!e || typeof e !== "object") return "";
  const theirs = o.theirs || "their";
  const own = o.own || "their own";
  const taken = Array.isArray(e.taken) ? e.taken : [];
  const lost = Array.isArray(e.lost) ? e.lost : [];
  const lands = finite(e.lands);
  let text;
  if (e.foul) {
    text = `that ${FOUL_WORDS[e.foul] || "was a foul"}`;
  } else if (taken.length) {
    const rest = lands === 20 ? " and dropped into the 20" : lands > 0 ? ` and stayed in the ${lands}` : " and went into the ditch";
    text = `that took out ${discsOf(theirs, taken)}${rest}`;
  } else if (lands === 20) {
    text = "that dropped into the 20";
  } else if (lands > 0) {
    text = e.hit ? `that hit ${theirs} disc and stopped in the ${lands}` : `that stopped in the ${lands}`;
  } else {
    text = e.hit ? `that hit ${theirs} disc but went into the ditch` : "that missed and went into the ditch";
  }
  if (lost.length && !e.foul) text += `, but knocked out ${discsOf(own, lost)}`;
  return text;
}

/**
 * What the best shot does (a review's `best_effect`), as a thing: "a takeout of their 15", "a
 * 20", "a shot to the 15", "a shot into the ditch".
 */
export function bestWords(e, o = {}) {
  if (!e || typeof e !== "object") return "another shot";
  const theirs = o.theirs || "their";
  const taken = Array.isArray(e.taken) ? e.taken : [];
  const lands = finite(e.lands);
  if (e.foul) return "a shot the rules count as a foul";
  if (taken.length) return `a takeout of ${discsOf(theirs, taken)}${lands === 20 ? " that drops into the 20" : ""}`;
  if (lands === 20) return "a 20";
  if (lands > 0) return `a shot to the ${lands}`;
  return "a shot into the ditch";
}

/** What the best gained over the shot played: "about 1.8 points more and 12% more chance to win the round". */
export function gainWords(lossMargin, lossWin) {
  const m = finite(lossMargin);
  const w = Math.round(finite(lossWin) * 100);
  // One decimal for a few points ("1.8"), whole points beyond ten ("23").
  const size = Math.abs(m) >= 10 ? String(Math.round(Math.abs(m))) : Math.abs(m).toFixed(1);
  const pts = `${size} point${size === "1.0" ? "" : "s"}`;
  const chanceMore = w >= 1 ? `${w}% more chance to win the round` : "";
  if (m >= 0.05) return chanceMore ? `about ${pts} more and ${chanceMore}` : `about ${pts} more`;
  if (m <= -0.05 && chanceMore) return `${chanceMore}, for about ${pts} less`;
  return chanceMore || "about as much";
}

/** A number in words for counts up to ten ("three"), as digits beyond. */
export function numberWord(n) {
  const words = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"];
  return words[n] || String(n);
}

/**
 * One costly shot of a review in a sentence: "Round 2, shot 5: you played a soft straight shot
 * that missed and went into the ditch; the best was a takeout of their 15 (a firm shot aimed 2° left),
 * about 1.8 points more and 12% more chance to win the round."
 * @param {object} s  a review's shot (round, turn, seat, shot, best, loss_margin, loss_win,
 *                    played_effect, best_effect)
 * @param {object} v  the viewer (namesViewer)
 * @param {function} sideOf  a seat's side (doubles: a partner's takeouts are of "their" discs,
 *                    not "yours"); by default every seat is a side of its own
 */
export function costSentence(s, v, sideOf = (seat) => seat) {
  const mine = isYou(v, s.seat);
  const partner = !mine && v.you.some((seat) => sideOf(seat) === sideOf(s.seat));
  const theirs = mine || partner ? "their" : v.you.length ? "your" : "the opposing";
  const owners = { theirs, own: mine ? "your own" : "their own" };
  const played = `${shotStyle(s.shot)}${s.played_effect ? ` ${effectWords(s.played_effect, owners)}` : ""}`;
  const best = s.best || {};
  const bestStyle = best.shot ? ` (${shotStyle(best.shot)})` : "";
  return `Round ${s.round}, shot ${s.turn}: ${mine ? "you" : who(v, s.seat)} played ${played}; `
    + `the best was ${bestWords(s.best_effect, owners)}${bestStyle}, ${gainWords(s.loss_margin, s.loss_win)}.`;
}

/** A shot costs something worth telling from this loss of round-win chance or of points. */
export const COSTLY_WIN = 0.01;
export const COSTLY_POINTS = 0.5;

/** The costliest shots of `seat` in a review (at most `n`, the costliest first: round-win chance, then points). */
export function costliest(shots, seat, n = 3) {
  return (shots || [])
    .filter((s) => s.seat === seat && (finite(s.loss_win) >= COSTLY_WIN || finite(s.loss_margin) >= COSTLY_POINTS))
    .sort((a, b) => finite(b.loss_win) - finite(a.loss_win) || finite(b.loss_margin) - finite(a.loss_margin) || a.index - b.index)
    .slice(0, n);
}

/** "Your three costliest shots", "CPU Easy's costliest shot". */
export function costliestTitle(v, seat, n) {
  const owner = isYou(v, seat) ? "Your" : whose(v, seat); // a name as its player wrote it
  const count = n > 1 ? `${numberWord(n)} ` : "";
  return `${owner} ${count}costliest shot${n === 1 ? "" : "s"}`;
}

const GRADE_PLURAL = { good: ["good shot", "good shots"], inaccuracy: ["inaccuracy", "inaccuracies"], mistake: ["mistake", "mistakes"], blunder: ["blunder", "blunders"] };

/** A seat's grades in words: "8 shots: 5 good, 2 inaccuracies and 1 mistake." */
export function gradeWords(grades, shots) {
  const parts = ["good", "inaccuracy", "mistake", "blunder"]
    .filter((g) => finite(grades && grades[g]) > 0)
    .map((g) => {
      const k = finite(grades[g]);
      return g === "good" ? `${k} good` : `${k} ${GRADE_PLURAL[g][k === 1 ? 0 : 1]}`;
    });
  const list = parts.length <= 1 ? parts.join("") : `${parts.slice(0, -1).join(", ")} and ${parts[parts.length - 1]}`;
  const n = finite(shots);
  return n ? `${n} shot${n === 1 ? "" : "s"}: ${list}.` : "No shots to review.";
}
