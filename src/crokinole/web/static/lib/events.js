// The event pages' words and figures (no drawing, no requests): an event's format in plain
// words, the tie-breaks' names and values, a pairing's state, the create form's settings, the
// bracket's layout, and a score sheet's rounds as an event result. The JSON read here is the
// public view of docs/events.md ("The public view"). Node-tested in tests/web/js/events.test.mjs.

/** The formats, as the create form offers them. */
export const FORMATS = [
  ["swiss", "Swiss"],
  ["round_robin", "Round robin"],
  ["pools", "Round robin in pools"],
  ["pools_playoffs", "Pools, then playoffs"],
  ["elimination", "Single elimination"],
];

export const TEAMS = [
  ["singles", "Singles"],
  ["rotating", "Doubles, partners rotating each round"],
  ["fixed", "Doubles of fixed teams"],
];

export const VENUES = [
  ["online", "Online"],
  ["hall", "On real boards"],
  ["both", "Both"],
];

/** Every tie-break the server knows (crokinole.events.model.TieBreak), in plain words. */
export const TIE_BREAKS = {
  match_points: "match points",
  twenties: "20s",
  head_to_head: "head-to-head",
  differential: "points differential",
  wins: "wins",
  game_points: "game points",
  buchholz: "opponents' match points",
  rating: "rating",
  bracket: "the round reached in the bracket",
};

/** Short column heads for the standings' table. */
export const TIE_BREAK_HEADS = {
  match_points: "Pts",
  twenties: "20s",
  head_to_head: "H2H",
  differential: "Diff",
  wins: "Wins",
  game_points: "Game pts",
  buchholz: "Opp. pts",
  rating: "Rating",
  bracket: "Reached",
};

export const DEFAULT_TIE_BREAKS = ["match_points", "twenties", "head_to_head", "differential"];

const plural = (n, one, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** A tie-break's name in words ("20s"); an unknown one as the server wrote it. */
export function tieBreakName(key) {
  return TIE_BREAKS[key] || String(key).replaceAll("_", " ");
}

/** What a match of the event is: "one game" or "best of 3 games". */
function matchWords(bestOf) {
  return bestOf > 1 ? `best of ${bestOf} games` : "one game a match";
}

/**
 * The event's format in plain words, from its settings.
 *
 * formatWords({format: "swiss", rounds: 5}) → "Swiss, 5 rounds"
 */
export function formatWords(settings) {
  const s = settings || {};
  const bestOf = Number(s.best_of) || 1;
  let words;
  switch (s.format) {
    case "swiss":
      words = `Swiss, ${plural(Number(s.rounds) || 0, "round")}`;
      break;
    case "round_robin":
      words = "Round robin: everyone plays everyone once";
      break;
    case "pools":
      words = `Round robin in ${plural(Number(s.pools) || 1, "pool")}`;
      break;
    case "pools_playoffs":
      words = `${plural(Number(s.pools) || 1, "pool")}, then the top ${Number(s.playoff_size) || 0} of each into playoffs (${matchWords(bestOf)})`;
      break;
    case "elimination":
      words = `Single elimination (${matchWords(bestOf)})`;
      break;
    default:
      words = String(s.format || "An event");
  }
  return words;
}

/** Singles, rotating doubles or fixed teams, in words. */
export function teamsWords(teams) {
  return (TEAMS.find(([k]) => k === teams) || TEAMS[0])[1];
}

/**
 * An event's day ("2026-12-04", as the create form's date field gives it) in the reader's own
 * words ("Dec 4, 2026"; `long`: "Fri, December 4, 2026"), read as that day wherever the reader
 * is (noon local, so no time zone moves it); a text that is no such day is given back as it is.
 */
export function eventDay(iso, long = false) {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(String(iso || ""));
  if (!m) return String(iso || "");
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 12);
  const how = long ? { weekday: "short", year: "numeric", month: "long", day: "numeric" } : { year: "numeric", month: "short", day: "numeric" };
  return d.toLocaleDateString(undefined, how);
}

/** Where the games are played, in words. */
export function venueWords(venue) {
  return {
    online: "played online",
    hall: "played on real boards",
    both: "played online and on real boards",
  }[venue] || "played online";
}

