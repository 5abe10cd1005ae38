// The score keeper: score sheets for games on a real board, kept on the server
// (tied to this device's token) and shared read-only by link.  The server
// validates every entry and computes points, running scores, games and the
// winner with the rules engine; this page only shows them and collects entries.
// Players are spoken of by name; seats only decide the order of play.

import { fetchJson } from "../lib/api.js";
import { sheetResult } from "../lib/events.js";

// Per layout: the sides, each a list of seats (R2), the disc counts R2 allows,
// and how the name boxes are labelled.
const LAYOUTS = {
  singles: {
    text: "Singles",
    sides: [["south"], ["north"]],
    discs: [
      [8, "8 each (tournament)"],
      [12, "12 each (home rule)"],
    ],
    labels: ["Player 1", "Player 2"],
  },
  doubles: {
    text: "Doubles",
    sides: [["south", "north"], ["west", "east"]],
    discs: [[12, "6 each, 12 per team"]],
    labels: ["Team 1, player 1", "Team 1, player 2", "Team 2, player 1", "Team 2, player 2"],
  },
  two_vs_one: {
    text: "2 against 1",
    sides: [["south", "north"], ["west"]],
    discs: [[12, "12 per side (the pair shares them, 6 each)"]],
    labels: ["Pair, player 1", "Pair, player 2", "Single player"],
  },
  three_singles: {
    text: "Three singles",
    sides: [["south"], ["west"], ["north"]],
    discs: [[8, "8 each"]],
    labels: ["Player 1", "Player 2", "Player 3"],
  },
};
const CLOCKWISE = ["south", "west", "north", "east"];
const ZONES = [20, 15, 10, 5];
const MAX_GAMES = 9;
const KEY = "crokinole.sheet";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
const shareId = params.get("share");
// Opened from an event's hall board (event.html's "Score sheet"): the event, round and board.
const eventBoard = params.get("event")
  ? { event: params.get("event"), round: Number(params.get("round")), table: Number(params.get("table")), sent: false }
  : null;
let sheet = null; // the server's view of the open sheet
let editing = null; // the round being entered again (from the view), or null
const typed = []; // names typed on the new-sheet form, by box, kept across format changes
let firstBox = 0; // the name box of who shoots first

function say(text) {
  $("status").textContent = text;
}

function el(tag, text = "", attrs = {}) {
  const node = document.createElement(tag);
  node.textContent = text;
  Object.assign(node.dataset, attrs);
  return node;
}

function button(text, label, onClick) {
  const b = el("button", text);
  b.type = "button";
  if (label) b.setAttribute("aria-label", label);
  b.addEventListener("click", onClick);
  return b;
}

/** A request to the sheets' API: the answer's body, or an Error with the words to show. */
async function api(method, path, body) {
  const r = await fetchJson(path, { method, body, token: true });
  if (r.status === 0) throw new Error("The server cannot be reached; nothing was saved. Try again.");
  if (!r.ok) throw new Error(r.error);
  return r.body;
}

// ------------------------------------------------------------------ setup

/** A labelled box for a person's name (the server takes up to 40 characters). */
function nameField(text, value, data) {
  const input = document.createElement("input");
  input.type = "text";
  input.maxLength = 40;
  input.autocomplete = "off";
  input.value = value;
  Object.assign(input.dataset, data);
  const label = el("label", text);
  label.append(input);
  return label;
}

function nameBoxes() {
  return [...$("name-inputs").querySelectorAll("input")];
}

