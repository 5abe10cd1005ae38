// The crokinole browser client: draws what the server sends, sends what the player intends.
// Protocol: docs/protocol.md (v2). The state is state.js's pure reducer over the server's
// messages; this module connects, queues the messages (a shot is animated before the next is
// shown), picks the screen and calls the views: start.js (start screen), lobby.js (a party's
// lobby), board.js + anim.js (the board and shots), scoreboard.js (cards, clock, reactions),
// controls.js + input.js (aiming), hints.js (hints and the heat map, where the table allows
// them), dialogs.js (results), settings.js. No build step.

import { fetchJson, fetchText } from "../../lib/api.js";
import {
  FAVICON, START, TURN_FAVICON, TURN_TITLE, VIBRATION_MS, attend, awaitedTurn, vibrationWanted,
} from "../../lib/attention.js";
import { ShotAnimation } from "../../views/anim.js";
import { BoardView, setScheme } from "../../views/board.js";
import { hide as hideCoach, renderCoach, wireCoach } from "../../views/coach.js";
import { fitBoard, wideScreen } from "../../views/fit.js";
import { renderControls, wireControls } from "../../views/controls.js";
import {
  openGameDialog, openRoundDialog, renderGameButtons, renderGameRecord, renderNext, setPeek,
} from "../../views/dialogs.js";
import { $, anyModalOpen, closeDialog, escapeHtml, openDialog } from "../../lib/dom.js";
import {
  SEAT_ANGLE, aimVector, clamp, compass, placement, round, zoneOf,
} from "../../lib/geometry.js";
import { clearHints, hintAnswer, hintModel, hintRefused, hintScene, renderHints, wireHints } from "../../views/hints.js";
import { DEFAULT_POWER, aimProblem, cancelDrag, currentDrag, placementFeedback, wireInput } from "../../lib/input.js";
import { fillRules, fillRulesDiscs, readRules, renderLobby, wireHintsSwitch } from "../../views/lobby.js";
import { Connection } from "../../lib/net.js";
import { rankedConnected, rankedMessage, wireRanked } from "../../views/ranked.js";
import { challengeConnected, challengeReceived, challengeSettings, wireChallenge } from "../../views/challenge.js";
import { CHALLENGE_GAMES } from "../../views/bots.js";
import { renderClock, renderReactions, renderScoreboard } from "../../views/scoreboard.js";
import { play, setSoundEnabled } from "../../lib/sound.js";
import { popShotTwenties, popTwenty } from "../../views/pop.js";
import { wireSettings } from "../../views/settings.js";
import { createFrom, fillStart, readStart, renderRecord, updateStartForm, wireStart } from "./start.js";
import {
  bottomSeat, clock, codeFromPath, eventGap, gameEnded, initialState, isHotSeat, isSpectator, leaveTable, levelName, memberOf,
  nearestFree, normalizeCode, placementProblem, reactionLine, reduce, seatOf, serverNow, shooter, standInText,
  turnText, withConnection,
} from "../../lib/state.js";
import { deviceToken, loadGame, loadPrefs, saveGame, savePrefs } from "../../lib/store.js";
import { cap, describeShot, foulTone, viewerOf, whose } from "../../lib/words.js";

const params = new URLSearchParams(location.search);
const TEST_ROUNDS = Number.parseInt(params.get("rounds") || "", 10);
const TEST_TURN_TIME = Number.parseFloat(params.get("turn_time") || "");
const SPEED = clamp(Number.parseFloat(params.get("speed") || "1") || 1, 0.1, 20);
// Tests may shorten the CPU's pause from the address (?cpu_pause=0); players use Settings.
const PAUSE_PARAM = Number.parseFloat(params.get("cpu_pause") ?? "");
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");
const touchScreen = window.matchMedia("(pointer: coarse)");
// R6: on one device the round result moves on by itself after this long, counted from when it
// is shown (tests may shorten it from the address: ?round_countdown=2).
// ?table=<id>: open that table of this device's (an event's page sends a player to theirs).
const WANTED_TABLE = /^[0-9a-f]{32}$/.test(params.get("table") || "") ? params.get("table") : null;
const ROUND_COUNTDOWN = clamp(Number.parseFloat(params.get("round_countdown") || "10") || 10, 0.5, 60);
const BUSY_AFTER_MS = 600; // an answer slower than this shows the "server is working" sign
const SEAT_WORD = { south: "South", west: "West", north: "North", east: "East" };
const WHERE = { 90: "right", 180: "top", 270: "left" }; // a seat's place on screen, by its angle from the bottom seat

/** This page's clock in seconds (monotonic); only ever compared with itself plus the offset. */
const localNow = () => performance.now() / 1000;

// ------------------------------------------------------------------ state

let S = initialState(); // what the server said (state.js)
const UI = {
  token: deviceToken(),
  prefs: loadPrefs(),
  queue: [], // server messages waiting to be shown, in order
  toLobby: false, // a finished party's lobby shown to fill a seat left empty
  left: {}, // {seat: name} of this game's players who left the party (a CPU plays their seats)
  processing: false,
  paused: false,
  pending: null, // {type, at} of a request awaiting its answer
  aim: {},
  screen: "start",
  thinking: false,
  lastShot: null,
  roundShown: null, // key of the round result on screen
  gameShown: null, // key of the game result on screen
  joinLink: codeFromPath(location.pathname), // {code, spectator} of a /join or /watch link
  reopened: false, // this page went back to the device's party once (R7)
  startConfirmed: false, // the player was told a new game abandons the unfinished one
  roundLeft: null, // seconds before a round result on one device moves on by itself
  counted: null, // "table/game" whose `finished` (with the record counting it) was shown
};

const view = new BoardView($("board"));
const shots = new ShotAnimation({
  speed: SPEED, paused: () => UI.paused, onFrame: () => draw(), onSound: (name) => play(name),
  onTwenty: (drop, n) => popTwenty(view, drop, n),
});
const conn = new Connection({
  hello: () => ({
    type: "hello",
    token: UI.token,
    table: S.table,
    last_event: S.table && Number.isInteger(S.event) ? S.event : null,
  }),
  // The party (or else the table) in the socket's address, for the load balancer.
  at: () => ({ party: S.code || (UI.joinLink && UI.joinLink.code), table: S.table }),
  onMessage: receive,
  onStatus: connectionStatus,
});

// ------------------------------------------------------------------ helpers

function aimOf(seat) {
  if (!UI.aim[seat]) UI.aim[seat] = { position: 0, direction: 0, power: DEFAULT_POWER };
  return UI.aim[seat];
}

/** Several people on one device: the board turns toward the player to move (Settings may fix it). */
function turnBoard() {
  return !UI.prefs.fixed_board;
}

function cpuPause() {
  if (Number.isFinite(PAUSE_PARAM)) return clamp(PAUSE_PARAM, 0, 5);
  const v = Number.parseFloat(UI.prefs.cpu_pause);
  return Number.isFinite(v) ? clamp(v, 0, 5) : 0.8;
}