/** The game's rules in a few words ("8 discs each, four rounds, contact needed"). */
export function rulesWords(rules) {
  if (!rules) return "tournament rules";
  const parts = [];
  if (rules.layout === "doubles") parts.push(`${rules.discs_per_side} discs a team`);
  else parts.push(`${rules.discs_per_side} discs each`);
  parts.push(rules.scoring === "to_100" ? `first to ${rules.target || 100}` : `${rules.rounds || 4} rounds`);
  parts.push(rules.required_contact ? "contact needed" : "no contact rule");
  return parts.join(", ");
}

/** The whole line under an event's name: "Swiss, 4 rounds · Singles · played online". */
export function eventSummary(settings) {
  const s = settings || {};
  return [formatWords(s), teamsWords(s.teams), venueWords(s.venue)].join(" · ");
}

/** The event's status in words. */
export function statusWords(view) {
  if (!view) return "";
  if (view.status === "finished") return "Finished";
  if (view.paused) return "Paused";
  if (view.status === "running") {
    const round = currentRound(view);
    return round ? `Running: ${round.stage || `round ${round.number}`}` : "Running";
  }
  return "Open: joining and check-in";
}

/** The round shown first: the last one paired. */
export function currentRound(view) {
  const rounds = (view && view.rounds) || [];
  return rounds.length ? rounds[rounds.length - 1] : null;
}

/** A pairing's state in words, for the people at its table. */
export function pairingStateWords(pairing, names = pairing.names || []) {
  switch (pairing.state) {
    case "waiting":
      return "Not started";
    case "playing":
      return "Playing";
    case "reported": {
      const by = names[pairing.reported_by];
      return by ? `Result entered by ${by}'s side: waiting for a confirmation` : "Result entered: waiting for a confirmation";
    }
    case "confirmed":
      return "Finished";
    case "bye":
      return "Bye";
    default:
      return String(pairing.state || "");
  }
}

/** Each game's score of a result, in words ("Game 1: 6–2"), from the round totals. */
export function resultWords(pairing) {
  const games = (pairing.result && pairing.result.games) || [];
  return games.map((g, k) => {
    if (g.forfeit !== null && g.forfeit !== undefined) return `Game ${k + 1}: forfeit by ${pairing.names[g.forfeit]}`;
    const points = gamePoints(g.rounds || []);
    return `${games.length > 1 ? `Game ${k + 1}: ` : ""}${points[0]}–${points[1]}`;
  });
}

/** R2 game points of rounds: 2 for a round won, 1 each for a tied round. */
export function gamePoints(rounds) {
  const p = [0, 0];
  for (const r of rounds) {
    const [a, b] = r.totals;
    if (a > b) p[0] += 2;
    else if (b > a) p[1] += 2;
    else {
      p[0] += 1;
      p[1] += 1;
    }
  }
  return p;
}

/**
 * Whether a pairing is played online (at a table) or on a real board: the venue decides, and
 * in an event of both, a pairing whose entrants are all online plays online.
 */
export function pairingPlace(view, pairing) {
  const venue = view && view.settings ? view.settings.venue : "online";
  if (pairing.tables && pairing.tables.length) return "online";
  if (venue === "online") return "online";
  if (venue === "hall") return "hall";
  const byId = new Map(((view && view.entrants) || []).map((e) => [e.id, e]));
  const ids = (pairing.sides || []).flat();
  return ids.length && ids.every((id) => byId.get(id) && byId.get(id).online) ? "online" : "hall";
}

/** The side (0 or 1) of a pairing that an entrant plays on, or null. */
export function sideOf(pairing, entrant) {
  if (!entrant) return null;
  const k = (pairing.sides || []).findIndex((side) => side.includes(entrant));
  return k < 0 ? null : k;
}

/** A standing's tie-break value as shown: match points as they are, the differential signed. */
export function tieBreakValue(key, value) {
  if (value === null || value === undefined) return "–";
  const n = Number(value);
  if (!Number.isFinite(n)) return String(value);
  const text = Number.isInteger(n) ? String(n) : n.toFixed(n * 2 === Math.round(n * 2) ? 1 : 2);
  if (key === "differential" && n > 0) return `+${text}`;
  if (n < 0) return `−${text.slice(1)}`;
  return text;
}

