// The crokinole browser client: draws what the server sends, sends what the player intends.
// Protocol: docs/protocol.md. No build step, no dependencies.

import { framesAt } from "./anim.js";
import { BoardView, markSvg, setScheme } from "./board.js";
import {
  SEAT_ANGLE, aimVector, clamp, compass, directionOf, placement, placementProblem, positionOf, round, zoneOf,
} from "./geometry.js";
import { Connection } from "./net.js";
import { play, setSoundEnabled } from "./sound.js";
import { deviceToken, loadGame, loadPrefs, saveGame, savePrefs } from "./store.js";
import { cap, describeShot, viewerOf, whose } from "./words.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const TEST_ROUNDS = Number.parseInt(params.get("rounds") || "", 10);
const SPEED = clamp(Number.parseFloat(params.get("speed") || "1") || 1, 0.1, 20);
// Tests may shorten the CPU's pause from the address (?cpu_pause=0); players use Settings.
const PAUSE_PARAM = Number.parseFloat(params.get("cpu_pause") ?? "");
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
// A first shot starts straight at the centre with a power that stops in the 10: a neutral
// starting point, not a made 20 (every straight shot from 27% to 42.7% drops on an open board).
const DEFAULT_POWER = 20;
const BUSY_AFTER_MS = 600; // an answer slower than this shows the "server is working" sign
const FADE_S = 0.45; // removed discs (out, fouls) fade after the motion ends
const ROUND_WAIT_S = 10; // R6: the next round starts after 10 seconds
const FORMAT_NAME = { four_rounds: "four rounds", to_100: "to 100" };

// ------------------------------------------------------------------ state

const S = {
  token: deviceToken(),
  prefs: loadPrefs(),
  room: null, // room of the game on screen
  game: null, // last snapshot fully shown
  you: [],
  opponent: null,
  record: null,
  lastEvent: null, // last event number fully shown
  lastQueued: null, // last event number received (duplicates after a reconnect are dropped)
  queue: [],
  processing: false,
  animating: false,
  anim: null,
  paused: false,
  pending: null, // {type, at} of a request awaiting its answer
  welcomeRoom: null,
  queueRoom: null, // room of the events queued
  aim: {},
  drag: null,
  screen: "start",
  roundTimer: null,
  confirmAction: null,
  startConfirmed: false,
  connection: "connecting",
  levels: [], // [{id, name}] from welcome.levels, weakest first
  log: [], // the shots of the round on screen: [{text, foul}]
  thinking: false, // the CPU's shot has arrived and waits for its pause to end
};

const view = new BoardView($("board"));
const conn = new Connection({
  hello: () => ({
    type: "hello",
    token: S.token,
    room: S.room,
    last_event: S.game && S.room ? S.lastEvent : null,
  }),
  onMessage: receive,
  onStatus: connectionStatus,
});

// ------------------------------------------------------------------ helpers

function aimOf(seat) {
  if (!S.aim[seat]) S.aim[seat] = { position: 0, direction: 0, power: DEFAULT_POWER };
  return S.aim[seat];
}

/** "CPU Easy" for a level id, from the server's list. */
function levelName(id) {
  const l = S.levels.find((x) => x.id === id);
  return l ? `CPU ${l.name}` : id === "local" ? "Two players" : String(id);
}

function cpuPause() {
  if (Number.isFinite(PAUSE_PARAM)) return clamp(PAUSE_PARAM, 0, 5);
  const v = Number.parseFloat(S.prefs.cpu_pause);
  return Number.isFinite(v) ? clamp(v, 0, 5) : 0.8;
}

function sleep(ms) {
  return new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
}

function seatInfo(game, seat) {
  return game.seats.find((s) => s.seat === seat);
}

function sideOfSeat(game, seat) {
  const s = seatInfo(game, seat);
  return s ? s.side : 0;
}

function sideName(game, side) {
  const names = game.seats.filter((s) => s.side === side).map((s) => s.name);
  return names.join(" & ") || `Side ${side + 1}`;
}

function isLocal() {
  return S.opponent === "local" || (S.you && S.you.length > 1);
}

/** The seat whose shot the controls set now, or null when no input is allowed. */
function shooter() {
  const g = S.game;
  if (S.screen !== "game" || !g || g.phase !== "playing" || !g.current_seat) return null;
  if (!S.you.includes(g.current_seat)) return null;
  return g.current_seat;
}

function canInput() {
  return (
    shooter() !== null && !S.animating && !S.processing && S.queue.length === 0 && !S.paused
    && !S.pending && !anyModalOpen() && S.connection === "open"
  );
}

function anyModalOpen() {
  return Array.from(document.querySelectorAll("dialog")).some((d) => d.open);
}

function setMessage(text, bad = false) {
  const m = $("message");
  m.textContent = text || "";
  m.classList.toggle("bad", Boolean(bad && text));
}

function announce(text) {
  const live = $("live");
  live.textContent = "";
  // A fresh node each time, so screen readers announce a repeated text too.
  window.setTimeout(() => {
    live.textContent = text;
  }, 30);
}

function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

function fmt(v, digits = 1) {
  return round(v, digits).toFixed(digits);
}

function persist() {
  if (!S.room) {
    saveGame(null);
    return;
  }
  saveGame({
    room: S.room, lastEvent: S.lastEvent, game: S.game, you: S.you, opponent: S.opponent, aim: S.aim, log: S.log,
  });
}

function send(msg) {
  if (!conn.send(msg)) {
    setMessage("Not connected to the server — reconnecting…", true);
    return false;
  }
  if (msg.type !== "ping") {
    S.pending = { type: msg.type, at: performance.now() };
    setTimeout(renderBusy, BUSY_AFTER_MS + 20);
  }
  refresh();
  return true;
}

/** The "server is working" sign: shown while an answer takes more than a moment. */
function renderBusy() {
  const slow = Boolean(S.pending) && performance.now() - S.pending.at >= BUSY_AFTER_MS && S.connection === "open";
  const el = $("busy");
  if (slow) {
    $("busy-text").textContent = S.pending.type === "new_game" || S.pending.type === "rematch"
      ? "Setting up the game…"
      : "The server is working…";
  }
  el.hidden = !slow;
}

// ------------------------------------------------------------------ connection

function connectionStatus(status) {
  S.connection = status;
  const el = $("connection");
  if (status === "open") {
    el.hidden = true;
    S.pending = null;
  } else {
    el.hidden = false;
    el.textContent = status === "reconnecting" ? "Connection lost — reconnecting…" : "Connecting…";
  }
  refresh();
}

function receive(msg) {
  switch (msg.type) {
    case "pong":
      return;
    case "error":
      onError(msg);
      return;
    case "welcome":
      onWelcome(msg);
      return;
    case "state":
    case "shot":
    case "round":
    case "finished":
      enqueue(msg);
      return;
    default:
      // Unknown types from a newer server are ignored.
  }
}