function renderNames() {
  const layout = LAYOUTS[$("layout").value];
  const seats = layout.sides.flat();
  const boxes = seats.map((seat, k) => {
    const label = nameField(layout.labels[k], typed[k] ?? "", { testid: `sheet-name-${k}`, seat });
    const input = label.querySelector("input");
    // Not required: left empty, the player is called by the placeholder.
    input.placeholder = `Player ${k + 1}`;
    input.addEventListener("input", () => {
      typed[k] = input.value;
      renderFirst();
    });
    return label;
  });
  $("name-inputs").replaceChildren(...boxes);
  const hints = {
    doubles: "Partners sit opposite each other; play goes clockwise, from team to team.",
    two_vs_one: "The pair sit opposite each other and share their 12 discs, 6 each.",
    three_singles: "Play goes clockwise, one disc each in turn.",
  };
  $("names-hint").textContent = hints[$("layout").value] ?? "";
}

function renderDiscs() {
  const options = LAYOUTS[$("layout").value].discs;
  const before = Number($("discs").value);
  $("discs").replaceChildren(...options.map(([n, text]) => new Option(text, String(n))));
  if (options.some(([n]) => n === before)) $("discs").value = String(before);
  $("discs").disabled = options.length === 1;
}

function renderFirst() {
  // The chosen person (by name box) stays chosen when the format changes.
  const first = $("first-seat");
  const boxes = nameBoxes();
  const seats = CLOCKWISE.filter((s) => boxes.some((i) => i.dataset.seat === s));
  first.replaceChildren(
    ...seats.map((seat) => {
      const k = boxes.findIndex((i) => i.dataset.seat === seat);
      return new Option(boxes[k].value.trim() || boxes[k].placeholder, seat);
    }),
  );
  const chosen = boxes[firstBox] ?? boxes[0];
  first.value = chosen.dataset.seat;
}

/** The choice of games is the same for every format: filled once, at start. */
function fillGames() {
  for (let n = 1; n <= MAX_GAMES; n += 1) {
    $("games").append(new Option(n === 1 ? "One game" : `A match of ${n} games`, String(n)));
  }
}

function renderSetup() {
  renderDiscs();
  renderNames();
  renderFirst();
  renderTie();
}

function renderTie() {
  const fourRounds = $("scoring").value === "four_rounds";
  $("tie-label").hidden = !fourRounds;
  $("scoring-hint").textContent = fourRounds
    ? "The best total of a round takes 2 points, a tie 1 each; after four rounds the most points wins."
    : "The round winner adds the difference between the totals; the first to reach 100 wins.";
}

async function listSheets() {
  try {
    const { sheets } = await api("GET", "/api/sheets");
    $("sheet-list").replaceChildren(
      ...sheets.map((s) => {
        const li = el("li");
        const state = s.over ? shortResult(s) : `round ${s.rounds.length + 1} next`;
        const b = button(`${s.names.join(" – ")} (${LAYOUTS[s.layout].text}, ${state})`, null, () =>
          openSheet(s.id),
        );
        li.append(b);
        return li;
      }),
    );
    $("my-sheets").hidden = sheets.length === 0;
  } catch (err) {
    say(err.message);
  }
}

async function createSheet(event) {
  event.preventDefault();
  const layout = $("layout").value;
  const names = nameBoxes().map((i) => i.value.trim() || i.placeholder);
  const body = {
    layout,
    discs_per_side: Number($("discs").value),
    scoring: $("scoring").value,
    tie: $("tie").value,
    match_games: Number($("games").value),
    first_seat: $("first-seat").value,
  };
  const sides = LAYOUTS[layout].sides;
  if (sides.every((side) => side.length === 1)) {
    body.names = names;
  } else {
    let k = 0;
    body.players = sides.map((side) => side.map(() => names[k++]));
  }
  $("setup-error").textContent = "";
  try {
    const created = await api("POST", "/api/sheets", body);
    typed.length = 0;
    show(created);
    say(`Sheet started. ${created.next_first_name} shoots first.`);
  } catch (err) {
    $("setup-error").textContent = err.message;
  }
}

// ------------------------------------------------------------------ sheet

async function openSheet(id) {
  try {
    show(await api("GET", `/api/sheets/${id}`));
    say("");
  } catch (err) {
    localStorage.removeItem(KEY);
    say(err.message);
    showSetup();
  }
}

