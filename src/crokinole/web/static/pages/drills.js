// The drills (/drills): the list from GET /api/drills with this device's personal bests
// (GET /api/drills/results), the open-20 trend chart, and the daily challenge with its
// leaderboard (GET /api/daily, /api/daily/leaderboard). A drill is played attempt by attempt
// with the board and controls of play, each attempt from the drill's setup, with the human
// hand: a set is asked for first (POST /api/drills/{id}/sets, or /api/daily/sets: the day's one
// entry), and each attempt is POST /api/practice/shoot with the set, where the server draws the
// hand's noise from the set's secret seed, plays the shot and keeps it (the answer says what
// was aimed and what was played). At the end POST /api/drills/{id}/results (or POST
// /api/daily) names the set: the server scores the shots it kept, never a count made here.

import { fetchJson } from "../lib/api.js";
import { drawCharts, lineChart } from "../views/charts.js";
import { $, escapeHtml } from "../lib/dom.js";
import { positionFromJson, signed } from "../lib/position.js";
import * as B from "../views/practiceboard.js";
import { loadPrefs, savePrefs } from "../lib/store.js";

/** Seconds the result of an attempt stays on the board before the setup is laid out again. */
const SHOW_RESULT_MS = 1100;
const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

const D = {
  drills: [], // GET /api/drills
  bests: {}, // drill id -> {score, percent, at, ...}
  results: null, // GET /api/drills/results
  daily: null, // GET /api/daily
  run: null, // the set being played: {kind, id, name, setup, attempts, maxPer, shots, points, done}
  submitting: false,
};

// ------------------------------------------------------------------ the list

function bestText(d) {
  const b = D.bests[d.id];
  if (!b) return "No full set yet.";
  const when = b.at ? ` on ${dayText(b.at)}` : "";
  const most = (b.attempts || d.attempts) * (d.max_per_attempt || 1);
  return `Your best: <b data-testid="best-${escapeHtml(d.id)}">${b.score} of ${most}</b> (${Math.round(Number(b.percent))}%)${escapeHtml(when)}.`;
}

function dayText(at) {
  const t = typeof at === "number" ? new Date(at * (at < 1e12 ? 1000 : 1)) : new Date(at);
  if (Number.isNaN(t.getTime())) return String(at).slice(0, 10);
  return t.toLocaleDateString(undefined, { day: "numeric", month: "short", year: "numeric" });
}

function renderList() {
  const list = $("drill-list");
  list.innerHTML = "";
  for (const d of D.drills) {
    const li = document.createElement("li");
    li.className = "card drill-card";
    li.setAttribute("data-testid", `drill-${d.id}`);
    li.innerHTML = `<h3>${escapeHtml(d.name)}</h3>
      <p class="summary">${escapeHtml(d.summary)}</p>
      <p class="best">${d.attempts} attempts · ${bestText(d)}</p>`;
    const play = document.createElement("button");
    play.type = "button";
    play.className = "play primary";
    play.textContent = "Play";
    play.setAttribute("aria-label", `Play ${d.name}`);
    play.setAttribute("data-testid", `play-${d.id}`);
    play.addEventListener("click", () => startDrill(d));
    li.append(play);
    list.append(li);
  }
}

function renderTrend() {
  const r = D.results;
  const o = r && r.open20;
  $("open20-rate").textContent = o && o.attempts
    ? `Your open 20s: ${o.made} made of your last ${o.attempts} attempts (${Math.round(Number(o.rate) * 100)}%). The heat map's "Mine" accuracy is fitted to this.`
    : "No open-20 attempts yet: play the open-20 drill to measure your accuracy.";
  const trend = (r && Array.isArray(r.trend) ? r.trend : []).filter((t) => Number.isFinite(Number(t.percent)));
  const fig = $("trend-figure");
  fig.hidden = trend.length === 0;
  const box = $("trend-box");
  if (!trend.length) {
    box.chart = null;
    box.innerHTML = "";
    return;
  }
  const points = trend.map((t, i) => ({ y: Number(t.percent), label: `Set ${i + 1}${t.at ? ` (${dayText(t.at)})` : ""}: ${Math.round(Number(t.percent))}%` }));
  const ys = points.map((p) => p.y);
  const summary = `Open-20 trend: ${points.length} set${points.length === 1 ? "" : "s"}, from ${Math.round(ys[0])}% to ${Math.round(ys[ys.length - 1])}% (lowest ${Math.round(Math.min(...ys))}%, highest ${Math.round(Math.max(...ys))}%).`;
  box.chart = (width) => lineChart(points, {
    width, height: Math.round(Math.min(220, Math.max(140, width * 0.34))), yMin: 0, yMax: 100,
    ticks: [{ v: 100, text: "100%" }, { v: 50, text: "50%" }, { v: 0, text: "0%" }],
    xFirst: "set 1", xLast: `set ${points.length}`, cls: "trend-chart", testid: "trend-chart", summary,
  });
  delete box.dataset.width;
  drawCharts([box]);
}