function enqueue(msg) {
  const sameRoom = msg.room === S.queueRoom;
  if (msg.type === "shot" && !sameRoom) return; // a shot of a game no longer on screen
  // Shots and rounds advance the event number: a number already received is a resent copy.
  // Snapshots (state, finished) are idempotent; a resignation's `finished` keeps the number.
  const advances = msg.type === "shot" || msg.type === "round";
  if (sameRoom && advances && S.lastQueued !== null && msg.event <= S.lastQueued) return;
  if (!sameRoom) {
    // A new game (new_game, rematch, continue): whatever was queued belongs to the old one.
    S.queue.length = 0;
    finishAnimationNow();
    S.queueRoom = msg.room;
  }
  S.lastQueued = S.lastQueued === null || !sameRoom ? msg.event : Math.max(S.lastQueued, msg.event);
  if (S.pending && (msg.type !== "shot" || S.pending.type === "shoot")) S.pending = null;
  S.queue.push(msg);
  pump();
}

async function pump() {
  if (S.processing) return;
  S.processing = true;
  try {
    while (S.queue.length && !S.paused) {
      const msg = S.queue.shift();
      await showEvent(msg);
      S.room = msg.room;
      S.lastEvent = msg.event;
      persist();
    }
  } finally {
    S.processing = false;
  }
  refresh();
  if (canInput()) announceTurn();
}

function onError(msg) {
  const pending = S.pending;
  S.pending = null;
  const text = msg.message || msg.code || "refused";
  if (msg.code === "hello_first") {
    conn.restart();
    return;
  }
  if (msg.code === "unknown_room" || msg.code === "not_your_room") {
    // The game was abandoned (a new game from another tab of this device) or is not ours.
    forgetGame();
    showStart();
    setStartStatus("That game is no longer available. Start a new one.");
    return;
  }
  if (pending && pending.type === "next_round" && msg.code === "illegal_action") {
    refresh(); // the round had already moved on
    return;
  }
  if (S.screen === "start") setStartStatus(text, true);
  else if (msg.code === "illegal_placement") setMessage(`Can't place there: ${text}`, true);
  else setMessage(text, true);
  refresh();
}

function onWelcome(msg) {
  S.pending = null;
  if (Array.isArray(msg.levels)) setLevels(msg.levels);
  if (msg.record) S.record = msg.record;
  renderRecord();
  if (S.room && msg.room !== S.room) {
    // The game we showed is unknown to the server now.
    forgetGame();
  }
  S.welcomeRoom = msg.room || null;
  if (!S.game || S.game.phase === "game_over") showStart();
  $("continue-box").hidden = !S.welcomeRoom;
  refresh();
}

/** The CPU levels the server offers (welcome.levels) become the opponent choices. */
function setLevels(levels) {
  S.levels = levels.filter((l) => l && typeof l.id === "string" && typeof l.name === "string");
  for (const form of [$("start-form"), $("settings-form")]) {
    const select = form.elements.opponent;
    // The choice on screen stays (a reconnect's welcome comes again); before the first
    // list there is none, and the saved one applies.
    const keep = select.value || S.prefs.opponent;
    const local = select.querySelector("option[value=local]");
    for (const o of Array.from(select.options)) if (o.value !== "local") o.remove();
    for (const l of S.levels) select.insertBefore(new Option(`CPU ${l.name}`, l.id), local);
    select.value = keep;
  }
  toggleNameField();
}

function forgetGame() {
  S.room = null;
  S.game = null;
  S.you = [];
  S.log = [];
  S.lastEvent = null;
  S.queueRoom = null;
  S.lastQueued = null;
  S.queue.length = 0;
  persist();
}

// ------------------------------------------------------------------ events

async function showEvent(msg) {
  switch (msg.type) {
    case "state":
      closeDialog($("round-dialog"));
      closeDialog($("game-dialog"));
      S.you = Array.isArray(msg.you) ? msg.you : S.you;
      S.opponent = msg.opponent ?? S.opponent;
      if (msg.room !== S.room) {
        // A new game: its log starts empty; each player keeps the aim of their last shot.
        S.log = [];
      }
      applySnapshot(msg.game);
      showGame();
      setMessage("");
      if (msg.game.phase === "round_over") openRoundDialog();
      if (msg.game.phase === "game_over") openGameDialog();
      return;
    case "shot": {
      if (msg.cpu) await thinkingPause(msg);
      if (msg.room !== S.queueRoom) return; // a new game started meanwhile: this shot is history
      await animateShot(msg);
      applySnapshot(msg.game);
      const text = describeShot(msg.report, viewerOf(msg.game, S.you, isLocal()), msg.seat);
      const foul = Boolean(msg.report && msg.report.valid === false);
      S.log.push({ text, foul });
      setMessage(text, foul);
      renderLog();
      if (msg.game.phase === "round_over") openRoundDialog();
      return;
    }
    case "round":
      closeDialog($("round-dialog"));
      S.log = [];
      renderLog();
      applySnapshot(msg.game);
      setMessage(`Round ${msg.game.round} begins.`);
      return;
    case "finished":
      closeDialog($("round-dialog"));
      applySnapshot(msg.game);
      if (msg.record) S.record = msg.record;
      renderRecord();
      showGame();
      openGameDialog();
      return;
    default:
  }
}

function applySnapshot(game) {
  S.game = game;
  view.setBoard(game.board);
  updateFlip();
  refresh();
}

/** The CPU's shot waits a moment after the last one ends, so "thinking…" is seen and the
 * previous result can be read; Settings shortens or removes the pause. */
async function thinkingPause(msg) {
  const ms = cpuPause() * 1000;
  if (ms <= 0) return;
  S.thinking = true;
  refresh();
  let left = ms;
  while (left > 0 && msg.room === S.queueRoom) {
    const step = Math.min(left, 100);
    await sleep(step); // short steps: a pause taken meanwhile holds the CPU too
    if (!S.paused) left -= step; // a paused game pauses the CPU too
  }
  S.thinking = false;
}

function renderLog() {
  const list = $("shot-log");
  list.replaceChildren(
    ...S.log.map((e) => {
      const li = document.createElement("li");
      li.textContent = e.text;
      if (e.foul) li.className = "foul";
      return li;
    }).reverse(),
  );
  $("shot-log-empty").hidden = S.log.length > 0;
  $("shot-log-title").textContent = S.game ? `Shots in round ${S.game.round}` : "Shots this round";
}

// ------------------------------------------------------------------ animation

function animateShot(msg) {
  return new Promise((resolve) => {
    const before = S.game;
    const traj = msg.trajectory;
    if (!before || !traj || !Array.isArray(traj.discs) || reducedMotion.matches || document.hidden) {
      resolve();
      return;
    }
    const sideOf = (owner) => sideOfSeat(msg.game, owner);
    const removed = new Set((msg.report?.removed || []).map((d) => d.id));
    const leaving = new Map(traj.discs.filter((d) => d.leaves).map((d) => [d.id, d]));
    S.anim = {
      msg, before, traj, sideOf, removed, leaving, t: 0, last: null, soundIndex: 0, resolve,
      sounds: (traj.sounds || [])
        .concat(traj.discs.filter((d) => d.leaves && d.leaves.how === "ditch").map((d) => [d.leaves.t, "ditch"]))
        .sort((x, y) => x[0] - y[0]),
    };
    S.animating = true;
    refresh();
    requestAnimationFrame(step);
  });
}