function showSetup() {
  sheet = null;
  $("sheet").hidden = true;
  $("setup").hidden = false;
  renderSetup();
  listSheets();
}

function discsText(view) {
  if (view.layout === "doubles") return "6 discs each (12 per team)";
  if (view.layout === "two_vs_one") return "12 discs per side (the pair 6 each)";
  return `${view.discs_per_side} discs each`;
}

function formatText(view) {
  const scoring =
    view.scoring === "four_rounds"
      ? `four rounds (2 for a round won, 1 each for a tie; a tie after four rounds ${
          view.tie === "draw" ? "is a draw" : "plays extra rounds"
        })`
      : `first to ${view.target} (the round winner adds the difference)`;
  const match =
    view.match_games > 1
      ? ` A match of ${view.match_games} games: the most games won takes it.`
      : "";
  return `${LAYOUTS[view.layout].text}, ${discsText(view)}, ${scoring}.${match}`;
}

function scoreLine(names, scores) {
  return names.map((n, i) => `${n}: ${scores[i]}`).join(" · ");
}

function gameResult(view, game) {
  const o = game.outcome;
  const score = game.scores.join(" – ");
  if (!o) return `under way, ${score}`;
  if (o.winner === null) return `drawn, ${score}`;
  return `${view.names[o.winner]} won, ${score}`;
}

function resultText(view) {
  const o = view.outcome;
  if (!o) return "";
  if (view.match_games === 1) {
    const score = view.scores.join(" – ");
    return o.winner === null
      ? `The game is a draw, ${score}.`
      : `${view.names[o.winner]} wins the game, ${score}.`;
  }
  const won = (i) => `${view.wins[i]} game${view.wins[i] === 1 ? "" : "s"}`;
  if (o.winner === null) {
    return `The match is drawn: ${o.drawn.map((i) => `${view.names[i]} ${won(i)}`).join(", ")}.`;
  }
  const others = view.names
    .map((n, i) => (i === o.winner ? null : `${n} ${won(i)}`))
    .filter(Boolean)
    .join(", ");
  return `${view.names[o.winner]} wins the match with ${won(o.winner)} (${others}).`;
}

function shortResult(view) {
  const o = view.outcome;
  if (!o) return "";
  return o.winner === null ? "drawn" : `${view.names[o.winner]} won`;
}

function countsText(counts) {
  const parts = counts.map((n, z) => (n ? `${n}×${ZONES[z]}` : null)).filter(Boolean);
  return parts.length ? parts.join(" ") : "no discs";
}