/** The round a bracket value stands for: "Champion", "Final", "Semi-final" … ("–" outside it). */
export function reachedWords(bracket, value) {
  const rounds = (bracket && bracket.rounds) || [];
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || !rounds.length) return "–";
  if (n > rounds.length) return "Champion";
  return rounds[n - 1].name || `Round ${n}`;
}

/** The caption of a standing: which tie-break set it apart ("decided by 20s"). */
export function decidedCaption(standing) {
  if (!standing) return "";
  if (standing.decided_by) return `decided by ${tieBreakName(standing.decided_by)}`;
  return standing.played > 0 ? "level on every tie-break" : "";
}

/** The same at length: the tie-breaks it was level on first ("level on match points; decided by 20s"). */
export function decidedWords(standing, tieBreaks = DEFAULT_TIE_BREAKS) {
  if (!standing || !standing.decided_by) return decidedCaption(standing);
  const k = tieBreaks.indexOf(standing.decided_by);
  const before = k > 0 ? `level on ${tieBreaks.slice(0, k).map(tieBreakName).join(", ")}; ` : "";
  return `${before}${decidedCaption(standing)}`;
}

/** Move item `index` of a list by `delta` places (the tie-break order); a new list. */
export function moveItem(list, index, delta) {
  const to = index + delta;
  if (index < 0 || index >= list.length || to < 0 || to >= list.length) return list.slice();
  const out = list.slice();
  const [item] = out.splice(index, 1);
  out.splice(to, 0, item);
  return out;
}

/**
 * The settings JSON (POST /api/events `{settings}`) from the create form's choices: the
 * format's own numbers only where they count, tournament rules unless the home rules are
 * asked for, and doubles rules for a doubles event.
 */
export function settingsFrom(choices) {
  const c = choices || {};
  const teams = c.teams || "singles";
  const format = c.format || "swiss";
  const doubles = teams !== "singles";
  const settings = {
    name: String(c.name || "").trim(),
    date: c.date || "",
    format,
    teams,
    venue: c.venue || "online",
    tie_breaks: (c.tie_breaks && c.tie_breaks.length ? c.tie_breaks : DEFAULT_TIE_BREAKS).slice(),
    rated: Boolean(c.rated),
    rules: {
      layout: doubles ? "doubles" : "singles",
      discs_per_side: doubles ? 12 : Number(c.discs) || 8,
      scoring: "four_rounds",
      rounds: 4,
      target: null,
      tie: c.tie || "draw",
      required_contact: c.contact !== false,
      turn_time: null,
    },
  };
  if (format === "swiss") settings.rounds = Number(c.rounds) || 4;
  if (format === "pools" || format === "pools_playoffs") settings.pools = Number(c.pools) || 2;
  if (format === "pools_playoffs") settings.playoff_size = Number(c.playoff_size) || 2;
  if (format === "pools_playoffs" || format === "elimination") settings.best_of = Number(c.best_of) || (format === "pools_playoffs" ? 3 : 1);
  if (c.turn_seconds !== undefined) settings.turn_seconds = c.turn_seconds === "" || c.turn_seconds === null ? null : Number(c.turn_seconds);
  return settings;
}

/**
 * Where the bracket's boxes and lines go (SVG units): rounds as columns, each match a box of
 * two lines, a match centred between the two it follows from, and a line from each of those
 * to it. `bracket` is the view's {size, rounds: [{name, matches: [{slot, names, winner, sides, bye}]}]}.
 */