function step(now) {
  const a = S.anim;
  if (!a) return;
  if (a.last !== null && !S.paused) a.t += (Math.min(now - a.last, 250) / 1000) * SPEED;
  a.last = now;
  while (a.soundIndex < a.sounds.length && a.sounds[a.soundIndex][0] <= a.t) {
    play(a.sounds[a.soundIndex][1]);
    a.soundIndex += 1;
  }
  if (a.t >= a.traj.duration + FADE_S) {
    finishAnimationNow();
    return;
  }
  draw();
  requestAnimationFrame(step);
}

function finishAnimationNow() {
  const a = S.anim;
  if (!a) return;
  S.anim = null;
  S.animating = false;
  a.resolve();
}

/** Discs to draw now: the snapshot, or a frame of the shot in play. */
function animatedScene() {
  const a = S.anim;
  const dur = a.traj.duration;
  if (a.t < dur) return { discs: framesAt(a.before, a.traj, a.sideOf, a.t), fading: [] };
  // Motion over: the snapshot, with the discs the rules removed fading out where they stopped.
  const last = framesAt(a.before, a.traj, a.sideOf, dur);
  const alpha = clamp(1 - (a.t - dur) / FADE_S, 0, 1);
  const onBoard = new Set(a.msg.game.discs.map((d) => d.id));
  const fading = last.filter((d) => !onBoard.has(d.id)).map((d) => ({ ...d, alpha }));
  return { discs: a.msg.game.discs, fading };
}

// ------------------------------------------------------------------ drawing

let drawQueued = false;
function requestDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    if (!S.anim) draw();
  });
}

function draw() {
  if (!S.game || S.screen !== "game") return;
  const game = S.anim ? S.anim.msg.game : S.game;
  view.setBoard(game.board);
  const scene = { game };
  if (S.anim) Object.assign(scene, animatedScene());
  else {
    scene.discs = S.game.discs;
    scene.scores = S.game.phase !== "playing";
  }
  const seat = S.anim ? null : shooter();
  if (seat) {
    const board = S.game.board;
    const aim = aimOf(seat);
    const live = canInput();
    scene.quarter = { angle: SEAT_ANGLE[seat], limit: S.game.placement_limit, active: live };
    const c = placement(board, seat, aim.position);
    const bad = placementProblem(S.game, seat, aim.position) !== null;
    scene.ghost = { x: c.x, y: c.y, side: sideOfSeat(S.game, seat), bad };
    if (live && !bad) {
      const d = S.drag && S.drag.aiming ? S.drag : aim;
      const u = aimVector(board, seat, aim.position, d.direction);
      scene.aim = {
        x: c.x, y: c.y, ux: u.x, uy: u.y, power: d.power,
        invalid: Boolean(S.drag && S.drag.aiming && S.drag.invalid),
        pull: S.drag && S.drag.aiming ? S.drag.pointer : null,
      };
      if (S.drag && S.drag.dragging && !S.drag.aiming) scene.aim = null;
    }
  }
  view.draw(scene);
}

/** Landscape screens put the board beside the rest (style.css, min-aspect-ratio 5/4). */
function wideLayout() {
  return window.matchMedia("(min-aspect-ratio: 5/4)").matches;
}

/**
 * Size the board so that all of it is in the visible area, never under the controls:
 * on wide screens the full height beside the side column; otherwise the full width, and no
 * taller than the space between its top and the bottom of the screen.
 */
function layout() {
  document.body.classList.toggle("in-game", S.screen === "game");
  if (S.screen !== "game") return;
  const game = $("game-screen");
  const wrap = $("board-wrap");
  const cs = getComputedStyle(game);
  const padX = Number.parseFloat(cs.paddingLeft) + Number.parseFloat(cs.paddingRight);
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  let size;
  if (wideLayout()) {
    const side = $("side").getBoundingClientRect().width;
    const gap = Number.parseFloat(cs.columnGap) || 0;
    size = Math.min(vw - padX - side - gap, vh - top - Number.parseFloat(cs.paddingBottom) - 2);
  } else {
    size = Math.min(vw - padX, vh - top - 6);
  }
  size = Math.max(160, Math.min(size, 1100));
  if (view.resize(size)) draw();
  placeResultDialogs();
}

/** On wide screens the result dialogs sit over the side column, beside the board. */
function placeResultDialogs() {
  const beside = S.screen === "game" && wideLayout();
  const side = $("side").getBoundingClientRect();
  const score = document.querySelector(".scoreboard").getBoundingClientRect();
  for (const d of [$("round-dialog"), $("game-dialog")]) {
    d.classList.toggle("beside", beside);
    if (beside) {
      d.style.left = `${Math.round(side.left)}px`;
      d.style.top = `${Math.round(score.top)}px`;
      d.style.width = `${Math.round(side.width)}px`;
      d.style.maxHeight = `${Math.round(window.innerHeight - score.top - 8)}px`;
    } else {
      for (const k of ["left", "top", "width", "maxHeight"]) d.style[k] = "";
    }
  }
}

function updateFlip() {
  const g = S.game;
  const flip = Boolean(S.prefs.turn_board && isLocal() && g && g.phase === "playing" && g.current_seat === "north");
  view.setFlip(flip);
}

// ------------------------------------------------------------------ rendering of HTML parts

function refresh() {
  renderScoreboard();
  renderControls();
  renderDiscList();
  renderBusy();
  $("pause-button").disabled = S.screen !== "game";
  requestDraw();
}

function renderScoreboard() {
  const g = S.game;
  if (!g) return;
  const moving = S.anim ? null : g.current_seat;
  const turn = $("turn-indicator");
  turn.classList.toggle("thinking", S.thinking || (!S.anim && g.phase === "playing" && Boolean(seatInfo(g, g.current_seat)?.cpu)));
  for (let i = 0; i < 2; i += 1) {
    const card = $(`side-card-${i}`);
    const side = g.sides[i];
    if (!side) {
      card.hidden = true;
      continue;
    }
    card.hidden = false;
    const seats = g.seats.filter((s) => s.side === i);
    const inHand = seats.reduce((n, s) => n + (s.in_hand || 0), 0);
    const toMove = g.phase === "playing" && seats.some((s) => s.seat === moving);
    card.classList.toggle("to-move", toMove);
    // The name may be cut short (style.css ellipsis): the tooltip holds all of it, not seat words.
    const name = escapeHtml(sideName(g, i));
    card.innerHTML = `<div class="name">${markSvg(g, i)}<span title="${name}">${name}</span></div>
      <div class="stats"><span>Score <b class="score" data-testid="score-${i}">${side.score}</b></span>
      <span>This round <b data-testid="round-total-${i}">${side.round_total}</b></span>
      <span>In hand <b data-testid="in-hand-${i}">${inHand}</b></span>
      <span>20s <b data-testid="twenties-${i}">${side.twenties}</b></span>
      <span>Ditch <b>${side.ditch ?? 0}</b></span></div>`;
    card.setAttribute("aria-label", `${sideName(g, i)}: score ${side.score}, this round ${side.round_total}, ${inHand} discs in hand, ${side.twenties} twenties, ${side.ditch ?? 0} in the ditch${toMove ? ", to shoot" : ""}`);
  }
  const rules = g.rules;
  $("round-label").textContent = rules.scoring === "to_100"
    ? `Round ${g.round} · to ${rules.target || 100}`
    : `Round ${g.round} of ${rules.rounds}`;
  $("turn-indicator").textContent = turnText();
}