function show(view) {
  sheet = view;
  editing = null;
  if (view.id) localStorage.setItem(KEY, view.id);
  $("setup").hidden = true;
  $("sheet").hidden = false;
  $("rename").hidden = true;
  $("sheet-title").textContent = view.names.join(" – ");
  $("sheet-format").textContent = formatText(view);
  const readOnly = Boolean(shareId);
  const match = view.match_games > 1;
  const over = view.over;

  // The running score and who opens next: kept in view while entering a round.
  const gameNow = match ? `Game ${view.game} of ${view.match_games} — ` : "";
  const lastGame = view.games[view.games.length - 1];
  const scores = over && lastGame ? lastGame.scores : view.scores;
  $("running-score").textContent = `${gameNow}${scoreLine(view.names, scores)}`;
  const roundsInGame = view.rounds.filter((r) => r.game === view.game).length;
  $("next").hidden = over; // the result says it
  $("next").textContent = over
    ? ""
    : `${match ? `Game ${view.game}, round` : "Round"} ${roundsInGame + 1}: ${
        view.next_first_name
      } shoots first.`;

  $("winner").hidden = !over;
  $("winner").textContent = resultText(view);
  $("games-list").hidden = !match || view.games.length === 0;
  $("games-list").replaceChildren(
    ...view.games.map((g) => el("li", `Game ${g.number}: ${gameResult(view, g)}`)),
  );

  const columns = 3 + view.names.length + (readOnly ? 0 : 1);
  const head = el("tr");
  head.append(el("th", "Round"), el("th", "First"));
  view.names.forEach((n) => head.append(el("th", n)));
  head.append(el("th", view.scoring === "four_rounds" ? "Game score" : "Score"));
  if (!readOnly) head.append(Object.assign(el("th"), { className: "tools-col" }));
  $("rounds").tHead.replaceChildren(head);

  const points = view.scoring === "four_rounds" ? "points" : "added";
  const body = [];
  view.rounds.forEach((r) => {
    if (match && r.number === 1) {
      const tr = el("tr");
      tr.className = "game-head";
      const th = el("th", `Game ${r.game}`);
      th.colSpan = columns;
      tr.append(th);
      body.push(tr);
    }
    const tr = el("tr", "", { testid: `sheet-round-${r.index}` });
    tr.append(el("td", String(r.number)), el("td", r.first_name));
    r.totals.forEach((t, i) => {
      const td = el("td");
      td.append(el("strong", String(t)));
      const unit = points === "points" && r.points[i] === 1 ? "point" : points;
      if (r.points[i]) td.append(el("small", `+${r.points[i]} ${unit}`));
      if (r.counts) td.append(el("small", countsText(r.counts[i]), { counts: "" }));
      tr.append(td);
    });
    tr.append(el("td", r.scores.join(" – ")));
    if (!readOnly) {
      const tools = el("td");
      tools.className = "row-tools";
      const where = match ? ` of game ${r.game}` : "";
      tools.append(button("✎", `Edit round ${r.number}${where}`, () => startEdit(r)));
      tr.append(tools);
    }
    body.push(tr);
    const game = view.games[r.game - 1];
    if (match && game.outcome && r.number === game.rounds) {
      const end = el("tr");
      end.className = "game-end";
      const td = el("td", `Game ${r.game}: ${gameResult(view, game)}`);
      td.colSpan = columns;
      end.append(td);
      body.push(end);
    }
  });
  $("rounds").tBodies[0].replaceChildren(...body);

  const foot = el("tr");
  const label = el("th", match ? `Game ${view.game}` : "Total");
  label.colSpan = 2;
  foot.append(label);
  scores.forEach((s) => foot.append(el("td", String(s))));
  foot.append(el("td", ""));
  if (!readOnly) foot.append(Object.assign(el("td"), { className: "row-tools" }));
  $("rounds").tFoot.replaceChildren(foot);

  $("entry").hidden = readOnly || over;
  for (const id of ["share", "rename-open", "delete-sheet"]) $(id).hidden = readOnly;
  $("new-sheet").textContent = readOnly ? "Keep your own score" : "New sheet";
  $("csv").href = `/api/shared/${view.share_id}.csv`;
  renderEntry();
  renderEventSend();
}

// ------------------------------------------------------------------ an event's board

function eventPath(tail = "") {
  return `/api/events/${encodeURIComponent(eventBoard.event)}${tail}`;
}

/** The event and board this sheet is for, above the sheet, with the way back. */
async function showEventBar() {
  const bar = $("event-bar");
  bar.hidden = false;
  const r = await fetchJson(eventPath(), { token: true });
  const name = r.ok && r.body && r.body.settings ? r.body.settings.name : "the event";
  const back = el("a", name);
  back.href = `/events/${encodeURIComponent(eventBoard.event)}`;
  bar.replaceChildren(`Board ${eventBoard.table}, round ${eventBoard.round} of `, back);
}

/** Once the sheet's game (or match) is over: send its rounds to the event, for the other side to confirm. */
function renderEventSend() {
  if (!eventBoard || shareId) return;
  $("event-send").hidden = !(sheet && sheet.over);
  $("send-result").disabled = eventBoard.sent;
}

