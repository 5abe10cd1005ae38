// The game review (/review/{table}, and /review with a record file): every shot of a game
// valued against the Expert's best in the same position (GameReview.to_dict from
// GET /api/tables/{table}/review.json or POST /api/review). First, in sentences, each player's
// costliest shots ("Round 2, shot 5: you played a soft straight shot that missed …; the best
// was a takeout of their 15 …", lib/words.js); the numbers one tap away ("Show the numbers"):
// the grades (good / inaccuracy / mistake / blunder), per round a swing chart (the lead after
// each shot) and a table of the shots, each with "Retry from here": the position before it in
// the practice room. Each player has one name, the replay's and the game's (`names`).

import { markSvg, setScheme } from "../views/board.js";
import { fetchJson } from "../lib/api.js";
import { drawCharts, lineChart } from "../views/charts.js";
import { $, escapeHtml } from "../lib/dom.js";
import { percent, signed } from "../lib/position.js";
import { loadPrefs } from "../lib/store.js";
import { costliest, costliestTitle, costSentence, gradeWords, namesViewer, playerName } from "../lib/words.js";
import { botMark } from "../views/ranked.js";

const TABLE_RE = /^\/review\/([a-f0-9]{32})\/?$/;
const params = new URLSearchParams(location.search);
/** The largest record POST /api/review takes (the server's limit: 512 KiB). */
const MAX_RECORD_BYTES = 512 * 1024;
const GRADE_WORD = { good: "Good", inaccuracy: "Inaccuracy", mistake: "Mistake", blunder: "Blunder" };
const GRADES = ["good", "inaccuracy", "mistake", "blunder"];
const HAND_WORD = {
  steady: "the steady hand (shots played exactly as aimed)",
  human: "the human hand (a strong club player's accuracy)",
  easy: "CPU Easy's accuracy", normal: "CPU Normal's accuracy", hard: "CPU Hard's accuracy",
  expert: "CPU Expert's accuracy", master: "CPU Master's accuracy", mine: "your own accuracy",
};

const R = { data: null, names: {}, viewer: namesViewer({}), table: null, file: null };

function status(text, bad = false) {
  const e = $("review-status");
  e.textContent = text || "";
  e.classList.toggle("bad", Boolean(bad && text));
  e.hidden = !text;
}

function seatName(seat) {
  return playerName(R.names, seat);
}

function sideIndex(seat) {
  const sides = R.data.sides || [];
  const i = sides.findIndex((s) => s.includes(seat));
  return i < 0 ? 0 : i;
}

function sideName(i) {
  const seats = (R.data.sides || [])[i] || [];
  return seats.map(seatName).join(" & ") || `Side ${i + 1}`;
}

function mark(seat, size = 16) {
  return markSvg(null, sideIndex(seat), size);
}

/** The first side's lead over the best other side after a shot (R6, counted then, 20s in). */
function leadAfter(shot) {
  const t = Array.isArray(shot.totals_after) ? shot.totals_after : null;
  if (!t || t.length < 2) return sideIndex(shot.seat) === 0 ? Number(shot.margin_after) : -Number(shot.margin_after);
  return t[0] - Math.max(...t.slice(1));
}

/** "12%" of round-win chance as points of percent: 0.1832 -> "18 pts". */
function winPoints(v) {
  return `${Math.round(Number(v) * 100)}`;
}

function shotText(s) {
  const d = (v) => `${Number(v).toFixed(1).replace("-", "−")}°`;
  return `at ${d(s.position)}, aim ${d(s.direction)}, power ${Math.round(Number(s.power))}%`;
}

function sameShot(a, b) {
  return ["position", "direction", "power"].every((k) => Math.abs(Number(a[k]) - Number(b[k])) < 0.05);
}

// ------------------------------------------------------------------ rendering

/** The viewer's seats first (their shots are what they came for), then the others in order. */
function seatOrder() {
  const seats = R.data.seats || [];
  const you = R.viewer.you;
  return [...seats.filter((s) => you.includes(s)), ...seats.filter((s) => !you.includes(s))];
}

function retryLink(s, testid) {
  if (!s.position_code) return "";
  return ` <a class="try-again" href="/practice?p=${encodeURIComponent(s.position_code)}" data-testid="${testid}" aria-label="Try it again: shot ${s.turn} of round ${s.round}, in the practice room">Try it again</a>`;
}