function turnText() {
  const g = S.game;
  if (!g) return "";
  if (S.paused) return "Paused";
  if (S.anim) return "Discs moving…";
  if (g.phase === "round_over") return "Round over";
  if (g.phase === "game_over") return "Game over";
  const seat = g.current_seat;
  const info = seat && seatInfo(g, seat);
  if (!info) return "";
  if (S.you.includes(seat)) {
    if (isLocal()) return `${info.name} to shoot`;
    return "Your turn";
  }
  if (info.cpu || S.thinking) return `${info.name} is thinking…`;
  return `${info.name} to shoot`;
}

let lastAnnounced = "";
function announceTurn() {
  const g = S.game;
  if (!g || g.phase !== "playing") return;
  const key = `${S.room}/${S.lastEvent}`;
  if (key === lastAnnounced) return;
  lastAnnounced = key;
  const scores = g.sides.map((s, i) => `${sideName(g, i)} ${s.round_total}`).join(", ");
  announce(`${turnText()}. This round: ${scores}.`);
}

let restoreFocus = null;
function renderControls() {
  const seat = shooter();
  const live = canInput();
  const fs = $("controls");
  if (!live && fs.contains(document.activeElement)) restoreFocus = document.activeElement;
  fs.disabled = !live;
  if (live && restoreFocus) {
    const el = restoreFocus;
    restoreFocus = null;
    if (document.activeElement === document.body) el.focus({ preventScroll: true });
  }
  const g = S.game;
  if (!g) return;
  const lim = Math.floor(g.placement_limit * 10) / 10;
  for (const id of ["position", "position-num"]) {
    $(id).min = String(-lim);
    $(id).max = String(lim);
  }
  const shown = seat || (g.current_seat && S.you.includes(g.current_seat) ? g.current_seat : S.you[0]);
  if (!shown) return;
  const a = aimOf(shown);
  const d = S.drag && S.drag.aiming && !S.drag.invalid ? S.drag : a;
  setControl("position", a.position);
  setControl("direction", d.direction);
  setControl("power", d.power);
  const info = seatInfo(g, shown);
  // Out of turn, the legend says what is going on: it is next to Shoot, where the eyes are.
  const waiting = !seat && g.phase === "playing" ? turnText() : "";
  $("controls-legend").textContent = waiting || (isLocal() && info ? `${info.name}'s shot` : "Your shot");
  $("controls-hint").textContent = isLocal() && shown === "north" && !view.flip
    ? `${info ? info.name : "The top player"} shoots from the top: position and direction are seen from their chair — positive turns to their right (your screen's left).`
    : "Position 0° is the middle of your quarter; direction 0° points at the centre, positive to your right.";
}

function setControl(name, value) {
  const range = $(name);
  const num = $(`${name}-num`);
  const text = fmt(value, 1);
  if (document.activeElement !== num && num.value !== text) num.value = text;
  if (range.value !== String(value)) range.value = String(value);
  range.setAttribute("aria-valuetext", name === "power" ? `${text} percent` : `${text} degrees`);
}

function zoneWords(z) {
  return z === 0 ? "on or beyond the shooting line" : z === 20 ? "over the 20 hole" : `in the ${z} zone`;
}

function renderDiscList() {
  const g = S.game;
  const list = $("disc-list");
  if (!g) return;
  const viewer = viewerOf(g, S.you, isLocal());
  const items = g.discs.map((d) => {
    const who = whose(viewer, d.owner);
    const z = zoneOf(g.board, d.x, d.y);
    const dist = Math.hypot(d.x, d.y);
    return `<li>${escapeHtml(cap(who))} disc ${zoneWords(z)}, ${fmt(dist)} inches ${compass(d.x, d.y)} of the centre</li>`;
  });
  list.innerHTML = items.join("") || "<li>No discs on the board.</li>";
  const canvas = $("board");
  const seat = shooter();
  let label = `Crokinole board seen from ${view.flip ? "north" : "south"}: ${g.discs.length} disc${g.discs.length === 1 ? "" : "s"} on the board. ${turnText()}.`;
  if (seat) {
    const a = aimOf(seat);
    label += ` Disc placed at ${fmt(a.position)} degrees, aim ${fmt(a.direction)} degrees, power ${fmt(a.power)} percent.`;
  }
  canvas.setAttribute("aria-label", label);
}

function renderRecord() {
  const box = $("record-table");
  const rec = S.record;
  if (!rec) return;
  let any = false;
  const rows = S.levels.map(({ id: lvl }) => {
    const cells = ["four_rounds", "to_100"].map((f) => {
      const r = (rec[lvl] && rec[lvl][f]) || { wins: 0, draws: 0, losses: 0 };
      if (r.wins + r.draws + r.losses > 0) any = true;
      return `<td>${r.wins}</td><td>${r.draws}</td><td>${r.losses}</td>`;
    });
    return `<tr><th scope="row">${escapeHtml(levelName(lvl))}</th>${cells.join("")}</tr>`;
  });
  if (!any) {
    box.innerHTML = '<p class="note">No games against the CPU yet.</p>';
    return;
  }
  box.innerHTML = `<table><thead><tr><td></td><th colspan="3" scope="colgroup">Four rounds</th><th colspan="3" scope="colgroup">To 100</th></tr>
    <tr><td></td><th scope="col" title="wins">W</th><th scope="col" title="draws">D</th><th scope="col" title="losses">L</th>
    <th scope="col" title="wins">W</th><th scope="col" title="draws">D</th><th scope="col" title="losses">L</th></tr></thead>
    <tbody>${rows.join("")}</tbody></table>`;
}

// ------------------------------------------------------------------ screens and dialogs

function showStart() {
  // The form shows the saved choices when the screen is entered; a welcome while it is on
  // screen (a reconnect) keeps what the player has chosen since. init() fills it first.
  if (S.screen !== "start") fillOptions($("start-form"), S.prefs);
  S.screen = "start";
  $("start-screen").hidden = false;
  $("game-screen").hidden = true;
  closeDialog($("round-dialog"));
  closeDialog($("game-dialog"));
  stopRoundTimer();
  toggleNameField();
  resetStartConfirm();
  layout();
  refresh();
  // The device token goes in a header, never in the address (it would land in access logs).
  fetch("/api/record", { headers: { "X-Device-Token": S.token } })
    .then((r) => (r.ok ? r.json() : null))
    .then((data) => {
      if (!data) return;
      if (data.record) S.record = data.record;
      renderRecord();
      if (data.room && data.room !== S.room) S.welcomeRoom = data.room;
      if (!S.welcomeRoom) resetStartConfirm();
      $("continue-box").hidden = !S.welcomeRoom || S.screen !== "start";
    })
    .catch(() => {});
}

function showGame() {
  if (S.screen === "game") return;
  S.screen = "game";
  $("start-screen").hidden = true;
  $("game-screen").hidden = false;
  layout();
  renderLog();
  refresh();
  $("board").focus({ preventScroll: true });
}