async function loadResults() {
  const r = await fetchJson("/api/drills/results", { token: true });
  if (!r.ok) {
    $("list-status").textContent = `Your bests could not be read: ${r.reason}`;
    $("list-status").classList.add("bad");
    return;
  }
  D.results = r.body;
  D.bests = r.body.bests && typeof r.body.bests === "object" ? r.body.bests : {};
  renderList();
  renderTrend();
}

async function loadDrills() {
  $("list-status").textContent = "Loading the drills…";
  const r = await fetchJson("/api/drills");
  // The list's room, kept while it loads (drills.html), goes: it is filled or says why not.
  $("drill-list").classList.remove("loading");
  if (!r.ok || !Array.isArray(r.body.drills)) {
    $("list-status").textContent = `The drills could not be loaded: ${r.reason || "the server's answer held none."}`;
    $("list-status").classList.add("bad");
    return;
  }
  D.drills = r.body.drills;
  $("list-status").textContent = "";
  renderList();
  await loadResults();
}

// ------------------------------------------------------------------ the daily challenge

async function loadDaily() {
  const r = await fetchJson("/api/daily", { token: true });
  if (!r.ok || !r.body.position) {
    $("daily-summary").textContent = `Today's challenge could not be loaded: ${r.reason || "the server's answer held none."}`;
    return;
  }
  D.daily = r.body;
  $("daily-title").textContent = `Daily challenge · ${r.body.day}`;
  $("daily-summary").textContent = `${r.body.summary || "The same position for everyone today: make the best shot you can."} ${r.body.attempts} attempts, once a day.`;
  showPlayed(r.body.played, r.body.entry);
  $("leaderboard-title").textContent = `Leaderboard of ${r.body.day}`;
  await loadLeaderboard(r.body.day);
}

async function loadLeaderboard(day, mine = null) {
  const r = await fetchJson(`/api/daily/leaderboard?day=${encodeURIComponent(day)}`);
  const box = $("leaderboard");
  if (!r.ok) {
    box.innerHTML = `<p class="status-line bad">${escapeHtml(`The leaderboard could not be read: ${r.reason}`)}</p>`;
    return;
  }
  // Players' accounts and guests are ranked apart; an account's name is its username.
  const guest = D.daily && D.daily.played && D.daily.played.guest;
  box.innerHTML = boardTable(r.body.scores, day, "Players' scores", "No player's score yet today: be the first.", guest ? null : mine);
  $("guest-board").innerHTML = boardTable(r.body.guests, day, "Guests' scores", "No guest scores yet today.", guest ? mine : null);
}

function boardTable(list, day, caption, empty, mine) {
  const scores = Array.isArray(list) ? list : [];
  if (!scores.length) return `<p class="note">${escapeHtml(empty)}</p>`;
  return `<table class="leaderboard"><caption class="sr-only">${escapeHtml(caption)} of ${escapeHtml(day)}, best first</caption>
    <thead><tr><th scope="col" class="num">#</th><th scope="col">Name</th><th scope="col" class="num">Points</th></tr></thead>
    <tbody>${scores.map((s) => `<tr${mine && s.rank === mine ? ' class="me"' : ""}><td class="num">${s.rank}</td><td class="who">${escapeHtml(s.name)}</td><td class="num">${escapeHtml(signed(s.score, 0))}</td></tr>`).join("")}</tbody></table>`;
}

/**
 * Whether this device (or account) has entered today's challenge: its score and rank and no
 * Play once scored; an entry begun here and not finished is played on (one entry a day); one
 * begun on another device cannot be.
 */