function sleep(ms) {
  return new Promise((resolve) => {
    setTimeout(resolve, ms);
  });
}

function sideOfSeat(game, seat) {
  const x = game.seats.find((y) => y.seat === seat);
  return x ? x.side : 0;
}

/** The seat whose shot the controls set now, or null when no input is allowed. */
function myShooter() {
  return UI.screen === "game" ? shooter(S) : null;
}

function canInput() {
  return (
    myShooter() !== null && !shots.running && !UI.processing && UI.queue.length === 0 && !UI.paused
    && !UI.pending && !anyModalOpen() && S.connection === "open"
  );
}

function viewer(game) {
  return viewerOf(game, S.you.seats, isHotSeat(S) || isSpectator(S));
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

function fmt(v, digits = 1) {
  return round(v, digits).toFixed(digits);
}

function persist() {
  if (!S.table) {
    saveGame(null);
    return;
  }
  const { connection, ...kept } = S;
  saveGame({ table: S.table, event: S.event, state: kept, aim: UI.aim });
}

function send(msg) {
  if (!conn.send(msg)) {
    showStatus("Not connected to the server — reconnecting…", true);
    return false;
  }
  if (msg.type !== "ping" && msg.type !== "react") {
    UI.pending = { type: msg.type, at: performance.now() };
    setTimeout(renderBusy, BUSY_AFTER_MS + 20);
  }
  refresh();
  return true;
}

/** The "server is working" sign: shown while an answer takes more than a moment. */
function renderBusy() {
  const slow = Boolean(UI.pending) && performance.now() - UI.pending.at >= BUSY_AFTER_MS && S.connection === "open";
  if (slow) {
    $("busy-text").textContent = ["create", "rematch", "start", "join"].includes(UI.pending.type)
      ? "Setting up the game…"
      : "The server is working…";
  }
  $("busy").hidden = !slow;
}

/** A line for the player, where they look: the start screen, the lobby or the game. */
function showStatus(text, bad = false) {
  if (UI.screen === "game") {
    setMessage(text, bad);
    return;
  }
  const target = UI.screen === "lobby" ? $("lobby-status") : $("join-form").contains(document.activeElement) ? $("join-status") : startStatus();
  target.textContent = text;
  target.classList.toggle("status-bad", bad);
}

function startStatus() {
  let e = $("start-status");
  if (!e) {
    e = document.createElement("p");
    e.id = "start-status";
    e.setAttribute("role", "status");
    e.className = "note";
    $("start-form").append(e);
  }
  return e;
}

// ------------------------------------------------------------------ connection

function connectionStatus(status) {
  S = withConnection(S, status);
  const e = $("connection");
  if (status === "open") {
    e.hidden = true;
    UI.pending = null;
    rankedConnected(); // a page that was in the ranked queue asks again
  } else {
    e.hidden = false;
    e.textContent = status === "reconnecting" ? "Connection lost — reconnecting…" : "Connecting…";
  }
  refresh();
}

function receive(msg) {
  if (rankedMessage(msg)) return; // the ranked queue's messages and refusals (ranked.js)
  if (challengeReceived(msg)) return; // a challenge to a bot: sent, declined, refused (challenge.js)
  switch (msg.type) {
    case "pong":
      S = reduce(S, msg, localNow());
      return;
    case "error":
      if (hintRefused(msg)) return; // a hint or heat map refused (hints.js)
      onError(msg);
      return;
    case "hints":
    case "heatmap":
      hintAnswer(msg); // for this client only, never queued: drawing, not an event of the table
      countedEvent(msg);
      return;
    case "welcome":
      onWelcome(msg);
      return;
    default:
      enqueue(msg);
  }
}

/**
 * An answer that carries the table's event number (a hint's answer names the event that
 * counted it) moves the count of events received, so the next event is not taken for a gap.
 */
function countedEvent(msg) {
  if (!S.table || msg.table !== S.table || !Number.isInteger(msg.event) || UI.resyncing) return;
  const received = UI.received ?? S.event;
  if (Number.isInteger(received) && msg.event <= received + 1) UI.received = Math.max(received, msg.event);
}

function enqueue(msg) {
  const snapshot = msg.type === "table" || msg.type === "game_started";
  if (snapshot) {
    UI.resyncing = false;
    UI.received = msg.event;
  } else if (S.table && msg.table === S.table && Number.isInteger(msg.event)) {
    if (UI.resyncing) return; // the whole table is on its way
    if (eventGap(S, UI.received ?? S.event, msg)) {
      // Events were lost on the way: ask for the table whole and drop its events until it comes.
      UI.resyncing = true;
      send({ type: "open", table: S.table, last_event: null });
      return;
    }
    UI.received = Math.max(UI.received ?? msg.event, msg.event);
  }
  if (snapshot && msg.view && msg.view.table !== S.table) {
    // Another table (created, joined, continued): what was queued belongs to the old one.
    UI.queue.length = 0;
    shots.finish();
  }
  if (UI.pending && (msg.type !== "shot" || UI.pending.type === "shoot")) UI.pending = null;
  UI.queue.push(msg);
  pump();
}

async function pump() {
  if (UI.processing) return;
  UI.processing = true;
  try {
    while (UI.queue.length && !UI.paused) {
      const msg = UI.queue.shift();
      await showEvent(msg);
      persist();
    }
  } finally {
    UI.processing = false;
  }
  refresh();
  if (canInput()) announceTurn();
}

function onError(msg) {
  const pending = UI.pending;
  UI.pending = null;
  UI.resyncing = false; // an open refused: the table's events are taken as they come again
  S = reduce(S, msg, localNow());
  const text = msg.message || msg.code || "refused";
  if (msg.code === "hello_first") {
    conn.restart();
    return;
  }
  if (msg.code === "unknown_table" || msg.code === "not_a_member" || (msg.code === "closed" && pending && pending.type === "open")) {
    forgetTable();
    showStart();
    showStatus("That game is no longer available. Start a new one.");
    return;
  }
  if (pending && pending.type === "next_round" && msg.code === "illegal_action") {
    refresh(); // the round had already moved on
    return;
  }
  if (msg.code === "illegal_placement") setMessage(`Can't place there: ${text}`, true);
  else showStatus(text, true);
  refresh();
}

function onWelcome(msg) {
  UI.pending = null;
  UI.resyncing = false; // a new connection: the server sends what this one missed since S.event
  UI.received = null;
  S = reduce(S, msg, localNow());
  setLevels();
  renderRecord(S);
  const mine = S.myTables.filter((t) => t.stage !== "closed" && t.table !== S.table);
  $("continue-box").hidden = !mine.length || UI.screen !== "start";
  if (mine.length) {
    const t = mine[0];
    $("continue-text").textContent = t.kind === "party"
      ? `You are in a party (${t.stage === "lobby" ? "in its lobby" : "game in progress"}).`
      : "You have an unfinished game.";
    $("continue-button").textContent = t.kind === "party" ? "Back to the party" : "Continue game";
  }
  if (!S.table && WANTED_TABLE && !UI.reopened) {
    // The page was sent to one of this device's tables (?table=): it opens that one.
    UI.reopened = true;
    send({ type: "open", table: WANTED_TABLE, last_event: null });
  }
  const party = mine.find((t) => t.kind === "party");
  if (!S.table && !UI.joinLink && party && !UI.reopened) {
    // R7: this device is in a party: reopening the page goes back to its seat.
    UI.reopened = true;
    send({ type: "open", table: party.table, last_event: null });
  }
  challengeConnected(); // /?challenge=<bot>: the challenge goes once the server knows this page
  if (!S.table && UI.joinLink && UI.joinLink.spectator && !UI.joinLink.sent) {
    UI.joinLink.sent = true;
    join(UI.joinLink.code, UI.prefs.names?.me || "Spectator", true);
  }
  refresh();
}

/** The CPU levels the server offers (welcome.levels) become the level choices. */
function setLevels() {
  const fill = (select, keep) => {
    const value = select.value || keep;
    select.replaceChildren(...S.levels.map((l) => new Option(`CPU ${l.name}`, l.id)));
    if (S.levels.some((l) => l.id === value)) select.value = value;
  };
  fill($("start-form").elements.opponent, UI.prefs.opponent);
  fill($("start-form").elements.standin_level, "normal");
  fill($("rules-form").elements.standin_level, "normal");
}

function forgetTable() {
  S = leaveTable(S);
  UI.queue.length = 0;
  UI.roundShown = null;
  UI.gameShown = null;
  shots.finish();
  persist();
}

// ------------------------------------------------------------------ events

async function showEvent(msg) {
  const before = S;
  if (msg.type === "shot" && msg.table === S.table && !(Number.isInteger(msg.event) && msg.event <= S.event) && !missedShot(msg)) {
    if (msg.by && msg.by !== "person") await thinkingPause(msg);
    if (msg.table !== S.table) return;
    await animateShot(msg);
  }
  S = reduce(S, msg, localNow());
  if (S === before) return;
  afterEvent(msg, before);
}

/**
 * A shot this page missed (closed, offline) and is sent again on its return: the server sends
 * the missed events in one burst, with one server time, and each of its commands has one shot at
 * most. All but the last such shot are shown at once (no pause, no animation), so that a player
 * back at the table is not kept waiting through every one while the game goes on.
 */
function missedShot(msg) {
  return UI.queue.some((m) => m.type === "shot" && m.table === msg.table && m.server_time === msg.server_time && m.event > msg.event);
}

/** What an event changes on screen besides the state: screens, dialogs, words, sounds. */
function afterEvent(msg, before) {
  if (before.table !== S.table || msg.type === "game_started") {
    UI.left = {};
    UI.toLobby = false;
  }
  if (before.table !== S.table) {
    UI.roundShown = null;
    UI.gameShown = null;
    // A new game on this device resigned its other unfinished ones (the server did).
    if (S.kind === "solo") S = { ...S, myTables: S.myTables.filter((t) => t.kind !== "solo" || t.table === S.table) };
    if (S.table && UI.joinLink) {
      UI.joinLink = null;
      history.replaceState(null, "", "/");
    }
  }
  if (msg.type === "game_started") {
    closeDialog($("round-dialog"));
    closeDialog($("game-dialog"));
    UI.roundShown = null;
    UI.gameShown = null;
    setMessage(S.game && before.stage === "finished" ? "A new game begins." : "");
  }
  if (msg.type === "shot" || msg.type === "timeout") {
    const entry = S.log[S.log.length - 1];
    const text = logText(entry);
    // Your own foul in red; another player's in the message's plain tone.
    setMessage(text, foulTone(entry, S.you.seats) === "mine");
  }
  // The record that counts this game comes with its `finished` (the last shot, which ends the
  // game, comes first), or with a table opened after the end (welcome's record is current).
  if (msg.type === "finished" || (msg.type === "table" && gameEnded(S))) UI.counted = `${S.table}/${S.gameNumber}`;
  if (msg.type === "round") {
    closeDialog($("round-dialog"));
    UI.roundShown = null;
    setMessage(`Round ${S.game.round} begins.`);
  }
  if (msg.type === "reaction") {
    const r = S.reactions[S.reactions.length - 1];
    if (r) announce(reactionLine(S, r));
  }
  if (msg.type === "stand_in" && msg.seat) {
    const x = seatOf(S, msg.seat);
    const name = x && x.occupant ? x.occupant.name : SEAT_WORD[msg.seat];
    setMessage(msg.on ? `${name} is away: a CPU plays for them.` : `${name} is back.`);
  }
  if ((msg.type === "member" || msg.type === "seat") && S.stage === "playing" && S.game) tellMemberChange(msg, before);
  if (msg.type === "member" && msg.change === "removed" && before.you.member && msg.member === before.you.member) {
    startAfterParty("The host removed you from the party.");
    return;
  }
  if (msg.type === "closed") {
    const reason = S.closed;
    closeDialog($("round-dialog"));
    if (S.game && S.game.phase !== "game_over" && S.kind === "solo") {
      // A resigned game: its result, then the start screen.
    } else if (!S.game) {
      startAfterParty(reason === "removed" ? "The host removed you from the party." : "The party was closed.");
      return;
    }
  }
  syncScreen();
}

function logText(entry) {
  if (!entry) return "";
  const g = S.game;
  if (entry.reason === "clock") {
    // R3: the turn clock ran out (the report's unplayed disc would read as "no room").
    const x = g.seats.find((y) => y.seat === entry.seat);
    return `Time ran out: ${S.you.seats.includes(entry.seat) && !isHotSeat(S) ? "your" : `${x ? x.name : SEAT_WORD[entry.seat]}'s`} disc goes to the ditch.`;
  }
  return describeShot(entry.report, viewer(g), entry.seat);
}

/** Which turn of the game a seat's turn now is (its discs in hand count down each turn). */
function turnKey(seat) {
  const g = S.game;
  const x = g.seats.find((y) => y.seat === seat);
  return `${S.table}/${S.gameNumber}/${g.round}/${x ? x.in_hand : ""}`;
}

/**
 * R3: a turn starts with the disc at the middle of the shooter's quarter (or the nearest free
 * place); the direction and power stay as that player last set them (the controls say so).
 */
function snapAim() {
  const seat = myShooter();
  if (!seat) return;
  const a = aimOf(seat);
  const key = turnKey(seat);
  if (a.turn !== key) {
    a.turn = key;
    a.position = 0;
  }
  if (problemAt(seat, a.position) === null) return;
  const free = nearestFree(S, seat, a.position);
  if (free !== null) a.position = round(free, 2);
}

/** The screen and dialogs that the state calls for. */
function syncScreen() {
  if (!S.table) {
    if (UI.screen !== "start") showStart();
    return;
  }
  if (S.stage === "lobby" || (UI.toLobby && S.stage === "finished" && S.kind === "party")) {
    showLobby();
    return;
  }
  if (!S.game) return;
  showGame();
  snapAim();
  const g = S.game;
  if (g.phase === "round_over" && !shots.running) {
    const key = `${S.table}/${g.round}/${g.history.length}`;
    if (UI.roundShown !== key) {
      UI.roundShown = key;
      UI.roundLeft = S.kind === "solo" ? ROUND_COUNTDOWN : null;
      openRoundDialog(S, localNow(), DIALOG_HOOKS);
    }
  } else {
    UI.roundLeft = null;
    closeDialog($("round-dialog"));
  }
  // A party's lobby part is the table as it is now: while a player who comes back catches up
  // on the shots they missed it may already say "finished". The game's own end (or an
  // abandoned or closed table) opens the result, not that.
  const ended = gameEnded(S);
  if (ended && !shots.running) {
    const key = `${S.table}/${g.history.length}/${S.stage}/${S.abandoned}`;
    if (UI.gameShown !== key) {
      UI.gameShown = key;
      openGameDialog(S, DIALOG_HOOKS);
    } else if ($("game-dialog").open) {
      renderGameButtons(S);
      renderGameRecord(S, DIALOG_HOOKS.levelName, DIALOG_HOOKS.counted());
    }
  }
}

/** During a game, a player who leaves (their seat goes to the CPU) and a new host are told. */
function tellMemberChange(msg, before) {
  if (msg.type === "seat") {
    // A person's seat handed to a CPU mid-game: they left the party, or the host removed them.
    const was = seatOf(before, msg.seat);
    const now = seatOf(S, msg.seat);
    const person = was && was.occupant && was.occupant.kind === "person" ? was.occupant : null;
    if (!person || !now || !now.occupant || now.occupant.kind !== "cpu") return;
    if (person.member === before.you.member) return;
    const name = person.name || (memberOf(before, person.member) || {}).name || SEAT_WORD[msg.seat];
    UI.left = { ...UI.left, [msg.seat]: name }; // the seat's card says whom the CPU replaced
    const text = `${name} left the party: a CPU plays for them for the rest of the game.`;
    setMessage(text);
    announce(text);
    return;
  }
  // (The lobby part of the messages before this one may already name the new host.)
  if (msg.change === "host" && msg.member === S.you.member) {
    const text = `${$("message").textContent} You are now the party's host.`.trim();
    setMessage(text);
    announce(text);
  }
}

/** The CPU's shot waits a moment after the last one ends, so "thinking…" is seen and the
 * previous result can be read; Settings shortens or removes the pause. */
async function thinkingPause(msg) {
  const ms = cpuPause() * 1000;
  if (ms <= 0) return;
  UI.thinking = true;
  refresh();
  let left = ms;
  while (left > 0 && msg.table === S.table) {
    const step = Math.min(left, 100);
    await sleep(step); // short steps: a pause taken meanwhile holds the CPU too
    if (!UI.paused) left -= step; // a paused game pauses the CPU too
  }
  UI.thinking = false;
}

let logKey = "";
function renderLog() {
  const key = `${S.table}/${S.game && S.game.round}/${S.log.length}/${S.log.length && S.log[S.log.length - 1].event}`;
  if (key === logKey) return;
  logKey = key;
  const list = $("shot-log");
  list.replaceChildren(
    ...S.log.map((e) => {
      const li = document.createElement("li");
      li.textContent = logText(e);
      const tone = foulTone(e, S.you.seats);
      if (tone) li.className = tone === "mine" ? "foul" : "foul theirs";
      return li;
    }).reverse(),
  );
  $("shot-log-empty").hidden = S.log.length > 0;
  $("shot-log-title").textContent = S.game ? `Shots in round ${S.game.round}` : "Shots this round";
}

// ------------------------------------------------------------------ animation

function animateShot(msg) {
  const traj = msg.trajectory;
  if (!S.game || !traj || !Array.isArray(traj.discs) || reducedMotion.matches || document.hidden || UI.screen !== "game") {
    if (S.game && traj && reducedMotion.matches && !document.hidden && UI.screen === "game") popShotTwenties(view, msg);
    return Promise.resolve();
  }
  const done = shots.play(S.game, msg, (owner) => sideOfSeat(msg.game, owner));
  refresh();
  return done;
}

// ------------------------------------------------------------------ drawing

let drawQueued = false;
function requestDraw() {
  if (drawQueued) return;
  drawQueued = true;
  requestAnimationFrame(() => {
    drawQueued = false;
    if (!shots.running) draw();
  });
}

/** What blocks a placement, in words for the player placing (the nearest disc). */
function inTheWay(seat, position) {
  const g = S.game;
  const c = placement(g.board, seat, position);
  let best = null;
  let dist = Infinity;
  for (const d of g.discs) {
    const k = Math.hypot(d.x - c.x, d.y - c.y);
    if (k < dist) {
      dist = k;
      best = d;
    }
  }
  if (!best) return null;
  if (best.owner === seat) return "one of your discs";
  return `${whose(viewer(g), best.owner)} disc`;
}

function problemAt(seat, position) {
  return placementProblem(S, seat, position, inTheWay(seat, position));
}

function draw() {
  if (!S.game || UI.screen !== "game") return;
  const game = shots.running ? shots.game : S.game;
  view.setBoard(game.board);
  // The discs in the ditch as the table has them now (during a shot, before it: a disc falls in as it fades).
  const scene = { game, ditch: S.game.sides.map((x, i) => ({ side: i, seats: x.seats, count: x.ditch ?? 0 })) };
  if (shots.running) Object.assign(scene, shots.scene());
  else {
    scene.discs = S.game.discs;
    scene.scores = S.game.phase !== "playing";
  }
  const seat = shots.running ? null : myShooter();
  if (seat) {
    const board = S.game.board;
    const aim = aimOf(seat);
    const live = canInput();
    scene.quarter = { angle: SEAT_ANGLE[seat], limit: S.game.placement_limit, active: live };
    const c = placement(board, seat, aim.position);
    const bad = problemAt(seat, aim.position) !== null;
    scene.ghost = { x: c.x, y: c.y, side: sideOfSeat(S.game, seat), bad };
    if (live && !bad) {
      const drag = currentDrag();
      const d = drag && drag.aiming ? drag : aim;
      const u = aimVector(board, seat, aim.position, d.direction);
      scene.aim = {
        x: c.x, y: c.y, ux: u.x, uy: u.y, power: d.power,
        invalid: Boolean(drag && drag.aiming && drag.invalid),
        pull: drag && drag.aiming ? drag.pointer : null,
      };
      if (drag && drag.dragging && !drag.aiming) scene.aim = null;
    }
    const aids = hintScene(S, seat);
    if (aids.hints) scene.hints = aids.hints;
    if (aids.heat) scene.heat = aids.heat;
  }
  view.draw(scene);
  renderCoach(coachTurn());
  // What is drawn over the board, for tests and tools (the canvas itself is pixels).
  view.canvas.dataset.hintLines = String(view.overlay.hints.length);
  view.canvas.dataset.heatCells = String(view.overlay.heat ? view.overlay.heat.cells : 0);
}

/** Where the first shot's coach points (views/coach.js): this device's disc waiting to be shot, or null. */
function coachTurn() {
  const seat = myShooter();
  if (!seat || shots.running || !canInput() || !view.board) return null;
  const c = placement(S.game.board, seat, aimOf(seat).position);
  return { disc: view.toScreen(c.x, c.y), centre: view.toScreen(0, 0), radius: S.game.board.surface_radius * view.scale };
}

/**
 * Size the board so that all of it is in the visible area, never under the controls:
 * on wide screens the full height beside the side column; otherwise the full width, and no
 * taller than the space between its top and the bottom of the screen.
 */
function layout() {
  document.body.classList.toggle("in-game", UI.screen === "game");
  if (UI.screen !== "game") return;
  if (fitBoard(view, { main: $("game-screen"), wrap: $("board-wrap"), side: $("side"), under: barUnder() })) draw();
  placeResultDialogs();
}

/**
 * The height of the player bar under the board (with the gap above it), where it is under the
 * board; 0 where it sits in the column beside it (short landscape screens: table.css).
 */
function barUnder() {
  const bar = $("bars-bottom").getBoundingClientRect();
  const wrap = $("board-wrap").getBoundingClientRect();
  if (!bar.height || bar.left >= wrap.right - 1 || bar.right <= wrap.left + 1) return 0;
  return bar.height + (Number.parseFloat(getComputedStyle($("game-screen")).rowGap) || 0);
}

/** On wide screens the result dialogs sit over the side column, beside the board. */
function placeResultDialogs() {
  const beside = UI.screen === "game" && wideScreen();
  const side = $("side").getBoundingClientRect();
  // From the top of the column beside the board (the player bars are there on short screens).
  const board = $("board-wrap").getBoundingClientRect();
  const column = [$("bars-top"), $("side")].map((e) => e.getBoundingClientRect()).filter((r) => r.left >= board.right - 1);
  const score = { top: Math.min(...column.map((r) => r.top), side.top) };
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

function updateBottom() {
  view.setBottom(bottomSeat(S, turnBoard()));
}

// ------------------------------------------------------------------ rendering of HTML parts

function refresh() {
  updateBottom();
  if (UI.screen === "lobby") renderLobby(S, act);
  if (UI.screen === "game") {
    renderScoreboard(S, {
      moving: shots.running ? null : S.game && S.game.current_seat, turnText: screenTurnText(), thinking: isThinking(),
      mine: myShooter() !== null && !shots.running, bottom: S.game ? sideOfSeat(S.game, bottomSeat(S, turnBoard())) : 0, left: UI.left,
    });
    renderClock(S, localNow());
    renderAim();
    renderHints(S);
    renderDiscList();
    renderReactions(S, send);
    renderLog();
  }
  if ($("game-dialog").open) renderGameRecord(S, DIALOG_HOOKS.levelName, DIALOG_HOOKS.counted());
  renderBusy();
  $("pause-button").disabled = UI.screen !== "game" || S.kind !== "solo";
  requestDraw();
  callBack();
}

// ------------------------------------------------------------------ your turn, in another tab

const PAGE_TITLE = document.title;
let attention = START; // attention.js's memo
let turnNote = null; // the Notification shown for the turn that waits

/** What vibrationWanted needs to know of this device. */
function vibrationEnv() {
  return { touch: touchScreen.matches, reducedMotion: reducedMotion.matches, canVibrate: typeof navigator.vibrate === "function" };
}

/** An online game waits for this player's shot: tell them, in another tab too (attention.js). */
function callBack() {
  const r = attend(attention, {
    turn: awaitedTurn(S),
    visible: document.visibilityState === "visible",
    focused: document.hasFocus(),
    notify: Boolean(UI.prefs.notify) && "Notification" in window && Notification.permission === "granted",
    vibrate: vibrationWanted(UI.prefs.vibrate, vibrationEnv()),
  });
  attention = r.memo;
  const title = r.alert ? TURN_TITLE : PAGE_TITLE;
  if (document.title !== title) document.title = title;
  const icon = document.querySelector('link[rel="icon"]');
  const href = r.alert ? TURN_FAVICON : FAVICON;
  if (icon && icon.getAttribute("href") !== href) icon.setAttribute("href", href);
  if (r.close && turnNote) {
    turnNote.close();
    turnNote = null;
  }
  if (r.notify) {
    try {
      const note = new Notification(r.notify.title, { body: r.notify.body, tag: r.notify.tag, icon: TURN_FAVICON });
      note.addEventListener("click", () => {
        window.focus();
        note.close();
      });
      turnNote = note;
    } catch {
      turnNote = null; // Chrome on Android shows notifications only from a service worker
    }
  }
  if (r.vibrate) navigator.vibrate(VIBRATION_MS);
}

function isThinking() {
  const g = S.game;
  if (UI.thinking) return true;
  if (shots.running || !g || g.phase !== "playing") return false;
  const info = g.seats.find((x) => x.seat === g.current_seat);
  const x = seatOf(S, g.current_seat);
  return Boolean((info && info.cpu) || (x && x.occupant && x.occupant.stand_in));
}

function screenTurnText() {
  if (!S.game) return "";
  if (UI.paused) return "Paused";
  if (shots.running) return "Discs moving…";
  const g = S.game;
  const info = g.seats.find((x) => x.seat === g.current_seat);
  // A stand-in's pause is "CPU playing for Ann…" (turnText), not "Ann is thinking…".
  if (UI.thinking && info && !standInText(S, g.current_seat)) return `${info.name} is thinking…`;
  return turnText(S);
}

let lastAnnounced = "";
function announceTurn() {
  const g = S.game;
  if (!g || g.phase !== "playing") return;
  const key = `${S.table}/${S.event}`;
  if (key === lastAnnounced) return;
  lastAnnounced = key;
  const scores = g.sides.map((x, i) => `${g.seats.filter((y) => y.side === i).map((y) => y.name).join(" & ")} ${x.round_total}`).join(", ");
  announce(`${screenTurnText()}. This round: ${scores}.`);
}

function renderAim() {
  const g = S.game;
  if (!g) return;
  const seat = myShooter();
  const live = canInput();
  const shown = seat || (g.current_seat && S.you.seats.includes(g.current_seat) ? g.current_seat : S.you.seats[0]);
  const opts = { live, limit: g.placement_limit, aim: null };
  if (shown) {
    const a = aimOf(shown);
    const info = g.seats.find((x) => x.seat === shown);
    const waiting = !seat && g.phase === "playing" ? screenTurnText() : "";
    const drag = currentDrag();
    const where = WHERE[(SEAT_ANGLE[shown] - SEAT_ANGLE[bottomSeat(S, turnBoard())] + 360) % 360];
    Object.assign(opts, {
      aim: a,
      shown: drag && drag.aiming && !drag.invalid ? drag : a,
      legend: waiting || (isHotSeat(S) && info ? `${info.name}'s shot` : "Your shot"),
      hint: where && isHotSeat(S)
        ? `${info ? info.name : "This player"} shoots from the ${where}: position and direction are seen from their chair — positive turns to their right.`
        : "Position 0° is the middle of your quarter; direction 0° points at the centre, positive to your right.",
    });
  }
  $("controls").hidden = isSpectator(S);
  renderControls(opts);
}

function zoneWords(z) {
  return z === 0 ? "on or beyond the shooting line" : z === 20 ? "over the 20 hole" : `in the ${z} zone`;
}

function renderDiscList() {
  const g = S.game;
  const list = $("disc-list");
  if (!g) return;
  const v = viewer(g);
  const items = g.discs.map((d) => {
    const z = zoneOf(g.board, d.x, d.y);
    const dist = Math.hypot(d.x, d.y);
    return `<li>${escapeHtml(cap(whose(v, d.owner)))} disc ${zoneWords(z)}, ${fmt(dist)} inches ${compass(d.x, d.y)} of the centre</li>`;
  });
  list.innerHTML = items.join("") || "<li>No discs on the board.</li>";
  const seat = myShooter();
  let label = `Crokinole board seen from ${bottomSeat(S, turnBoard())}: ${g.discs.length} disc${g.discs.length === 1 ? "" : "s"} on the board. ${screenTurnText()}.`;
  if (seat) {
    const a = aimOf(seat);
    label += ` Disc placed at ${fmt(a.position)} degrees, aim ${fmt(a.direction)} degrees, power ${fmt(a.power)} percent.`;
  }
  $("board").setAttribute("aria-label", label);
}

// ------------------------------------------------------------------ screens and dialogs

function setScreen(name) {
  UI.screen = name;
  $("start-screen").hidden = name !== "start";
  $("lobby-screen").hidden = name !== "lobby";
  $("game-screen").hidden = name !== "game";
  if (name !== "game") {
    closeDialog($("round-dialog"));
    closeDialog($("game-dialog"));
  }
}

function showStart() {
  if (UI.screen !== "start") fillStart(UI.prefs, S.levels, UI.joinLink);
  setScreen("start");
  updateStartForm();
  resetStartConfirm();
  layout();
  refresh();
  // The device token goes in a header, never in the address (it would land in access logs).
  fetchJson("/api/record", { token: true }).then((r) => {
    if (!r.ok) return;
    if (r.body.record) S = { ...S, record: r.body.record };
    renderRecord(S);
  });
}

function showLobby() {
  if (UI.screen !== "lobby") {
    setScreen("lobby");
    layout();
  }
  renderLobby(S, act);
  refresh();
}

function showGame() {
  if (UI.screen === "game") return;
  setScreen("game");
  layout();
  renderLog();
  refresh();
  $("board").focus({ preventScroll: true });
}

function confirmNextRound() {
  UI.roundLeft = null;
  if (S.game && S.game.phase === "round_over" && send({ type: "next_round", table: S.table })) {
    $("next-button").disabled = true;
    $("next-button").textContent = "Waiting…";
  }
}

const DIALOG_HOOKS = {
  say: (text) => announce(text), place: () => placeResultDialogs(), levelName: (lvl) => levelName(S, lvl),
  roundLeft: () => UI.roundLeft, counted: () => UI.counted === `${S.table}/${S.gameNumber}`,
};

// ------------------------------------------------------------------ actions

function act(msg) {
  return send(msg);
}

function shoot() {
  const seat = myShooter();
  if (!seat || !canInput()) return;
  const a = aimOf(seat);
  const problem = aimProblem(problemAt, seat, a);
  if (problem) {
    setMessage(problem, true);
    return;
  }
  setMessage("");
  hideCoach();
  play("shoot");
  const msg = {
    type: "shoot", table: S.table, seat,
    position: round(a.position, 2), direction: round(a.direction, 2), power: round(a.power, 2),
  };
  if (send(msg)) {
    UI.lastShot = msg;
    clearHints(); // the lines and the heat map were for this shot
  }
}

function join(code, name, spectator) {
  const c = normalizeCode(code);
  if (c.length !== 6) {
    $("join-status").textContent = "A party code has 6 letters and digits, like ABC234.";
    $("join-status").classList.add("status-bad");
    return false;
  }
  $("join-status").classList.remove("status-bad");
  $("join-status").textContent = spectator ? "Joining as a spectator…" : "Joining…";
  return send({ type: "join", code: c, name: (name || "").trim().slice(0, 24) || "Player", spectator: Boolean(spectator) });
}

function setPaused(on) {
  if (on === UI.paused) return;
  UI.paused = on;
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
  UI.prefs.sound = on;
  savePrefs(UI.prefs);
  setSoundEnabled(on);
  const b = $("sound-toggle");
  b.setAttribute("aria-pressed", String(on));
  b.textContent = on ? "Sound on" : "Sound off";
  $("settings-sound").checked = on;
  if (on) play("disc");
}

// ------------------------------------------------------------------ wiring

function wire() {
  wireControls((name, v) => {
    const seat = myShooter();
    if (!seat) return;
    const a = aimOf(seat);
    const lim = S.game.placement_limit;
    if (name === "position") a.position = clamp(v, -lim, lim);
    if (name === "direction") a.direction = clamp(v, -90, 90);
    if (name === "power") a.power = clamp(v, 0, 100);
    if (name === "position") placementFeedback(seat);
    refresh();
  }, shoot, { fold: true });

  wireCoach({
    seen: () => Boolean(UI.prefs.coached),
    remember: () => {
      UI.prefs.coached = true;
      savePrefs(UI.prefs);
    },
  });

  wireInput(view, {
    game: () => S.game, shooter: myShooter, canInput, inGame: () => UI.screen === "game", aimOf, problemAt,
    setMessage, refresh, requestDraw, renderAim, shoot,
  });

  wireHints({
    state: () => S, shooter: myShooter, canInput, appPending: () => Boolean(UI.pending), aimOf, problemAt,
    setMessage, refresh, inGame: () => UI.screen === "game",
    // Not through send(): a hint awaited must not hold the aim and Shoot (nor show "working").
    send: (msg) => {
      if (conn.send(msg)) return true;
      showStatus("Not connected to the server — reconnecting…", true);
      return false;
    },
  });

  wireStart(); // the big choices (start.js)
  const form = $("start-form");
  form.addEventListener("change", (ev) => {
    if (["mode", "layout", "people"].includes(ev.target.name)) {
      updateStartForm(ev.target.name);
      resetStartConfirm();
    }
  });
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const o = readStart();
    if (o.mode === "party" && !o.name) {
      // The others see this name in the lobby and on every turn ("You" would read as themselves).
      showStatus("Enter your name: the other players see it.", true);
      form.elements.name.focus();
      return;
    }
    // A new game on this device resigns its unfinished one (a loss against the CPU): ask first.
    const unfinished = S.myTables.some((t) => t.kind === "solo" && t.stage === "playing");
    if (o.mode !== "party" && unfinished && !UI.startConfirmed) {
      UI.startConfirmed = true;
      $("start-confirm").hidden = false;
      $("start-button").textContent = "Yes, abandon it and start";
      return;
    }
    resetStartConfirm();
    UI.prefs = {
      ...UI.prefs, mode: o.mode, layout: o.layout, opponent: o.opponent, scoring: o.scoring, discs: o.discs,
      required_contact: o.required_contact,
      names: { ...UI.prefs.names, me: o.name, ...(o.mode === "device" ? { seats: o.names } : {}) },
    };
    savePrefs(UI.prefs);
    if (send(createFrom(o, { rounds: TEST_ROUNDS, turnTime: TEST_TURN_TIME }))) showStatus(o.mode === "party" ? "Creating the party…" : "Starting…");
  });
  $("join-form").addEventListener("submit", (ev) => {
    ev.preventDefault();
    const f = $("join-form").elements;
    const name = f.name.value.trim();
    if (name) {
      UI.prefs.names = { ...UI.prefs.names, me: name };
      savePrefs(UI.prefs);
    }
    if (!name && !f.spectator.checked) {
      $("join-status").textContent = "Enter your name: the other players see it.";
      $("join-status").classList.add("status-bad");
      f.name.focus();
      return;
    }
    join(f.code.value, name, f.spectator.checked);
  });
  $("continue-button").addEventListener("click", () => {
    const t = S.myTables.find((x) => x.stage !== "closed" && x.table !== S.table);
    if (!t) return;
    $("continue-box").hidden = true;
    showStatus("Loading your game…");
    send({ type: "open", table: t.table, last_event: null });
  });

  $("copy-button").addEventListener("click", async () => {
    const link = $("invite-link").value;
    try {
      await navigator.clipboard.writeText(link);
      $("copy-status").textContent = "Link copied. Send it to your friends, or read them the code.";
    } catch {
      $("invite-link").select();
      $("copy-status").textContent = "Select the link and copy it, or read your friends the code.";
    }
  });
  $("leave-button").addEventListener("click", leave);
  $("party-start-button").addEventListener("click", () => send({ type: "start", table: S.table }));
  $("rules-button").addEventListener("click", () => {
    fillRules(S.settings || {});
    openDialog($("rules-dialog"));
  });
  $("rules-form").elements.layout.addEventListener("change", () => fillRulesDiscs());
  $("rules-apply").addEventListener("click", () => {
    const settings = readRules(S.settings);
    closeDialog($("rules-dialog"));
    send({ type: "settings", table: S.table, settings });
  });
  $("rules-close").addEventListener("click", () => closeDialog($("rules-dialog")));
  wireHintsSwitch(() => S, act);

  $("next-button").addEventListener("click", confirmNextRound);
  $("peek-button").addEventListener("click", () => setPeek(!$("round-dialog").classList.contains("peek")));
  for (const id of ["round-dialog", "game-dialog"]) {
    $(id).addEventListener("cancel", (ev) => ev.preventDefault());
  }
  $("rematch-button").addEventListener("click", () => {
    if ($("rematch-button").dataset.action === "lobby") {
      // The host fills the empty seat (or a friend takes it) in the lobby, then starts.
      UI.toLobby = true;
      closeDialog($("game-dialog"));
      syncScreen();
      return;
    }
    if (send({ type: "rematch", table: S.table })) $("rematch-button").disabled = true;
  });
  $("decline-button").addEventListener("click", () => {
    if (send({ type: "decline_rematch", table: S.table })) $("decline-button").hidden = true;
  });
  $("new-game-button").addEventListener("click", () => {
    closeDialog($("game-dialog"));
    leave();
  });

  $("pause-button").addEventListener("click", () => setPaused(!UI.paused));
  $("resume-button").addEventListener("click", () => setPaused(false));
  $("pause-dialog").addEventListener("cancel", (ev) => {
    ev.preventDefault();
    setPaused(false);
  });

  $("sound-toggle").addEventListener("click", () => setSound(!UI.prefs.sound));

  wireRanked({
    send: (msg) => conn.send(msg),
    // Matched: the ranked table is opened as a party this device belongs to.
    open: (table) => {
      if (S.table && S.table !== table) forgetTable();
      send({ type: "open", table, last_event: null });
    },
    canQueue: () => "",
    reconnect: () => conn.restart(),
  });

  wireChallenge({
    send: (msg) => conn.send(msg),
    open: (table) => {
      if (S.table && S.table !== table) forgetTable();
      send({ type: "open", table, last_event: null });
    },
    settings: () => challengeSettings(location.search, CHALLENGE_GAMES), // the bots page's choice
    serverNow: () => serverNow(S, localNow()),
  });

  wireSettings({
    state: () => S, screen: () => UI.screen, prefs: () => UI.prefs, cpuPause, setSound, applyScheme, refresh,
    send, leave, vibration: vibrationEnv,
    leftParty: () => startAfterParty("You left the party."),
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
    if (UI.pending && performance.now() - UI.pending.at > 15000) {
      UI.pending = null;
      refresh();
    }
  }, 3000);
  // The clocks on screen: the turn clock, the stand-in grace and the round countdown (on one
  // device the page's own: it holds while the game is paused, and presses Next at 0).
  let ticked = localNow();
  setInterval(() => {
    const now = localNow();
    const step = now - ticked;
    ticked = now;
    if (UI.screen !== "game") return;
    if (UI.roundLeft !== null && !UI.paused && $("round-dialog").open) {
      UI.roundLeft = Math.max(0, UI.roundLeft - step);
      if (UI.roundLeft === 0) confirmNextRound();
    }
    renderClock(S, now);
    renderNext(S, now, UI.roundLeft);
  }, 250);
  if (window.ResizeObserver) {
    const sizes = new ResizeObserver(layout);
    for (const id of ["game-screen", "bars-top", "bars-bottom"]) sizes.observe($(id));
  }
  // Back online, or back to the page: the socket may be dead however open it says it is (a
  // phone changed network meanwhile), so a new one is opened whatever its state.
  window.addEventListener("online", () => conn.restart());
  document.addEventListener("visibilitychange", () => {
    if (document.visibilityState === "visible") conn.restart();
    callBack();
  });
  window.addEventListener("focus", callBack);
  window.addEventListener("blur", callBack);
  reducedMotion.addEventListener?.("change", () => {
    if (reducedMotion.matches) shots.finish();
  });
}