function setStartStatus(text, bad = false) {
  let el = $("start-status");
  if (!el) {
    el = document.createElement("p");
    el.id = "start-status";
    el.setAttribute("role", "status");
    el.className = "note";
    $("start-form").append(el);
  }
  el.textContent = text;
  el.classList.toggle("status-bad", bad);
}

function openDialog(d) {
  if (!d.open) d.showModal();
}

function closeDialog(d) {
  if (d.open) d.close();
}

/** A round's result, one column per side (so it fits a phone whatever the names). */
function resultTable(g, h) {
  const four = g.rules.scoring !== "to_100";
  const sides = g.sides.map((_, i) => i);
  const head = sides.map((i) => `<th scope="col"><span class="side-head">${markSvg(g, i, 16)}<span>${escapeHtml(sideName(g, i))}</span></span></th>`).join("");
  const row = (label, cells, cls = "") => `<tr${cls ? ` class="${cls}"` : ""}><th scope="row">${label}</th>${cells.map((c) => `<td>${c}</td>`).join("")}</tr>`;
  const counts = (k) => sides.map((i) => ((h.counts && h.counts[i]) || [0, 0, 0, 0])[k]);
  const rows = [
    row("20s", counts(0)), row("15s", counts(1)), row("10s", counts(2)), row("5s", counts(3)),
    row("Round total", sides.map((i) => h.totals[i]), "total"),
    row(four ? "Round points" : "Points added", sides.map((i) => {
      const pts = h.points ? h.points[i] : 0;
      return four ? pts : `+${pts}`;
    })),
    row("Game score", sides.map((i) => (h.scores_after ? h.scores_after[i] : ""))),
  ];
  return `<table class="result-table"><thead><tr><td></td>${head}</tr></thead><tbody>${rows.join("")}</tbody></table>`;
}

function roundWinnerLine(g, h) {
  const t = h.totals;
  const best = Math.max(...t);
  const winners = t.map((v, i) => (v === best ? i : -1)).filter((i) => i >= 0);
  if (winners.length > 1) return `Round ${h.number} is tied, ${t.join(" to ")}.`;
  const w = winners[0];
  const who = sideName(g, w);
  const you = !isLocal() && g.seats.some((s) => s.side === w && S.you.includes(s.seat));
  return `${you ? "You win" : `${who} wins`} round ${h.number}, ${t[w]} to ${Math.max(...t.filter((_, i) => i !== w))}.`;
}

function openRoundDialog() {
  const g = S.game;
  const h = g.history[g.history.length - 1];
  if (!h) return;
  $("round-title").textContent = `Round ${h.number} result`;
  const line = roundWinnerLine(g, h);
  $("round-body").innerHTML = `<p class="result-line">${escapeHtml(line)}</p>${resultTable(g, h)}
    <p class="countdown" id="round-countdown"></p>`;
  const next = $("next-button");
  next.disabled = false;
  next.setAttribute("aria-label", "Next round");
  setPeek(false);
  placeResultDialogs();
  openDialog($("round-dialog"));
  next.focus();
  announce(line);
  startRoundTimer();
}

/** "Look at the board": the round result shrinks to a bar so the discs can be seen. */
function setPeek(on) {
  const d = $("round-dialog");
  if (d.open && on !== d.classList.contains("peek")) {
    // Folded, the result is not modal: the board under it can be looked at (and touched).
    d.close();
    if (on) d.show();
    else d.showModal();
  }
  d.classList.toggle("peek", on);
  if (on) window.scrollTo(0, 0); // the layout fits the whole board in the screen from the top
  const b = $("peek-button");
  b.setAttribute("aria-pressed", String(on));
  b.textContent = on ? "Show the result" : "Look at the board";
}

function startRoundTimer() {
  stopRoundTimer();
  let left = ROUND_WAIT_S;
  const tick = () => {
    $("next-button").textContent = `Next (${Math.ceil(left)})`;
    const cd = $("round-countdown");
    if (cd) cd.textContent = `The next round starts in ${Math.ceil(left)} s.`;
  };
  tick();
  S.roundTimer = setInterval(() => {
    if (S.paused || $("round-dialog").classList.contains("peek")) return; // looking at the board
    left -= 0.25;
    tick();
    if (left <= 0) {
      stopRoundTimer();
      confirmNextRound();
    }
  }, 250);
}

function stopRoundTimer() {
  clearInterval(S.roundTimer);
  S.roundTimer = null;
}

function confirmNextRound() {
  stopRoundTimer();
  const next = $("next-button");
  if (S.game && S.game.phase === "round_over" && send({ type: "next_round", room: S.room })) {
    next.disabled = true;
    next.textContent = "Waiting…";
  } else {
    next.textContent = "Next";
  }
}

function openGameDialog() {
  const g = S.game;
  const o = g.outcome;
  const mySide = isLocal() || !S.you.length ? null : sideOfSeat(g, S.you[0]);
  let title = "Game over";
  if (!o && g.phase !== "game_over") {
    title = isLocal() ? "Game abandoned" : "You resigned";
  } else if (o && o.winner !== null && o.winner !== undefined) {
    title = mySide === null ? `${sideName(g, o.winner)} wins!` : o.winner === mySide ? "You win!" : `${sideName(g, o.winner)} wins`;
  } else if (o) {
    title = "A draw";
  }
  $("game-title").textContent = title;
  const scores = g.sides.map((s, i) => `${markSvg(g, i, 16)} ${escapeHtml(sideName(g, i))} <b>${s.score}</b>`).join(" &nbsp;·&nbsp; ");
  const rounds = g.history.map((h) => `<tr><th scope="row">${h.number}</th><td>${h.totals.join(" – ")}</td>
    <td>${(h.points || []).join(" – ")}</td><td>${(h.scores_after || []).join(" – ")}</td></tr>`).join("");
  const last = g.history[g.history.length - 1];
  let record = "";
  const lvl = S.opponent;
  if (S.record && S.levels.some((l) => l.id === lvl)) {
    const r = S.record[lvl]?.[g.rules.scoring];
    if (r) record = `<p class="note">Your record against ${escapeHtml(levelName(lvl))}, ${FORMAT_NAME[g.rules.scoring]}: ${r.wins} won, ${r.draws} drawn, ${r.losses} lost.</p>`;
  }
  $("game-body").innerHTML = `<p class="result-line">${scores}</p>
    ${last ? `<h3>Last round</h3>${resultTable(g, last)}` : ""}
    ${rounds ? `<h3>Rounds</h3><table class="result-table"><thead><tr><th scope="col">Round</th><th scope="col">Totals</th>
    <th scope="col">${g.rules.scoring === "to_100" ? "Points added" : "Round points"}</th><th scope="col">Game score</th></tr></thead><tbody>${rounds}</tbody></table>` : ""}
    ${record}`;
  $("rematch-button").disabled = false;
  $("rematch-button").hidden = g.phase !== "game_over"; // a resigned game is gone from the server
  placeResultDialogs();
  openDialog($("game-dialog"));
  ($("rematch-button").hidden ? $("new-game-button") : $("rematch-button")).focus();
  announce(`${title} Final score ${g.sides.map((s, i) => `${sideName(g, i)} ${s.score}`).join(", ")}.`);
}