function showPlayed(played, entry = null) {
  const done = Boolean(played && Number.isFinite(Number(played.score)));
  const elsewhere = !done && entry && !entry.set;
  $("daily-played").hidden = !done && !elsewhere;
  if (done) {
    $("daily-played").textContent = `You have played today's challenge: ${signed(played.score, 0)} point${Math.abs(played.score) === 1 ? "" : "s"}${played.rank ? `, ${ordinal(played.rank)} on the leaderboard` : ""}. Come back tomorrow for the next one.`;
  } else if (elsewhere) {
    $("daily-played").textContent = "You have entered today's challenge on another device: one entry a day. Come back tomorrow for the next one.";
  }
  $("daily-name-row").hidden = done || Boolean(elsewhere);
  $("daily-play").disabled = done || Boolean(elsewhere) || !D.daily;
  $("daily-play").textContent = entry && entry.set && !done ? "Go on with today's challenge" : "Play today's challenge";
}

function startDaily() {
  const d = D.daily;
  if (!d) return;
  let setup;
  try {
    setup = positionFromJson(d.position);
  } catch {
    return;
  }
  startRun({
    kind: "daily", id: d.id, day: d.day, name: `Daily challenge · ${d.day}`, setup, attempts: d.attempts,
    summary: d.summary || "", entry: d.entry && d.entry.set ? d.entry : null,
  });
}

/** A new set from the server (its secret seed stays there), or the day's entry begun already. */
async function askForSet(run) {
  if (run.kind === "daily" && run.entry) return { ok: true, body: { set: run.entry.set, attempts: run.entry.attempts } };
  if (run.kind === "daily") return fetchJson("/api/daily/sets", { method: "POST", body: { day: run.day }, token: true });
  return fetchJson(`/api/drills/${encodeURIComponent(run.id)}/sets`, { method: "POST", body: { attempts: run.attempts }, token: true });
}

// ------------------------------------------------------------------ playing a set

function startDrill(d) {
  let setup;
  try {
    setup = positionFromJson(d.setup);
  } catch {
    return;
  }
  startRun({ kind: "drill", id: d.id, name: d.name, setup, attempts: d.attempts, maxPer: d.max_per_attempt || 1, summary: d.summary });
}

async function startRun(run) {
  const asked = await askForSet(run);
  if (!asked.ok) {
    const status = run.kind === "daily" ? $("daily-played") : $("list-status");
    status.hidden = false;
    status.textContent = `This set could not begin: ${asked.reason}`;
    status.classList.add("bad");
    return;
  }
  const kept = run.entry ? run.entry.points || [] : [];
  D.run = { ...run, set: asked.body.set, attempts: asked.body.attempts || run.attempts, shots: kept.map(() => null), played: kept.map(() => null), points: [...kept], done: false, entry: null };
  run = D.run;
  $("list-view").hidden = true;
  $("play-view").hidden = false;
  $("back-button").hidden = false;
  document.body.classList.add("board-page");
  $("result").hidden = true;
  $("result").innerHTML = "";
  $("controls").hidden = false;
  $("run-title").textContent = run.name;
  $("run-summary").textContent = run.summary;
  $("quit-button").textContent = "Stop this set";
  B.setPosition(run.setup);
  B.setAim({ position: 0, direction: 0, power: 20 });
  B.setMode("shoot");
  B.setBusy(false);
  B.setMessage("Tap your part of the shooting line to place the disc, press on it and pull back to shoot; or use the controls. You shoot with the human hand: the server draws each shot's small error when you shoot.");
  window.scrollTo(0, 0);
  B.layout();
  renderRun();
  $("board").focus({ preventScroll: true });
}

function made(run) {
  return run.points.filter((p) => p > 0).length;
}

function progressText(run) {
  const n = run.shots.length;
  const k = Math.min(n + 1, run.attempts);
  const head = run.done ? `${run.attempts} attempts played` : `Attempt ${k} of ${run.attempts}`;
  if (run.kind === "daily") {
    const best = n ? Math.max(...run.points) : null;
    return `${head} · ${best === null ? "no shot yet" : `best so far ${signed(best, 0)} point${Math.abs(best) === 1 ? "" : "s"}`}`;
  }
  if ((run.maxPer || 1) === 1) return `${head} · ${made(run)} made`;
  const total = run.points.reduce((a, b) => a + b, 0);
  return `${head} · ${total} point${total === 1 ? "" : "s"}`;
}

