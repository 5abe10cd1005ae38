// The replay viewer (/replay/{table}): a finished game watched again, step by step, from
// /api/tables/{table}/replay.json (docs/replays.md). Each step is one action of the game's
// record with what a live message carries (report, trajectory, game snapshot), so the board is
// drawn and animated by board.js and anim.js and the shots worded by words.js as in live play.

import { fetchJson } from "../lib/api.js";
import { ShotAnimation } from "../views/anim.js";
import { popTwenty } from "../views/pop.js";
import { BoardView, markSvg, setScheme } from "../views/board.js";
import { fitBoard } from "../views/fit.js";
import { resultTable } from "../views/dialogs.js";
import { $, escapeHtml } from "../lib/dom.js";
import { play as playSound, setSoundEnabled } from "../lib/sound.js";
import { sideName } from "../lib/state.js";
import { loadPrefs } from "../lib/store.js";
import { describeShot, playerName, viewerOf, whose } from "../lib/words.js";
import { botMark } from "../views/ranked.js";

const params = new URLSearchParams(location.search);
const SPEED = Math.min(20, Math.max(0.1, Number.parseFloat(params.get("speed") || "1") || 1));
/** Seconds between two steps while playing (as the live CPU's pause). */
const GAP_S = 0.8;
const TABLE_RE = /^\/replay\/([a-f0-9]{32})\/?$/;

const R = {
  data: null, // the replay.json
  pos: 0, // steps shown: 0 is the start, k the game after step k
  playing: false,
  shotNumbers: [], // per step: [shot number in its round, shots in that round] (null: next_round)
};

const view = new BoardView($("replay-board"));
const anim = new ShotAnimation({
  speed: SPEED, paused: () => false, onFrame: () => draw(), onSound: (name) => playSound(name),
  onTwenty: (drop, n) => popTwenty(view, drop, n),
});

/** The game snapshot after `pos` steps. */
function snapshot(pos) {
  return pos === 0 ? R.data.start : R.data.steps[pos - 1].game;
}

function sideOf(game) {
  return (seat) => {
    const x = game.seats.find((y) => y.seat === seat);
    return x ? x.side : 0;
  };
}

/** Shot numbers within each round, for "Shot 3 of 16". */
function numberShots(steps) {
  const perRound = new Map();
  for (const s of steps) if (s.type !== "next_round") perRound.set(s.round, (perRound.get(s.round) || 0) + 1);
  const seen = new Map();
  return steps.map((s) => {
    if (s.type === "next_round") return null;
    seen.set(s.round, (seen.get(s.round) || 0) + 1);
    return [seen.get(s.round), perRound.get(s.round)];
  });
}

// ------------------------------------------------------------------ words

/** The player's one name (the replay's `names`, as the review and the game name them). */
function seatName(game, seat) {
  if (R.data.names) return playerName(R.data.names, seat);
  const x = game.seats.find((y) => y.seat === seat);
  return playerName(x ? { [seat]: x.name } : {}, seat);
}

/** The explanation of the step that led to `pos`, as live play words it. */
function stepWords(pos) {
  const d = R.data;
  if (pos === 0) return `The game begins: ${seatName(d.start, d.rounds[0].first)} shoots first.`;
  const step = d.steps[pos - 1];
  const game = step.game;
  const v = viewerOf(game, [], true); // a replay names everyone: nobody is "you"
  if (step.type === "next_round") return `Round ${step.round} begins: ${seatName(game, game.round_first)} shoots first.`;
  if (step.type === "timeout" && step.reason === "clock") {
    return `Time ran out: ${whose(v, step.seat)} disc goes to the ditch.`;
  }
  return describeShot(step.report, v, step.seat);
}

function positionText(pos) {
  const d = R.data;
  const total = d.steps.length;
  const rounds = d.rounds.length > 1 ? ` of ${d.rounds.length}` : "";
  if (pos === 0) return `Round 1${rounds} · before the first shot`;
  const step = d.steps[pos - 1];
  if (step.type === "next_round") return `Round ${step.round}${rounds} · before the first shot`;
  const [n, of] = R.shotNumbers[pos - 1];
  const name = seatName(step.game, step.seat);
  const by = step.by === "standin" ? `the CPU, playing for ${name}` : name;
  const what = step.type === "timeout" ? "ran out of time" : "shot";
  return `Round ${step.round}${rounds} · shot ${n} of ${of}: ${by} ${what}${pos === total ? " (the last of the game)" : ""}`;
}