// ------------------------------------------------------------------ actions

function shoot() {
  const seat = shooter();
  if (!seat || !canInput()) return;
  const a = aimOf(seat);
  const problem = placementProblem(S.game, seat, a.position);
  if (problem) {
    setMessage(`Can't place there: ${problem}.`, true);
    return;
  }
  if (a.power < 0.5) {
    setMessage("Power is 0%: pull back further or raise the power.", true);
    return;
  }
  setMessage("");
  play("shoot");
  const msg = {
    type: "shoot", room: S.room, seat,
    position: round(a.position, 2), direction: round(a.direction, 2), power: round(a.power, 2),
  };
  if (send(msg)) S.lastShot = msg;
}

function newGame(opts) {
  const msg = {
    type: "new_game",
    opponent: opts.opponent,
    scoring: opts.scoring,
    discs: Number(opts.discs),
    required_contact: Boolean(opts.required_contact),
  };
  if (opts.scoring === "four_rounds" && TEST_ROUNDS >= 1 && TEST_ROUNDS <= 4) msg.rounds = TEST_ROUNDS;
  const names = {};
  const south = (opts.names?.south || "").trim().slice(0, 24);
  const north = (opts.names?.north || "").trim().slice(0, 24);
  if (south) names.south = south;
  if (north && opts.opponent === "local") names.north = north;
  if (Object.keys(names).length) msg.names = names;
  S.welcomeRoom = null;
  $("continue-box").hidden = true;
  return send(msg);
}

function readOptions(form) {
  const f = new FormData(form);
  return {
    opponent: f.get("opponent"),
    scoring: f.get("scoring"),
    discs: Number(f.get("discs")),
    required_contact: f.get("required_contact") === "on",
  };
}

function fillOptions(form, p) {
  form.elements.opponent.value = p.opponent;
  form.elements.scoring.value = p.scoring;
  form.elements.discs.value = String(p.discs);
  form.elements.required_contact.checked = Boolean(p.required_contact);
  if (form.elements.name_south) form.elements.name_south.value = p.names?.south || "";
  if (form.elements.name_north) form.elements.name_north.value = p.names?.north || "";
}

function toggleNameField() {
  $("name-north-field").hidden = $("start-form").elements.opponent.value !== "local";
}

function setPaused(on) {
  if (on === S.paused) return;
  S.paused = on;
  $("pause-button").setAttribute("aria-pressed", String(on));
  if (on) {
    cancelDrag();
    openDialog($("pause-dialog"));
    $("resume-button").focus();
    announce("Game paused.");
  } else {
    closeDialog($("pause-dialog"));
    announce("Game resumed.");
    pump();
  }
  refresh();
}

function setSound(on) {
  S.prefs.sound = on;
  savePrefs(S.prefs);
  setSoundEnabled(on);
  const b = $("sound-toggle");
  b.setAttribute("aria-pressed", String(on));
  b.textContent = on ? "Sound on" : "Sound off";
  $("settings-sound").checked = on;
  if (on) play("disc");
}

// ------------------------------------------------------------------ pointer input

function pointerBoard(ev) {
  const r = view.canvas.getBoundingClientRect();
  return view.toBoard(ev.clientX - r.left, ev.clientY - r.top);
}

function onPointerDown(ev) {
  if (ev.button !== 0 && ev.pointerType === "mouse") return;
  const seat = shooter();
  if (!seat || !canInput()) return;
  ev.preventDefault();
  $("board").focus({ preventScroll: true });
  const board = S.game.board;
  const p = pointerBoard(ev);
  const a = aimOf(seat);
  const c = placement(board, seat, a.position);
  const grab = Math.max(board.disc_radius * 1.5, 24 / view.scale);
  if (Math.hypot(p.x - c.x, p.y - c.y) <= grab) {
    S.drag = {
      id: ev.pointerId, seat, dragging: true, aiming: false, moved: false, start: p, pointer: p,
      direction: a.direction, power: a.power, invalid: false,
    };
    view.canvas.setPointerCapture(ev.pointerId);
    requestDraw();
    return;
  }
  placeAt(seat, p);
}

function placeAt(seat, p) {
  const board = S.game.board;
  const r = Math.hypot(p.x, p.y);
  const pos = positionOf(seat, p.x, p.y);
  if (r < board.ten_radius || r > board.surface_radius + board.ditch_width || Math.abs(pos) > 45) {
    setMessage("Tap or click your part of the shooting line (highlighted) to place your disc; press on the disc and pull back to shoot.");
    return;
  }
  const lim = S.game.placement_limit;
  const position = round(clamp(pos, -lim, lim), 1);
  const problem = placementProblem(S.game, seat, position);
  if (problem) {
    setMessage(`Can't place there: ${problem}.`, true);
    return;
  }
  aimOf(seat).position = position;
  setMessage("");
  refresh();
}

function dragGeometry(d, p) {
  const board = S.game.board;
  const a = aimOf(d.seat);
  const c = placement(board, d.seat, a.position);
  const px = p.x - c.x;
  const py = p.y - c.y;
  const len = Math.hypot(px, py);
  const cancel = Math.max(board.disc_radius * 1.3, 18 / view.scale);
  const maxPull = Math.max(6, 120 / view.scale);
  return { len, cancel, px, py, maxPull, board, position: a.position };
}

function onPointerMove(ev) {
  const d = S.drag;
  if (!d || ev.pointerId !== d.id) return;
  ev.preventDefault();
  const p = pointerBoard(ev);
  d.pointer = p;
  const gm = dragGeometry(d, p);
  if (gm.len > gm.cancel) {
    d.moved = true;
    d.aiming = true;
    d.direction = round(directionOf(gm.board, d.seat, gm.position, -gm.px, -gm.py), 1);
    d.power = clamp(round(((gm.len - gm.cancel) / gm.maxPull) * 100 * 2, 0) / 2, 0, 100);
    d.invalid = Math.abs(d.direction) > 90;
  } else {
    d.aiming = false;
  }
  renderControls();
  requestDraw();
}

function onPointerUp(ev) {
  const d = S.drag;
  if (!d || ev.pointerId !== d.id) return;
  ev.preventDefault();
  S.drag = null;
  if (view.canvas.hasPointerCapture(ev.pointerId)) view.canvas.releasePointerCapture(ev.pointerId);
  const p = pointerBoard(ev);
  if (!d.moved) {
    placeAt(d.seat, p); // a short tap only repositions
    refresh();
    return;
  }
  if (!d.aiming) {
    setMessage("Shot cancelled.");
    refresh();
    return;
  }
  if (d.invalid) {
    setMessage("Pull back away from the centre: the disc flies the opposite way to your pull.", true);
    refresh();
    return;
  }
  const a = aimOf(d.seat);
  a.direction = d.direction;
  a.power = d.power;
  refresh();
  shoot();
}

function cancelDrag() {
  if (!S.drag) return;
  S.drag = null;
  refresh();
}

// ------------------------------------------------------------------ keyboard

const TYPING = new Set(["text", "number", "search", "email", "password"]);