async function sendResult() {
  $("send-error").textContent = "";
  const path = eventPath(`/rounds/${eventBoard.round}/tables/${eventBoard.table}/result`);
  $("send-result").disabled = true;
  const r = await fetchJson(path, { method: "POST", body: sheetResult(sheet), token: true });
  if (!r.ok) {
    $("send-result").disabled = false;
    $("send-error").textContent = r.error;
    return;
  }
  eventBoard.sent = true;
  $("send-words").replaceChildren("Sent. The other side (or the organiser) confirms it on ");
  const back = el("a", "the event's page");
  back.href = `/events/${encodeURIComponent(eventBoard.event)}`;
  $("send-words").append(back, ".");
}

function mode() {
  return document.querySelector('input[name="mode"]:checked').value;
}

function renderEntry(prefill) {
  if (!sheet) return;
  const counting = mode() === "counts";
  const match = sheet.match_games > 1;
  if (editing) {
    const where = match ? ` of game ${editing.game}` : "";
    $("entry-title").textContent = `Round ${editing.number}${where}, entered again`;
  } else {
    const next = sheet.rounds.filter((r) => r.game === sheet.game).length + 1;
    $("entry-title").textContent = `${match ? `Game ${sheet.game}, round` : "Round"} ${next}`;
  }
  $("save-round").textContent = editing ? "Save round" : "Add round";
  $("cancel-edit").hidden = editing === null;
  $("delete-round").hidden = editing === null;
  $("entry-error").textContent = "";
  const sides = sheet.names.map((name, i) => {
    const box = el("fieldset");
    box.className = "side";
    box.append(el("legend", name));
    if (!counting) {
      const label = el("label", `Round total (0 to ${sheet.max_total}, in fives)`);
      const input = document.createElement("input");
      input.type = "number";
      input.inputMode = "numeric";
      input.min = "0";
      input.max = String(sheet.max_total);
      input.step = "5";
      input.dataset.testid = `sheet-total-${i}`;
      input.value = prefill?.totals ? String(prefill.totals[i]) : "";
      input.required = true;
      label.append(input);
      box.append(label);
      return box;
    }
    const counts = prefill?.counts ? prefill.counts[i] : [0, 0, 0, 0];
    ZONES.forEach((value, z) => {
      const row = el("div");
      row.className = "stepper";
      const input = document.createElement("input");
      input.type = "number";
      input.inputMode = "numeric";
      input.min = "0";
      input.max = String(sheet.discs_per_side);
      input.value = String(counts[z]);
      input.dataset.testid = `sheet-count-${i}-${value}`;
      input.dataset.side = String(i);
      input.setAttribute("aria-label", `${name}: discs on ${value}`);
      const minus = button("−", `${name}: one disc fewer on ${value}`, () => {
        input.value = String(Math.max(0, Number(input.value || 0) - 1));
        updateTotals();
      });
      minus.dataset.step = "minus";
      const plus = button("+", `${name}: one disc more on ${value}`, () => {
        // Never more discs than the side has (R2): the button stops at the limit.
        if (sideDiscs(i) < sheet.discs_per_side) input.value = String(Number(input.value || 0) + 1);
        updateTotals();
      });
      plus.dataset.step = "plus";
      plus.dataset.testid = `sheet-plus-${i}-${value}`;
      input.addEventListener("input", updateTotals);
      row.append(el("span", value === 20 ? "In the 20" : `On ${value}`), minus, input, plus);
      box.append(row);
    });
    box.append(el("p", "", { total: String(i) }));
    return box;
  });
  $("entry-sides").replaceChildren(...sides);
  updateTotals();
}

function sideInputs(i) {
  return [...$("entry-sides").querySelectorAll(`input[data-side="${i}"]`)];
}

function sideDiscs(i) {
  return sideInputs(i).reduce((sum, input) => sum + (Number(input.value) || 0), 0);
}