function renderRun() {
  const run = D.run;
  if (!run) return;
  $("attempt-line").textContent = progressText(run);
  const dots = $("attempt-dots");
  dots.innerHTML = "";
  for (let i = 0; i < run.attempts; i += 1) {
    const li = document.createElement("li");
    if (i < run.points.length) {
      const p = run.points[i];
      li.className = p > 0 ? "made" : "missed";
      li.textContent = run.kind === "daily" ? signed(p, 0) : String(p);
      li.setAttribute("aria-label", `Attempt ${i + 1}: ${run.kind === "daily" ? `${signed(p, 0)} points` : p > 0 ? `${p} point${p === 1 ? "" : "s"}` : "missed"}`);
    } else {
      li.className = i === run.points.length && !run.done ? "now" : "";
      li.textContent = String(i + 1);
      li.setAttribute("aria-label", `Attempt ${i + 1}: to play`);
    }
    dots.append(li);
  }
}

/** What the hand did to the shot, in words: aimed, then played (drawn by the server). */
function handWords(aimed, played) {
  if (!aimed || !played) return "";
  const f = (x) => Number(x).toFixed(1);
  return `Your hand: aimed ${f(aimed.direction)}° at ${f(aimed.power)}% from ${f(aimed.position)}°, played ${f(played.direction)}° at ${f(played.power)}% from ${f(played.position)}° (the server drew the error).`;
}

function attemptWords(run, p, explain) {
  if (run.kind === "daily") return `${explain} This attempt: ${signed(p, 0)} point${Math.abs(p) === 1 ? "" : "s"}.`.trim();
  if ((run.maxPer || 1) === 1) return `${p > 0 ? "Made!" : "Missed."} ${explain}`.trim();
  return `${p} point${p === 1 ? "" : "s"}. ${explain}`.trim();
}

async function onShoot(shot) {
  const run = D.run;
  if (!run || run.done || D.submitting) return;
  // An attempt of the set: the server draws the hand's noise, plays the shot from the set's
  // position, keeps it and scores it (points_scored), answering what was aimed and played.
  const answer = await B.shootOnServer({ set: run.set, shot }, {
    noPosition: "The server's answer held no position: try the shot again.",
    stillWanted: () => D.run === run, // not when the set was stopped meanwhile
  });
  if (!answer) return;
  await B.animateShot(answer.after, answer.trajectory, answer.board);
  if (D.run !== run) return;
  const report = answer.summary || {};
  const points = answer.points_scored;
  const p = Number.isFinite(points) ? points : 0;
  run.shots.push(shot);
  run.played.push(answer.played || null);
  run.points.push(p);
  const hand = handWords(answer.aimed, answer.played);
  B.setMessage(`${attemptWords(run, p, B.shotSentence(answer.report, report, run.setup))} ${hand}`.trim(), p <= 0 && run.kind !== "daily");
  if (run.shots.length >= run.attempts) {
    run.done = true;
    $("controls").hidden = true;
    renderRun();
    await submit(run);
    return;
  }
  renderRun();
  await new Promise((resolve) => { setTimeout(resolve, reducedMotion.matches ? 300 : SHOW_RESULT_MS); });
  if (D.run !== run) return;
  B.setPosition(run.setup);
  B.setBusy(false);
}