function onKeyDown(ev) {
  if (S.screen !== "game" || anyModalOpen()) return;
  const t = ev.target;
  const tag = t && t.tagName;
  if (tag === "SELECT" || tag === "TEXTAREA" || (tag === "INPUT" && TYPING.has(t.type))) return;
  const onRange = tag === "INPUT" && t.type === "range";
  const onButton = tag === "BUTTON" || tag === "A" || (tag === "INPUT" && t.type === "checkbox");
  const k = ev.key;
  if (ev.ctrlKey || ev.metaKey) return;
  if (k === "Escape") {
    if (S.drag) {
      cancelDrag();
      setMessage("Shot cancelled.");
    } else {
      const seat = shooter();
      if (seat) {
        const a = aimOf(seat);
        a.direction = 0;
        a.power = DEFAULT_POWER;
        setMessage("Aim reset.");
        refresh();
      }
    }
    ev.preventDefault();
    return;
  }
  if ((k === "Enter" || k === " ") && !onButton) {
    ev.preventDefault();
    shoot();
    return;
  }
  const seat = shooter();
  if (!seat || !canInput()) {
    if (["ArrowLeft", "ArrowRight", "ArrowUp", "ArrowDown", " "].includes(k) && !onRange) ev.preventDefault();
    return;
  }
  if (onRange && k.startsWith("Arrow")) return; // the focused slider moves natively
  const a = aimOf(seat);
  const fine = ev.altKey;
  const big = ev.shiftKey;
  const angleStep = fine ? 0.1 : big ? 5 : 0.5;
  const lim = S.game.placement_limit;
  let handled = true;
  switch (k.length === 1 ? k.toLowerCase() : k) {
    case "a":
      a.position = round(clamp(a.position - angleStep, -lim, lim), 2);
      break;
    case "d":
      a.position = round(clamp(a.position + angleStep, -lim, lim), 2);
      break;
    case "ArrowLeft":
      a.direction = round(clamp(a.direction - angleStep, -90, 90), 2);
      break;
    case "ArrowRight":
      a.direction = round(clamp(a.direction + angleStep, -90, 90), 2);
      break;
    case "ArrowUp":
      a.power = round(clamp(a.power + (big ? 10 : fine ? 0.5 : 1), 0, 100), 1);
      break;
    case "ArrowDown":
      a.power = round(clamp(a.power - (big ? 10 : fine ? 0.5 : 1), 0, 100), 1);
      break;
    default:
      handled = false;
  }
  if (handled) {
    ev.preventDefault();
    placementFeedback(seat);
    refresh();
  }
}

function placementFeedback(seat) {
  const problem = placementProblem(S.game, seat, aimOf(seat).position);
  if (problem) setMessage(`Can't place there: ${problem}.`, true);
  else if ($("message").classList.contains("bad")) setMessage("");
}

// ------------------------------------------------------------------ wiring

function wireControls() {
  for (const name of ["position", "direction", "power"]) {
    const range = $(name);
    const num = $(`${name}-num`);
    const apply = (raw) => {
      const seat = shooter();
      if (!seat) return;
      const v = Number.parseFloat(raw);
      if (!Number.isFinite(v)) return;
      const a = aimOf(seat);
      const lim = S.game.placement_limit;
      if (name === "position") a.position = clamp(v, -lim, lim);
      if (name === "direction") a.direction = clamp(v, -90, 90);
      if (name === "power") a.power = clamp(v, 0, 100);
      if (name === "position") placementFeedback(seat);
      refresh();
    };
    range.addEventListener("input", () => apply(range.value));
    num.addEventListener("change", () => apply(num.value));
    num.addEventListener("keydown", (ev) => {
      if (ev.key === "Enter") {
        apply(num.value);
        ev.preventDefault();
        shoot();
      }
    });
  }
  $("shoot-button").addEventListener("click", shoot);

  const canvas = $("board");
  canvas.addEventListener("pointerdown", onPointerDown);
  canvas.addEventListener("pointermove", onPointerMove);
  canvas.addEventListener("pointerup", onPointerUp);
  canvas.addEventListener("pointercancel", () => {
    cancelDrag();
  });
  canvas.addEventListener("contextmenu", (ev) => ev.preventDefault());
  document.addEventListener("keydown", onKeyDown);

  $("start-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const form = $("start-form");
    if (S.welcomeRoom && !S.startConfirmed) {
      // An unfinished game exists: starting another abandons it (a loss against the CPU).
      S.startConfirmed = true;
      $("start-confirm").hidden = false;
      $("start-button").textContent = "Yes, abandon it and start";
      return;
    }
    const opts = readOptions(form);
    S.prefs = {
      ...S.prefs, ...opts,
      names: { south: form.elements.name_south.value, north: form.elements.name_north.value },
    };
    savePrefs(S.prefs);
    if (newGame({ ...opts, names: S.prefs.names })) {
      setStartStatus("Starting…");
      resetStartConfirm();
    }
    else setStartStatus("Not connected to the server — reconnecting…", true);
  });
  $("start-form").elements.opponent.addEventListener("change", toggleNameField);
  $("continue-button").addEventListener("click", () => {
    if (!S.welcomeRoom) return;
    forgetGame();
    S.room = S.welcomeRoom;
    S.queueRoom = null;
    S.welcomeRoom = null;
    $("continue-box").hidden = true;
    setStartStatus("Loading your game…");
    persist();
    conn.restart();
  });

  $("next-button").addEventListener("click", confirmNextRound);
  $("peek-button").addEventListener("click", () => setPeek(!$("round-dialog").classList.contains("peek")));
  for (const id of ["round-dialog", "game-dialog"]) {
    $(id).addEventListener("cancel", (ev) => ev.preventDefault());
  }
  $("rematch-button").addEventListener("click", () => {
    if (send({ type: "rematch", room: S.room })) $("rematch-button").disabled = true;
  });
  $("new-game-button").addEventListener("click", () => {
    closeDialog($("game-dialog"));
    forgetGame();
    showStart();
  });

  $("pause-button").addEventListener("click", () => setPaused(!S.paused));
  $("resume-button").addEventListener("click", () => setPaused(false));
  $("pause-dialog").addEventListener("cancel", (ev) => {
    ev.preventDefault();
    setPaused(false);
  });

  $("sound-toggle").addEventListener("click", () => setSound(!S.prefs.sound));

  const settings = $("settings-dialog");
  const sform = $("settings-form");
  $("settings-button").addEventListener("click", () => {
    fillOptions(sform, S.prefs);
    if (S.opponent && S.game && S.screen === "game") {
      sform.elements.opponent.value = S.opponent;
      sform.elements.scoring.value = S.game.rules.scoring;
      sform.elements.discs.value = String(S.game.rules.discs_per_side);
      sform.elements.required_contact.checked = Boolean(S.game.rules.required_contact);
    }
    sform.elements.turn_board.checked = Boolean(S.prefs.turn_board);
    sform.elements.sound.checked = Boolean(S.prefs.sound);
    sform.elements.scheme.value = S.prefs.scheme || "classic";
    sform.elements.cpu_pause.value = String(cpuPause());
    if (!sform.elements.cpu_pause.value) sform.elements.cpu_pause.value = "0.8";
    resetConfirm();
    const inGame = S.screen === "game" && S.game && S.game.phase !== "game_over";
    $("settings-resign").hidden = !inGame;
    openDialog(settings);
  });
  sform.elements.sound.addEventListener("change", () => setSound(sform.elements.sound.checked));
  sform.elements.scheme.addEventListener("change", () => {
    S.prefs.scheme = sform.elements.scheme.value;
    savePrefs(S.prefs);
    applyScheme();
  });
  sform.elements.cpu_pause.addEventListener("change", () => {
    S.prefs.cpu_pause = Number.parseFloat(sform.elements.cpu_pause.value);
    savePrefs(S.prefs);
  });
  sform.elements.turn_board.addEventListener("change", () => {
    S.prefs.turn_board = sform.elements.turn_board.checked;
    savePrefs(S.prefs);
    updateFlip();
    refresh();
  });
  $("settings-close").addEventListener("click", () => closeDialog(settings));
  settings.addEventListener("close", resetConfirm);
  $("settings-apply").addEventListener("click", () => {
    const inGame = S.screen === "game" && S.game && S.game.phase !== "game_over";
    if (inGame && S.confirmAction !== "new") {
      askConfirm("new", "Yes, abandon and start");
      return;
    }
    const opts = readOptions(sform);
    S.prefs = { ...S.prefs, ...opts };
    savePrefs(S.prefs);
    closeDialog(settings);
    if (newGame({ ...opts, names: S.prefs.names })) setMessage("Starting a new game…");
  });
  $("settings-resign").addEventListener("click", () => {
    if (S.confirmAction !== "resign") {
      askConfirm("resign", "Yes, resign");
      return;
    }
    closeDialog(settings);
    send({ type: "resign", room: S.room });
  });

  const help = $("help-dialog");
  for (const link of document.querySelectorAll("#how-to-play-link, .help-link")) {
    link.addEventListener("click", async (ev) => {
      ev.preventDefault();
      await loadHelp();
      openDialog(help);
      $("help-close").focus({ preventScroll: true });
      help.scrollTop = 0;
    });
  }
  $("help-close").addEventListener("click", () => closeDialog(help));

  for (const d of document.querySelectorAll("dialog")) d.addEventListener("close", () => refresh());
  window.addEventListener("resize", layout);
  // A request the server never answered (a dropped frame, a restart) must not block input for good.
  setInterval(() => {
    if (S.pending && performance.now() - S.pending.at > 15000) {
      S.pending = null;
      refresh();
    }
  }, 3000);
  if (window.ResizeObserver) new ResizeObserver(layout).observe($("game-screen"));
  window.addEventListener("online", () => {
    if (!conn.open) conn.restart();
  });
  reducedMotion.addEventListener?.("change", () => {
    if (reducedMotion.matches) finishAnimationNow();
  });
}