function outcomeLine(game) {
  const o = game.outcome;
  if (!o) return "";
  if (o.winner !== null && o.winner !== undefined) {
    const many = game.seats.filter((x) => x.side === o.winner).length > 1;
    return `${sideName(game, o.winner)} ${many ? "win" : "wins"} the game.`;
  }
  return "The game is a draw.";
}

// ------------------------------------------------------------------ rendering

/** Whether a bot account played a seat of side `i` (the replay's `bots`: their BOT mark). */
function sideHasBot(game, i) {
  const bots = Array.isArray(R.data.bots) ? R.data.bots : [];
  return game.seats.some((x) => x.side === i && bots.includes(x.seat));
}

function renderScores(game) {
  const current = R.pos > 0 ? R.data.steps[R.pos - 1] : null;
  const shooter = current && current.seat ? game.seats.find((x) => x.seat === current.seat) : null;
  $("replay-scores").innerHTML = game.sides.map((side, i) => `
    <div class="replay-card${shooter && shooter.side === i ? " shot" : ""}" data-testid="replay-side-${i}">
      <span class="name">${markSvg(game, i, 18)}<span>${escapeHtml(sideName(game, i))}${botMark(sideHasBot(game, i))}</span></span>
      <span class="score" data-testid="replay-score-${i}">${side.score}</span>
      <span class="stats"><span>this round <b data-testid="replay-round-total-${i}">${side.round_total}</b></span> <span>20s <b>${side.twenties}</b></span></span>
    </div>`).join("");
}

function renderResult(game) {
  const box = $("replay-result");
  const h = game.history[game.history.length - 1];
  if (game.phase === "playing" || !h) {
    box.innerHTML = "";
    return;
  }
  const over = game.phase === "game_over";
  box.innerHTML = `<h2>Round ${h.number} result</h2>${resultTable(game, h)}${over ? `<p class="result-line" data-testid="replay-outcome">${escapeHtml(outcomeLine(game))}</p>` : ""}`;
}

function render() {
  const d = R.data;
  const game = snapshot(R.pos);
  renderScores(game);
  $("replay-position").textContent = positionText(R.pos);
  $("replay-words").textContent = stepWords(R.pos);
  renderResult(game);
  $("step-back").disabled = R.pos === 0;
  $("step-forward").disabled = R.pos >= d.steps.length;
  const pp = $("play-pause");
  pp.textContent = R.playing ? "Pause" : R.pos >= d.steps.length ? "Play again" : "Play";
  pp.setAttribute("aria-pressed", String(R.playing));
  $("round-select").value = String(game.round);
  draw();
}

function draw() {
  if (!R.data) return;
  const game = anim.running ? anim.game : snapshot(R.pos);
  view.setBoard(game.board);
  const scene = { game };
  if (anim.running) Object.assign(scene, anim.scene());
  else {
    scene.discs = game.discs;
    scene.scores = game.phase !== "playing";
  }
  view.draw(scene);
}

/** The board in the visible area (views/fit.js); on phones the replay's controls stay in view under it. */
function layout() {
  if (!R.data) return;
  const below = document.querySelector(".replay-controls").getBoundingClientRect().height + 16;
  if (fitBoard(view, { main: $("replay"), wrap: $("replay-board-wrap"), side: $("replay-side"), below })) draw();
}

// ------------------------------------------------------------------ moving through the game

function sleep(ms) {
  return new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
}

/** One step forward, the shot animated as live; resolves when it has been shown. */
async function forward() {
  anim.finish();
  const d = R.data;
  if (R.pos >= d.steps.length) return;
  const before = snapshot(R.pos);
  const step = d.steps[R.pos];
  R.pos += 1;
  if (step.type === "shot" && step.trajectory) {
    const shown = anim.play(before, step, sideOf(step.game));
    $("replay-position").textContent = positionText(R.pos);
    $("replay-words").textContent = "";
    await shown;
  }
  render();
}

function back() {
  stop();
  anim.finish();
  if (R.pos > 0) R.pos -= 1;
  render();
}

function jumpTo(pos) {
  stop();
  anim.finish();
  R.pos = Math.max(0, Math.min(pos, R.data.steps.length));
  render();
}

function stop() {
  R.playing = false;
}