/** Each player's costliest shots in sentences: what they played, what the best was, what it cost. */
function renderCostly() {
  const d = R.data;
  const box = $("review-costly");
  box.innerHTML = "";
  for (const seat of seatOrder()) {
    const s = (d.summary || {})[seat];
    if (!s) continue;
    const worst = costliest(d.shots, seat, 3);
    const card = document.createElement("section");
    card.className = "card costly-card";
    card.setAttribute("data-testid", `costly-${seat}`);
    card.setAttribute("aria-labelledby", `costly-title-${seat}`);
    const title = worst.length ? costliestTitle(R.viewer, seat, worst.length) : `${seatName(seat)}: no costly shot`;
    const items = worst.map((x) => `<li data-testid="costly-shot-${x.index}">${escapeHtml(costSentence(x, R.viewer, sideIndex))}${retryLink(x, `summary-retry-${x.index}`)}</li>`).join("");
    const none = R.viewer.you.includes(seat)
      ? "Every one of your shots was as good as the best found, or nearly."
      : `Every shot of ${seatName(seat)} was as good as the best found, or nearly.`;
    card.innerHTML = `<h2 id="costly-title-${seat}">${mark(seat, 18)}<span>${escapeHtml(title)}</span></h2>
      <p class="note" data-testid="costly-grades-${seat}">${escapeHtml(gradeWords(s.grades, s.shots))}</p>
      ${worst.length ? `<ol class="costly-list">${items}</ol>` : `<p>${escapeHtml(none)}</p>`}`;
    box.append(card);
  }
}

function renderSummary() {
  const d = R.data;
  const box = $("review-summary");
  box.innerHTML = "";
  for (const seat of d.seats || []) {
    const s = (d.summary || {})[seat];
    if (!s) continue;
    const card = document.createElement("section");
    card.className = "card seat-summary";
    card.setAttribute("data-testid", `summary-${seat}`);
    const counts = GRADES.map((g) => `<li><span class="grade ${g}" data-testid="count-${seat}-${g}">${escapeHtml(GRADE_WORD[g])} ${s.grades[g] ?? 0}</span></li>`).join("");
    const bot = botMark(Array.isArray(d.bots) && d.bots.includes(seat));
    card.innerHTML = `<h2>${mark(seat, 18)}<span>${escapeHtml(seatName(seat))}${bot}</span></h2>
      <p>${s.shots} shot${s.shots === 1 ? "" : "s"} reviewed${s.shots ? ` · on average ${winPoints(s.mean_loss_win)} points of round-win chance and ${Number(s.mean_loss_margin).toFixed(1)} expected points given away a shot` : ""}.</p>
      <ul class="grade-counts">${counts}</ul>`;
    box.append(card);
  }
}

function chartOf(round, shots) {
  const leads = shots.map(leadAfter);
  const m = Math.max(10, ...leads.map(Math.abs));
  const top = Math.ceil(m / 5) * 5;
  const points = shots.map((s, i) => ({
    y: leads[i],
    cls: `side-${sideIndex(s.seat)} ${s.grade}`,
    label: `Shot ${i + 1}, ${seatName(s.seat)}: ${GRADE_WORD[s.grade] || s.grade}; ${sideName(0)} ${leads[i] >= 0 ? "leads by" : "trails by"} ${Math.abs(leads[i])} after it`,
  }));
  const last = leads[leads.length - 1] ?? 0;
  const summary = `Round ${round}: ${sideName(0)}'s lead after each of its ${shots.length} shots, ending at ${signed(last, 0)} (lowest ${signed(Math.min(0, ...leads), 0)}, highest ${signed(Math.max(0, ...leads), 0)}).`;
  return (width) => lineChart(points, {
    width, height: Math.round(Math.min(220, Math.max(150, width * 0.36))), yMin: -top, yMax: top, start: 0, zero: true,
    ticks: [{ v: top, text: signed(top, 0) }, { v: 0, text: "0" }, { v: -top, text: signed(-top, 0) }],
    xFirst: "start", xLast: `shot ${shots.length}`, cls: "swing-chart", testid: `swing-chart-${round}`, summary,
  });
}

/** A number with one decimal and a real minus sign, never "−0.0". */
function plain(v) {
  const t = Number(v).toFixed(1);
  return Number(t) === 0 ? "0.0" : t.replace("-", "−");
}

/** A value in two short lines: "+17.9 pts" over "69% round". */
function valueCell(margin, win) {
  return `<span class="val">${escapeHtml(signed(margin))} pts</span><span class="note">${escapeHtml(percent(win))} round</span>`;
}

