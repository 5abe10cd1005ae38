// Shot reports in words, for the person looking at the screen (docs/protocol.md, "report").
// The server sends what happened (which disc, whose, where it went and why); this module
// words it once: "Your disc went into the 20.", "CPU Easy's disc in the 10 went into the ditch."
// Pure functions: no DOM, so they are tested on their own.

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