async function playAll() {
  if (R.playing) return;
  if (R.pos >= R.data.steps.length) R.pos = 0;
  R.playing = true;
  render();
  while (R.playing && R.pos < R.data.steps.length) {
    await forward();
    if (!R.playing) break;
    await sleep((GAP_S * 1000) / SPEED);
  }
  R.playing = false;
  render();
}

function togglePlay() {
  if (R.playing) {
    stop();
    render();
  } else playAll();
}

async function copyLink() {
  const link = new URL(R.data.link, location.origin).href;
  try {
    await navigator.clipboard.writeText(link);
    $("copy-link").textContent = "Link copied";
  } catch {
    window.prompt("Copy this link:", link); // no clipboard (insecure origin): show it
  }
  setTimeout(() => { $("copy-link").textContent = "Copy link"; }, 2500);
}

// ------------------------------------------------------------------ start

function show(data) {
  // The server names each player once for all (a player who gave no name: the seat, "South").
  R.data = data;
  // The link names the game (a rematch at the table must not change what it shows).
  if (!params.get("game")) history.replaceState(null, "", `${data.link}${location.hash}`);
  R.shotNumbers = numberShots(data.steps);
  document.title = `Crokinole replay: ${data.start.sides.map((_, i) => sideName(data.start, i)).join(" v ")}`;
  const select = $("round-select");
  select.innerHTML = data.rounds.map((r) => `<option value="${r.number}">${r.number}</option>`).join("");
  const dl = $("download-record");
  dl.href = data.record;
  dl.hidden = false;
  // The game's review (every shot valued against the Expert's best), the same game named.
  $("review-link").href = String(data.link).replace(/^\/replay\//, "/review/");
  $("review-line").hidden = false;
  $("copy-link").disabled = false;
  $("replay-status").hidden = true;
  for (const id of ["replay-scores", "replay-board-wrap", "replay-side"]) $(id).hidden = false;
  $("replay").setAttribute("aria-busy", "false");
  if (data.end === "abandoned") {
    $("replay-status").textContent = "This game was abandoned before its end: the replay stops where it stopped.";
    $("replay-status").hidden = false;
  }
  layout();
  render();
}

function failed(text) {
  const status = $("replay-status");
  status.textContent = text;
  status.classList.add("bad");
  $("replay").setAttribute("aria-busy", "false");
}

async function load() {
  const m = TABLE_RE.exec(location.pathname);
  if (!m) {
    failed("This is not a replay link: a replay's address is /replay/ followed by the table's 32-character id.");
    return;
  }
  const game = params.get("game");
  const url = `/api/tables/${m[1]}/replay.json${game ? `?game=${encodeURIComponent(game)}` : ""}`;
  const r = await fetchJson(url);
  if (r.status === 0) {
    failed(r.error);
    return;
  }
  if (!r.ok || !Array.isArray(r.body.steps)) {
    failed(`No replay: ${r.ok ? `the server answered ${r.status}.` : r.reason}`);
    return;
  }
  show(r.body);
}

const prefs = loadPrefs();
setScheme(prefs.scheme || "classic");
setSoundEnabled(Boolean(prefs.sound));

$("step-forward").addEventListener("click", () => { stop(); forward(); });
$("step-back").addEventListener("click", back);
$("play-pause").addEventListener("click", togglePlay);
$("round-select").addEventListener("change", (e) => {
  const r = R.data.rounds.find((x) => String(x.number) === e.target.value);
  if (r) jumpTo(r.step);
  // Arrows on the list would choose another round: the keys go back to the replay.
  $("play-pause").focus({ preventScroll: true });
});
$("copy-link").addEventListener("click", copyLink);
document.addEventListener("keydown", (e) => {
  if (!R.data || e.altKey || e.ctrlKey || e.metaKey) return;
  const tag = e.target && e.target.tagName;
  if (tag === "SELECT" || tag === "INPUT" || tag === "TEXTAREA") return;
  if (e.key === " " || e.key === "Spacebar") {
    e.preventDefault();
    togglePlay();
  } else if (e.key === "ArrowRight") {
    e.preventDefault();
    stop();
    forward();
  } else if (e.key === "ArrowLeft") {
    e.preventDefault();
    back();
  }
});
window.addEventListener("resize", layout);
load();

// For the browser tests: where the replay stands.
window.crokinoleReplay = {
  get pos() { return R.pos; },
  get playing() { return R.playing; },
  get animating() { return anim.running; },
  game: () => (R.data ? snapshot(R.pos) : null),
};