export function bracketLayout(bracket, { column = 190, gap = 36, box = 56, space = 16, top = 28 } = {}) {
  const rounds = (bracket && bracket.rounds) || [];
  const columns = [];
  const lines = [];
  const pitch = box + space;
  rounds.forEach((round, r) => {
    const x = r * (column + gap);
    const matches = (round.matches || []).map((m, k) => {
      let y;
      if (r === 0) y = top + k * pitch;
      else {
        const feeders = columns[r - 1].matches;
        const a = feeders[2 * k];
        const b = feeders[2 * k + 1];
        y = a && b ? (a.y + b.y) / 2 : a ? a.y : top + k * pitch * 2 ** r;
      }
      return { ...m, x, y, width: column, height: box };
    });
    columns.push({ name: round.name, x, matches });
    if (r > 0) {
      matches.forEach((m, k) => {
        for (const f of [columns[r - 1].matches[2 * k], columns[r - 1].matches[2 * k + 1]]) {
          if (!f) continue;
          const x1 = f.x + column;
          const y1 = f.y + box / 2;
          const mid = x1 + gap / 2;
          lines.push({ from: f.slot, to: m.slot, d: `M${x1} ${y1}H${mid}V${m.y + box / 2}H${m.x}` });
        }
      });
    }
  });
  const first = columns[0] ? columns[0].matches.length : 0;
  return {
    width: Math.max(0, columns.length * column + (columns.length - 1) * gap),
    height: top + Math.max(1, first) * pitch,
    columns,
    lines,
  };
}

/** A score sheet's side totals → an event result: {games: [{rounds: [{totals, twenties}]}]}. */
export function sheetResult(sheet) {
  const games = [];
  for (const r of (sheet && sheet.rounds) || []) {
    const g = (r.game || 1) - 1;
    while (games.length <= g) games.push({ rounds: [] });
    const twenties = r.counts ? r.counts.map((c) => c[0]) : [0, 0];
    games[g].rounds.push({ totals: [r.totals[0], r.totals[1]], twenties: [twenties[0], twenties[1]] });
  }
  return { games };
}

/** The event's id from a page's path (/events/{id}), or the join code from /events/join/{code}. */
export function eventFromPath(path) {
  const join = /^\/events\/join\/([A-Za-z0-9]{4,12})\/?$/.exec(path || "");
  if (join) return { code: join[1].toUpperCase() };
  const m = /^\/events\/([A-Za-z0-9_-]{1,64})\/?$/.exec(path || "");
  return m ? { id: m[1] } : null;
}

/** The join link of an event, for people to type or scan. */
export function joinLink(origin, code) {
  return `${origin}/events/join/${code}`;
}

/** What the organiser may do next, from the view: {pair, start, finish} as round numbers or booleans. */
export function nextSteps(view) {
  const round = currentRound(view);
  const finished = view.status === "finished";
  const waiting = round && !round.started;
  const over = !round || round.over;
  return {
    pair: !finished && over && !view.complete,
    repair: !finished && Boolean(waiting) ? round.number : null,
    start: !finished && Boolean(waiting) ? round.number : null,
    finish: !finished,
  };
}

/**
 * A round's pairings with two entrants swapped (the organiser's own re-pairing before the
 * start): each takes the other's place, side and board; the rest stays. The JSON PUT
 * /api/events/{id}/rounds/{n} takes ({round, table, sides, first, stage, best_of, slot}).
 * Unknown or equal ids give the pairings as they were.
 */
export function swapEntrants(pairings, a, b) {
  const plain = (p) => ({
    round: p.round, table: p.table, sides: p.sides.map((s) => s.slice()), first: p.first,
    stage: p.stage, best_of: p.best_of, slot: p.slot,
  });
  const out = (pairings || []).map(plain);
  if (!a || !b || a === b) return out;
  const where = (id) => {
    for (const [k, p] of out.entries()) {
      for (const side of [0, 1]) {
        const i = p.sides[side].indexOf(id);
        if (i >= 0) return [k, side, i];
      }
    }
    return null;
  };
  const wa = where(a);
  const wb = where(b);
  if (!wa || !wb) return out;
  out[wa[0]].sides[wa[1]][wa[2]] = b;
  out[wb[0]].sides[wb[1]][wb[2]] = a;
  return out;
}

/** The ids of the view's entrants a program plays for (a bot account): their names get BOT. */
export function botEntrants(view) {
  return new Set(((view && view.entrants) || []).filter((e) => e.bot === true).map((e) => e.id));
}

/** Whether a side (an entrant id, or a list of them for rotating doubles) has a bot in it. */
export function sideHasBot(bots, side) {
  const ids = Array.isArray(side) ? side : side ? [side] : [];
  return ids.some((id) => bots.has(id));
}