function updateTotals() {
  if (!sheet || mode() !== "counts") return;
  sheet.names.forEach((_, i) => {
    const inputs = sideInputs(i);
    const values = inputs.map((input) => Number(input.value) || 0);
    const total = values.reduce((sum, n, z) => sum + n * ZONES[z], 0);
    const discs = values.reduce((a, b) => a + b, 0);
    const full = discs >= sheet.discs_per_side;
    inputs.forEach((input, z) => {
      const row = input.parentElement;
      row.querySelector('[data-step="plus"]').disabled = full;
      row.querySelector('[data-step="minus"]').disabled = values[z] <= 0;
    });
    const out = $("entry-sides").querySelector(`[data-total="${i}"]`);
    const over = discs > sheet.discs_per_side;
    out.classList.toggle("error", over);
    out.textContent = over
      ? `${discs} discs counted, but a side has only ${sheet.discs_per_side}.`
      : `Total ${total} (${discs} of ${sheet.discs_per_side} discs)`;
  });
}

function readEntry() {
  const inputs = [...$("entry-sides").querySelectorAll("input")];
  const numbers = inputs.map((input) => {
    const text = input.value.trim();
    if (text === "" || !/^\d+$/.test(text)) {
      throw new Error("Fill in every box with a whole number (0 or more).");
    }
    return Number(text);
  });
  if (mode() === "totals") return { totals: numbers };
  const counts = [];
  for (let i = 0; i < numbers.length; i += 4) counts.push(numbers.slice(i, i + 4));
  return { counts };
}

async function saveRound(event) {
  event.preventDefault();
  let entry;
  try {
    entry = readEntry();
  } catch (err) {
    $("entry-error").textContent = err.message;
    return;
  }
  const before = sheet;
  const edited = editing;
  try {
    const path = edited
      ? `/api/sheets/${sheet.id}/rounds/${edited.index}`
      : `/api/sheets/${sheet.id}/rounds`;
    const view = await api(edited ? "PUT" : "POST", path, entry);
    show(view);
    say(afterSave(before, view, edited));
  } catch (err) {
    $("entry-error").textContent = err.message;
    say("");
  }
}

/** What changed, in words: the round saved, a game or the match decided, who opens next. */
function afterSave(before, view, edited) {
  if (edited) return `Round ${edited.number} saved.`;
  const last = view.rounds[view.rounds.length - 1];
  const parts = [`Round ${last.number} added.`];
  if (view.over) {
    parts.push(resultText(view));
  } else if (view.game > before.game) {
    const ended = view.games[last.game - 1];
    parts.push(`Game ${last.game}: ${gameResult(view, ended)}. Game ${view.game} begins.`);
  }
  if (!view.over) parts.push(`${view.next_first_name} shoots first.`);
  return parts.join(" ");
}

function startEdit(round) {
  editing = round;
  $("entry").hidden = false;
  const radio = document.querySelector(
    `input[name="mode"][value="${round.counts ? "counts" : "totals"}"]`,
  );
  radio.checked = true;
  renderEntry(round);
  $("entry").scrollIntoView({ block: "nearest" });
  $("entry-sides").querySelector("input")?.focus();
}

async function deleteRound() {
  const round = editing;
  if (!round) return;
  const where = sheet.match_games > 1 ? ` of game ${round.game}` : "";
  if (!confirm(`Delete round ${round.number}${where}? The scores after it are worked out again.`)) {
    return;
  }
  try {
    show(await api("DELETE", `/api/sheets/${sheet.id}/rounds/${round.index}`));
    say(`Round ${round.number}${where} deleted.`);
  } catch (err) {
    $("entry-error").textContent = err.message;
  }
}

// ------------------------------------------------------------------ rename and delete