function resetStartConfirm() {
  UI.startConfirmed = false;
  $("start-confirm").hidden = true;
  $("start-button").textContent = $("start-form").elements.mode.value === "party" ? "Create the party" : "Start";
}

/** Leave the table on screen: a party is left for good; a solo game in progress is resigned. */
function leave() {
  const party = Boolean(S.table) && S.kind === "party";
  if (S.table && S.stage !== "closed") {
    if (S.kind === "party") send({ type: "leave", table: S.table });
    else if (S.stage === "playing") send({ type: "resign", table: S.table });
  }
  UI.pending = null;
  if (party) {
    startAfterParty("You left the party.");
    return;
  }
  forgetTable();
  showStart();
}

/** Back on the start screen from a party, told why: no "Joining…" or code left from joining it. */
function startAfterParty(text) {
  forgetTable();
  showStart();
  $("join-form").elements.code.value = "";
  $("join-title").textContent = "Join a party";
  $("join-status").textContent = "";
  $("join-status").classList.remove("status-bad");
  showStatus(text);
}

function applyScheme() {
  setScheme(UI.prefs.scheme || "classic");
  view.invalidate();
  refresh(); // redraws the board and the scoreboard's marks in the new colours
}

let helpLoaded = false;
async function loadHelp() {
  if (helpLoaded) return;
  const r = await fetchText("/how-to-play");
  if (r.ok) {
    const doc = new DOMParser().parseFromString(r.text, "text/html");
    const main = doc.querySelector("main");
    if (main) {
      // The page's headings, one level down under the dialog's (its h1 is the dialog's h2).
      for (const h of Array.from(main.querySelectorAll("h1, h2, h3, h4, h5"))) {
        const lower = doc.createElement(`h${Number(h.tagName[1]) + 1}`);
        for (const a of Array.from(h.attributes)) lower.setAttribute(a.name, a.value);
        lower.append(...h.childNodes);
        h.replaceWith(lower);
      }
      $("help-body").innerHTML = main.innerHTML;
      helpLoaded = true;
    }
  } else {
    $("help-body").innerHTML = '<h2 id="help-title">How to play</h2><p>The rules could not be loaded; try again when connected.</p>';
  }
}