function shotRow(s) {
  const tr = document.createElement("tr");
  tr.setAttribute("data-testid", `shot-row-${s.index}`);
  tr.className = `grade-row ${s.grade}`;
  const better = !sameShot(s.shot, s.best.shot);
  const retry = s.position_code
    ? `<a href="/practice?p=${encodeURIComponent(s.position_code)}" data-testid="retry-${s.index}" aria-label="Retry from here: shot ${s.turn} of round ${s.round}, in the practice room">Retry from here</a>`
    : `<span class="note">Only singles positions open in the practice room.</span>`;
  tr.innerHTML = `
    <td class="idx">${s.turn}</td>
    <td class="who">${mark(s.seat)} ${escapeHtml(seatName(s.seat))}</td>
    <td class="shot-col"><span class="shot-cell"><span>${escapeHtml(shotText(s.shot))}</span>${better ? `<span class="note">Best: ${escapeHtml(shotText(s.best.shot))}</span>` : '<span class="note">The best shot found.</span>'}</span></td>
    <td class="num" data-label="Played">${valueCell(s.played.margin, s.played.round_win)}</td>
    <td class="num" data-label="Best">${valueCell(s.best.margin, s.best.round_win)}</td>
    <td class="num" data-label="Given away"><span class="val">${escapeHtml(winPoints(s.loss_win))}% round</span><span class="note">${escapeHtml(plain(s.loss_margin))} pts</span></td>
    <td class="grade-cell"><span class="grade ${escapeHtml(s.grade)}" data-testid="grade-${s.index}">${escapeHtml(GRADE_WORD[s.grade] || s.grade)}</span></td>
    <td class="retry">${retry}</td>`;
  return tr;
}

function renderRounds() {
  const box = $("rounds");
  box.innerHTML = "";
  const byRound = new Map();
  for (const s of R.data.shots || []) {
    if (!byRound.has(s.round)) byRound.set(s.round, []);
    byRound.get(s.round).push(s);
  }
  if (!byRound.size) {
    box.innerHTML = '<p class="card">This game has no shots to review.</p>';
    return;
  }
  const charts = [];
  for (const [round, shots] of byRound) {
    const sec = document.createElement("section");
    sec.className = "card round-block";
    sec.setAttribute("data-testid", `review-round-${round}`);
    sec.setAttribute("aria-labelledby", `round-title-${round}`);
    const last = leadAfter(shots[shots.length - 1]);
    sec.innerHTML = `<h2 id="round-title-${round}">Round ${round}</h2>
      <figure class="chart"><div class="chart-box"></div><figcaption class="note">${escapeHtml(sideName(0))}'s lead over ${escapeHtml(sideName(1))} after each shot (counted as the round would score then, 20s included): above the line ${escapeHtml(sideName(0))} leads. A light dot is a shot of ${escapeHtml(sideName(0))}, a dark one of ${escapeHtml(sideName(1))}; a red ring marks a mistake or a blunder. After the last shot: ${escapeHtml(signed(last, 0))}.</figcaption></figure>
      <div class="shots-wrap"><table class="shots-table">
        <caption class="sr-only">Round ${round}: each shot, its value against the best, and its grade</caption>
        <thead><tr><th scope="col">#</th><th scope="col">Who</th><th scope="col">Shot</th><th scope="col" class="num">Played</th><th scope="col" class="num">Best</th><th scope="col" class="num">Given away</th><th scope="col">Grade</th><th scope="col"><span class="sr-only">Practice</span></th></tr></thead>
        <tbody></tbody>
      </table></div>`;
    const body = sec.querySelector("tbody");
    for (const s of shots) body.append(shotRow(s));
    const chartBox = sec.querySelector(".chart-box");
    chartBox.chart = chartOf(round, shots);
    charts.push(chartBox);
    box.append(sec);
  }
  drawCharts(charts);
}