function openRename() {
  const teams = sheet.players_named;
  const inputs = [];
  sheet.sides.forEach((side, i) => {
    const names = teams ? side.players : [side.name];
    names.forEach((name, j) => {
      const text = teams ? `${side.name}, player ${j + 1}` : `Side ${i + 1}`;
      inputs.push(nameField(text, name, { side: String(i), testid: `rename-${i}-${j}` }));
    });
  });
  $("rename-inputs").replaceChildren(...inputs);
  $("rename-error").textContent = "";
  $("rename").hidden = false;
  $("rename").scrollIntoView({ block: "nearest" });
  $("rename-inputs").querySelector("input")?.focus();
}

async function saveRename(event) {
  event.preventDefault();
  const inputs = [...$("rename-inputs").querySelectorAll("input")];
  const body = {};
  if (sheet.players_named) {
    body.players = sheet.sides.map((_, i) =>
      inputs.filter((x) => x.dataset.side === String(i)).map((x) => x.value.trim()),
    );
  } else {
    body.names = inputs.map((x) => x.value.trim());
  }
  try {
    const view = await api("PATCH", `/api/sheets/${sheet.id}`, body);
    show(view);
    say("Names saved.");
  } catch (err) {
    $("rename-error").textContent = err.message;
  }
}

async function deleteSheet() {
  const title = sheet.names.join(" – ");
  if (!confirm(`Delete the sheet ${title}? It cannot be brought back, and its share link stops working.`)) {
    return;
  }
  try {
    await api("DELETE", `/api/sheets/${sheet.id}`);
    localStorage.removeItem(KEY);
    showSetup();
    say(`The sheet ${title} was deleted.`);
  } catch (err) {
    say(err.message);
  }
}

function share() {
  const url = `${location.origin}/keep-score?share=${sheet.share_id}`;
  $("share-url").value = url;
  $("share-box").hidden = false;
  $("share-url").select();
}

// ------------------------------------------------------------------ start

async function start() {
  fillGames();
  $("layout").addEventListener("change", renderSetup); // typed names are kept
  $("scoring").addEventListener("change", renderTie); // names and first shooter stay
  $("first-seat").addEventListener("change", () => {
    firstBox = nameBoxes().findIndex((i) => i.dataset.seat === $("first-seat").value);
  });
  $("setup-form").addEventListener("submit", createSheet);
  $("entry").addEventListener("submit", saveRound);
  document
    .querySelectorAll('input[name="mode"]')
    .forEach((r) => r.addEventListener("change", () => renderEntry(editing ?? undefined)));
  $("cancel-edit").addEventListener("click", () => show(sheet));
  $("delete-round").addEventListener("click", deleteRound);
  $("rename-open").addEventListener("click", openRename);
  $("rename").addEventListener("submit", saveRename);
  $("rename-cancel").addEventListener("click", () => ($("rename").hidden = true));
  $("delete-sheet").addEventListener("click", deleteSheet);
  $("share").addEventListener("click", share);
  $("copy").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("share-url").value);
      say("Link copied.");
    } catch {
      $("share-url").select();
      say("Select the link and copy it.");
    }
  });
  $("print").addEventListener("click", () => window.print());
  $("send-result").addEventListener("click", sendResult);
  if (eventBoard) showEventBar();
  $("new-sheet").addEventListener("click", () => {
    if (shareId) {
      location.href = "/keep-score";
      return;
    }
    localStorage.removeItem(KEY);
    showSetup();
    say("");
  });

  if (shareId) {
    try {
      const r = await fetchJson(`/api/shared/${encodeURIComponent(shareId)}`);
      if (!r.ok) throw new Error(r.status && !(r.body && r.body.message) ? "That link does not lead to a sheet." : r.error);
      show(r.body);
      say("A shared score sheet (read only).");
    } catch (err) {
      say(err.message);
    }
    return;
  }
  const wanted = params.get("sheet") || localStorage.getItem(KEY);
  if (wanted) await openSheet(wanted);
  else showSetup();
}

start();