// ------------------------------------------------------------------ test hooks (read-only)

const api = {};
Object.defineProperties(api, {
  state: { get: () => S.game, enumerable: true },
  view: {
    get: () => JSON.parse(JSON.stringify({
      table: S.table, kind: S.kind, code: S.code, invite: S.invite, stage: S.stage, host: S.host, you: S.you,
      members: S.members, seats: S.seats, settings: S.settings, deadline: S.deadline, placement: S.placement,
      spectators: S.spectators, nextPressed: S.nextPressed, rematchVotes: S.rematchVotes, error: S.error,
      hints_used: S.hintsUsed,
    })),
    enumerable: true,
  },
  screen: { get: () => UI.screen, enumerable: true },
  animating: { get: () => shots.running, enumerable: true },
  lastEvent: { get: () => S.event, enumerable: true },
  you: { get: () => S.you.seats.slice(), enumerable: true },
  table: { get: () => S.table, enumerable: true },
  room: { get: () => S.table, enumerable: true },
  busy: { get: () => shots.running || UI.processing || UI.queue.length > 0 || Boolean(UI.pending), enumerable: true },
  thinking: { get: () => UI.thinking, enumerable: true },
  log: { get: () => S.log.map(logText), enumerable: true },
  levels: { get: () => S.levels.map((l) => ({ ...l })), enumerable: true },
  canShoot: { get: () => canInput(), enumerable: true },
  connected: { get: () => S.connection === "open", enumerable: true },
  clockLeft: { get: () => (clock(S, localNow()) || { left: null }).left, enumerable: true },
  bottom: { get: () => bottomSeat(S, turnBoard()), enumerable: true },
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
      const seat = myShooter();
      if (!seat) return null;
      const c = placement(S.game.board, seat, aimOf(seat).position);
      return api.toPage(c.x, c.y);
    },
  },
  /** A free position of the shooter's quarter near `position` (from the server's stretches). */
  freePosition: { value: (position = 0) => (myShooter() ? nearestFree(S, myShooter(), position) : null) },
  aim: {
    get: () => {
      if (!myShooter()) return null;
      const { position, direction, power } = aimOf(myShooter());
      return { position, direction, power };
    },
  },
  lastShot: { get: () => (UI.lastShot ? { ...UI.lastShot } : null) },
  /** The discs the last frame drew in the ditch: [{side, x, y}] (page pixels). */
  ditchDrawn: {
    get: () => {
      const r = view.canvas.getBoundingClientRect();
      return view.overlay.ditch.map((d) => ({ side: d.side, x: round(r.left + d.at[0], 1), y: round(r.top + d.at[1], 1) }));
    },
  },
  /** The hints and heat map: what the panel holds, and what the last frame drew (page pixels). */
  hints: {
    get: () => {
      const r = view.canvas.getBoundingClientRect();
      const page = ([x, y]) => [round(r.left + x, 1), round(r.top + y, 1)];
      const o = view.overlay;
      return {
        ...hintModel(),
        lines: o.hints.map((h) => ({
          rank: h.rank, label: h.label, colour: h.colour, from: page(h.from), to: page(h.to),
          box: h.box ? { x: round(r.left + h.box.x, 1), y: round(r.top + h.box.y, 1), width: h.box.w, height: h.box.h } : null,
        })),
        heatDrawn: o.heat ? { ...o.heat, origin: page(o.heat.origin), far: o.heat.far.map(page) } : null,
      };
    },
  },
});
Object.freeze(api);
Object.defineProperty(window, "crokinole", { value: api, writable: false, configurable: false });