function show(data) {
  R.data = data;
  R.names = data.names && typeof data.names === "object" ? data.names : {};
  R.viewer = namesViewer(R.names, Array.isArray(data.you) ? data.you : []);
  const select = $("accuracy-select");
  if (Array.from(select.options).some((o) => o.value === data.accuracy)) select.value = data.accuracy;
  const t = data.thresholds || { good: 0.05, inaccuracy: 0.12, mistake: 0.25 };
  $("review-about").textContent = `Every shot is valued under ${HAND_WORD[data.accuracy] || `the ${data.accuracy} hand`}, against the best shot the Expert finds in the same position with the same noise draws: "points" is the expected round margin after the shot, "round" the chance to win the round. Grades go by the round-win chance a shot gave away: good below ${winPoints(t.good)} points of percent, an inaccuracy below ${winPoints(t.inaccuracy)}, a mistake below ${winPoints(t.mistake)}, a blunder beyond.`;
  // Who played, by the names the game and the replay call them ("Ann v CPU Easy").
  if (R.table) $("review-title").textContent = `Game review: ${(data.sides || []).map((_, i) => sideName(i)).join(" v ")}`;
  $("review-lead").textContent = "Each shot was compared with the best one the computer finds in the same spot. These cost the most:";
  $("review-body").hidden = false; // first: the charts are drawn at their boxes' widths
  renderCostly();
  renderSummary();
  renderRounds();
  $("review").setAttribute("aria-busy", "false");
  status(""); // the review itself says it all
}

// ------------------------------------------------------------------ loading

/** The query of the review JSON: the table's game (?game=N) and the accuracy chosen. */
function query(extra = {}) {
  const q = new URLSearchParams();
  const game = params.get("game");
  if (game) q.set("game", game);
  const acc = extra.accuracy || params.get("accuracy");
  if (acc) q.set("accuracy", acc);
  const text = q.toString();
  return text ? `?${text}` : "";
}

async function loadTable(table) {
  R.table = table;
  $("review-title").textContent = "Game review";
  const replay = $("replay-link");
  const game = params.get("game");
  replay.href = `/replay/${table}${game ? `?game=${encodeURIComponent(game)}` : ""}`;
  replay.hidden = false;
  status("Looking at every shot of the game (this takes a few seconds)…");
  const r = await fetchJson(`/api/tables/${table}/review.json${query()}`, { token: true });
  if (!r.ok || !Array.isArray(r.body.shots)) {
    status(`No review: ${r.reason || "the server's answer held none."}`, true);
    $("review").setAttribute("aria-busy", "false");
    return;
  }
  show(r.body);
}

async function reviewFile(file) {
  if (!file) return;
  R.file = file;
  $("review-body").hidden = true;
  if (file.size > MAX_RECORD_BYTES) {
    status(`"${file.name}" is larger than a record can be (512 KiB): choose a game's record file.`, true);
    return;
  }
  let text;
  try {
    text = await file.text();
  } catch {
    status(`"${file.name}" could not be read.`, true);
    return;
  }
  let record;
  try {
    record = JSON.parse(text);
  } catch {
    status(`"${file.name}" is not a record: it is not JSON.`, true);
    return;
  }
  status(`Looking at every shot of "${file.name}" (this takes a few seconds)…`);
  $("record-file").disabled = true;
  const r = await fetchJson(`/api/review${query()}`, { method: "POST", body: record, token: true });
  $("record-file").disabled = false;
  if (!r.ok || !Array.isArray(r.body.shots)) {
    status(`No review of "${file.name}": ${r.reason || "the server's answer held none."}`, true);
    return;
  }
  $("review-title").textContent = `Review of ${file.name}`;
  show(r.body);
}

function start() {
  setScheme(loadPrefs().scheme || "classic");
  const m = TABLE_RE.exec(location.pathname);
  if (m) {
    loadTable(m[1]);
  } else if (/^\/review\/?$/.test(location.pathname)) {
    $("picker").hidden = false;
    $("review").setAttribute("aria-busy", "false");
    status("");
    $("record-file").addEventListener("change", (e) => reviewFile(e.target.files && e.target.files[0]));
  } else {
    status("This is not a review link: a review's address is /review/ followed by the table's 32-character id, or /review to choose a record file.", true);
    $("review").setAttribute("aria-busy", "false");
  }
  window.addEventListener("resize", () => drawCharts(document.querySelectorAll(".chart-box")));
  // The charts are drawn at their boxes' widths: again when the numbers are opened.
  $("review-numbers").addEventListener("toggle", () => drawCharts(document.querySelectorAll(".chart-box")));
  $("accuracy-select").addEventListener("change", (e) => {
    params.set("accuracy", e.target.value);
    history.replaceState(null, "", `${location.pathname}?${params.toString()}`);
    $("review-body").hidden = true;
    if (R.table) loadTable(R.table);
    else if (R.file) reviewFile(R.file);
  });
}

start();

// For the browser tests: the review shown.
window.crokinoleReview = { data: () => R.data };