function askConfirm(action, label) {
  S.confirmAction = action;
  $("settings-confirm").hidden = false;
  const cpu = S.opponent && S.opponent !== "local";
  $("settings-confirm").querySelector("p").textContent = action === "resign"
    ? `Resign this game? ${cpu ? "It counts as a loss in your record." : "It ends without a winner."}`
    : `Starting a new game abandons this one. ${cpu ? "It counts as a loss in your record, as resigning does." : "It ends without a winner."}`;
  $(action === "resign" ? "settings-resign" : "settings-apply").textContent = label;
}

function resetStartConfirm() {
  S.startConfirmed = false;
  $("start-confirm").hidden = true;
  $("start-button").textContent = "Start";
}

function applyScheme() {
  setScheme(S.prefs.scheme || "classic");
  view.invalidate();
  refresh(); // redraws the board and the scoreboard's marks in the new colours
}

function resetConfirm() {
  S.confirmAction = null;
  $("settings-confirm").hidden = true;
  $("settings-apply").textContent = "Start a new game";
  $("settings-resign").textContent = "Resign";
}

let helpLoaded = false;
async function loadHelp() {
  if (helpLoaded) return;
  try {
    const res = await fetch("/static/how-to-play.html");
    const doc = new DOMParser().parseFromString(await res.text(), "text/html");
    const main = doc.querySelector("main");
    if (main) {
      $("help-body").innerHTML = main.innerHTML;
      helpLoaded = true;
    }
  } catch {
    $("help-body").innerHTML = '<h2 id="help-title">How to play</h2><p>The rules could not be loaded; try again when connected.</p>';
  }
}

// ------------------------------------------------------------------ test hooks (read-only)

const api = {};
Object.defineProperties(api, {
  state: { get: () => S.game, enumerable: true },
  animating: { get: () => S.animating, enumerable: true },
  lastEvent: { get: () => S.lastEvent, enumerable: true },
  you: { get: () => S.you.slice(), enumerable: true },
  room: { get: () => S.room, enumerable: true },
  opponent: { get: () => S.opponent, enumerable: true },
  busy: { get: () => S.animating || S.processing || S.queue.length > 0 || Boolean(S.pending), enumerable: true },
  thinking: { get: () => S.thinking, enumerable: true },
  log: { get: () => S.log.map((e) => e.text), enumerable: true },
  levels: { get: () => S.levels.map((l) => ({ ...l })), enumerable: true },
  canShoot: { get: () => canInput(), enumerable: true },
  connected: { get: () => S.connection === "open", enumerable: true },
  /** Page coordinates (CSS pixels) of a board point, and of the disc waiting to be shot. */
  toPage: {
    value: (x, y) => {
      const r = view.canvas.getBoundingClientRect();
      const [px, py] = view.toScreen(x, y);
      return { x: r.left + px, y: r.top + py };
    },
  },
  placedDisc: {
    get: () => {
      const seat = shooter();
      if (!seat) return null;
      const c = placement(S.game.board, seat, aimOf(seat).position);
      return api.toPage(c.x, c.y);
    },
  },
  aim: { get: () => (shooter() ? { ...aimOf(shooter()) } : null) },
  lastShot: { get: () => (S.lastShot ? { ...S.lastShot } : null) },
});
Object.freeze(api);
Object.defineProperty(window, "crokinole", { value: api, writable: false, configurable: false });

// ------------------------------------------------------------------ start

function init() {
  setScheme(S.prefs.scheme || "classic");
  wireControls();
  setSound(Boolean(S.prefs.sound));
  fillOptions($("start-form"), S.prefs);
  toggleNameField();
  const saved = loadGame();
  if (saved) {
    S.room = saved.room;
    S.queueRoom = saved.room;
    if (saved.game && Number.isInteger(saved.lastEvent)) {
      S.game = saved.game;
      S.you = Array.isArray(saved.you) ? saved.you : [];
      S.opponent = saved.opponent ?? null;
      S.lastEvent = saved.lastEvent;
      S.lastQueued = saved.lastEvent;
      if (saved.aim && typeof saved.aim === "object") S.aim = saved.aim;
      if (Array.isArray(saved.log)) S.log = saved.log.filter((e) => e && typeof e.text === "string");
      view.setBoard(S.game.board);
      updateFlip();
      if (S.game.phase !== "game_over") showGame();
      else showStart();
      if (S.game.phase === "round_over") openRoundDialog();
    } else {
      showStart();
    }
  } else {
    showStart();
  }
  conn.connect();
  refresh();
}

init();