async function submit(run) {
  D.submitting = true;
  $("quit-button").disabled = true;
  const box = $("result");
  box.hidden = false;
  box.innerHTML = "<p>The server is scoring the shots it kept for this set…</p>";
  let r;
  if (run.kind === "daily") {
    const name = ($("daily-name").value || "").trim().slice(0, 24) || "Player";
    r = await fetchJson("/api/daily", { method: "POST", body: { day: run.day, set: run.set, name }, token: true });
  } else {
    r = await fetchJson(`/api/drills/${encodeURIComponent(run.id)}/results`, { method: "POST", body: { set: run.set }, token: true });
  }
  D.submitting = false;
  $("quit-button").disabled = false;
  $("quit-button").textContent = "Back to the drills";
  if (!r.ok) {
    box.innerHTML = `<p class="status-line bad" data-testid="result-error">${escapeHtml(`Your score was not recorded: ${r.reason}`)}</p>${againButtons(run)}`;
    wireAgain(run);
    return;
  }
  const a = r.body;
  if (run.kind === "daily" && Array.isArray(a.points) && a.points.length === run.points.length) {
    run.points = a.points.map(Number);
    renderRun();
  }
  if (run.kind === "daily") {
    box.innerHTML = `<h3>Daily challenge scored</h3>
      <p class="big" data-testid="verified-score">${escapeHtml(signed(a.score, 0))} point${Math.abs(a.score) === 1 ? "" : "s"}</p>
      <p data-testid="daily-rank">Your best attempt, checked by the server. You are ${ordinal(a.rank)} on today's leaderboard.</p>
      ${againButtons(run)}`;
    if (D.daily) {
      D.daily.played = { score: a.score, rank: a.rank, guest: !a.account };
      D.daily.entry = null;
      showPlayed(D.daily.played);
      loadLeaderboard(run.day, a.rank);
    }
  } else {
    const drill = D.drills.find((d) => d.id === run.id);
    const most = Number.isFinite(a.best_possible) ? a.best_possible : (a.attempts || run.attempts) * (run.maxPer || 1);
    if (Array.isArray(a.points) && a.points.length === run.points.length) {
      run.points = a.points.map(Number); // the server's count of each attempt, shown from now on
      renderRun();
    }
    const best = D.bests[run.id];
    const pb = a.personal_best === true;
    box.innerHTML = `<h3>${escapeHtml(run.name)}: your score</h3>
      <p class="big" data-testid="verified-score">${a.score} of ${most} · ${Math.round(Number(a.percent))}%</p>
      <p class="${pb ? "pb" : ""}" data-testid="personal-best">${pb ? "A new personal best!" : best ? `Your best is ${best.score} of ${most} (${Math.round(Number(best.percent))}%).` : "Not a personal best."}</p>
      <p class="note">Scored by the server from the ${a.attempts} shots it played with your hand.</p>
      ${againButtons(run)}`;
    if (drill) await loadResults();
  }
  wireAgain(run);
  box.scrollIntoView({ block: "nearest" });
}

function ordinal(n) {
  const k = Number(n);
  if (!Number.isFinite(k)) return String(n);
  const s = k % 100 >= 11 && k % 100 <= 13 ? "th" : ({ 1: "st", 2: "nd", 3: "rd" })[k % 10] || "th";
  return `${k}${s}`;
}

function againButtons(run) {
  // The daily challenge is played once a day; a drill as often as one likes.
  const again = run.kind === "daily" ? "" : '<button type="button" class="primary" id="again-button" data-testid="again-button">Play again</button>';
  return `<div class="result-buttons">${again}<button type="button" id="list-button" data-testid="list-button">All drills</button></div>`;
}

function wireAgain(run) {
  const again = $("again-button");
  if (again) again.addEventListener("click", () => startRun({ kind: run.kind, id: run.id, name: run.name, setup: run.setup, attempts: run.attempts, maxPer: run.maxPer, summary: run.summary }));
  const list = $("list-button");
  if (list) list.addEventListener("click", showList);
}

function showList() {
  D.run = null;
  B.setMode("off");
  $("play-view").hidden = true;
  $("list-view").hidden = false;
  $("back-button").hidden = true;
  document.body.classList.remove("board-page");
  renderList();
  renderTrend();
}

// ------------------------------------------------------------------ start

function start() {
  B.startBoard({
    onShoot,
    legend: () => (D.run ? `Your shot · ${D.run.name}` : "Your shot"),
    onRefresh: () => {},
  });
  B.setMode("off");
  const prefs = loadPrefs();
  $("daily-name").value = (prefs.names && prefs.names.me) || "";
  $("daily-name").addEventListener("change", () => {
    const p = loadPrefs();
    const name = $("daily-name").value.trim().slice(0, 24);
    savePrefs({ ...p, names: { ...(p.names || {}), me: name } });
  });
  $("daily-play").addEventListener("click", startDaily);
  $("back-button").addEventListener("click", showList);
  $("quit-button").addEventListener("click", showList);
  window.addEventListener("resize", () => {
    if (!$("list-view").hidden) drawCharts([$("trend-box")]);
  });
  loadDrills();
  loadDaily();
}

start();

// For the browser tests: where the drills page stands.
window.crokinoleDrills = {
  run: () => (D.run ? { id: D.run.id, kind: D.run.kind, set: D.run.set, shots: D.run.shots.length, played: [...D.run.played], points: [...D.run.points], done: D.run.done } : null),
  drills: () => D.drills,
  get busy() { return B.isAnimating() || D.submitting || $("controls").disabled; },
  toPage: (x, y) => B.toPage(x, y),
};