// ------------------------------------------------------------------ start

function init() {
  setScheme(UI.prefs.scheme || "classic");
  wire();
  setSound(Boolean(UI.prefs.sound));
  fillStart(UI.prefs, S.levels, UI.joinLink);
  const saved = loadGame();
  if (saved && saved.state && typeof saved.table === "string" && saved.state.table === saved.table) {
    S = { ...initialState(), ...saved.state, connection: "connecting" };
    if (saved.aim && typeof saved.aim === "object") UI.aim = saved.aim;
    // A game that had ended when this page was left: welcome brings the record counting it.
    if (gameEnded(S)) UI.counted = `${S.table}/${S.gameNumber}`;
    if (UI.joinLink) {
      // A link to another party than the one this device is in: the link wins.
      if (UI.joinLink.code !== S.code) S = leaveTable(S);
      else UI.joinLink = null;
    }
  }
  if (WANTED_TABLE && S.table !== WANTED_TABLE) S = { ...leaveTable(S), connection: "connecting" };
  if (S.table) syncScreen();
  else showStart();
  if (UI.joinLink && !UI.joinLink.spectator) {
    $("join-form").elements.name.focus();
    $("join-form").scrollIntoView({ block: "center" });
    showStatus("");
    // The invitation heads the form the link scrolled to, above the name to enter.
    $("join-title").textContent = `You are invited to party ${UI.joinLink.code}`;
    $("join-status").textContent = "Enter your name and press Join.";
  }
  conn.connect();
  refresh();
}

init();
