// The score keeper: score sheets for games on a real board, kept on the server
// (tied to this device's token) and shared read-only by link.  The server
// validates every entry and computes points, running scores and the winner
// with the rules engine; this page only shows them and collects entries.

import { deviceToken } from "./store.js";

const LAYOUT_SIDES = {
  singles: [["south"], ["north"]],
  doubles: [["south", "north"], ["west", "east"]],
  two_vs_one: [["south", "north"], ["west"]],
  three_singles: [["south"], ["west"], ["north"]],
};
const DEFAULT_NAMES = {
  singles: ["Player 1", "Player 2"],
  doubles: ["Team 1", "Team 2"],
  two_vs_one: ["Pair", "Single"],
  three_singles: ["Player 1", "Player 2", "Player 3"],
};
const LAYOUT_TEXT = {
  singles: "Singles",
  doubles: "Doubles",
  two_vs_one: "2 against 1",
  three_singles: "Three singles",
};
const ZONES = [
  ["20s", 20],
  ["15s", 15],
  ["10s", 10],
  ["5s", 5],
];
const KEY = "crokinole.sheet";

const $ = (id) => document.getElementById(id);
const token = deviceToken();
const params = new URLSearchParams(location.search);
const shareId = params.get("share");
let sheet = null; // the server's view of the open sheet
let editing = null; // round number being entered again, or null

function say(text) {
  $("status").textContent = text;
}

function titleCase(seat) {
  return seat.charAt(0).toUpperCase() + seat.slice(1);
}

async function api(method, path, body) {
  const init = { method, headers: { "X-Device-Token": token } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let answer;
  try {
    answer = await fetch(path, init);
  } catch {
    throw new Error("The server cannot be reached; nothing was saved. Try again.");
  }
  if (answer.status === 204) return null;
  const data = await answer.json().catch(() => ({}));
  if (!answer.ok) throw new Error(data.error || `The server answered ${answer.status}.`);
  return data;
}

// ------------------------------------------------------------------ setup

function sideLabel(layout, index) {
  const seats = LAYOUT_SIDES[layout][index].map(titleCase).join(" & ");
  return `${index + 1}: ${seats}`;
}

function renderSetup() {
  const layout = $("layout").value;
  const names = $("names");
  names.querySelectorAll("label").forEach((l) => l.remove());
  LAYOUT_SIDES[layout].forEach((_, i) => {
    const label = document.createElement("label");
    label.textContent = `Side ${sideLabel(layout, i)}`;
    const input = document.createElement("input");
    input.type = "text";
    input.maxLength = 40;
    input.required = true;
    input.value = DEFAULT_NAMES[layout][i];
    input.dataset.testid = `sheet-name-${i}`;
    input.autocomplete = "off";
    label.append(input);
    names.append(label);
  });
  const first = $("first-seat");
  first.replaceChildren(
    ...LAYOUT_SIDES[layout].flat().map((seat) => new Option(titleCase(seat), seat)),
  );
  $("tie-label").hidden = $("scoring").value !== "four_rounds";
}

async function listSheets() {
  try {
    const { sheets } = await api("GET", "/api/sheets");
    const list = $("sheet-list");
    list.replaceChildren(
      ...sheets.map((s) => {
        const li = document.createElement("li");
        const button = document.createElement("button");
        button.type = "button";
        const state = s.over ? "finished" : `round ${s.rounds.length + 1}`;
        button.textContent = `${s.names.join(" – ")} (${LAYOUT_TEXT[s.layout]}, ${state})`;
        button.addEventListener("click", () => openSheet(s.id));
        li.append(button);
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
  const names = [...$("names").querySelectorAll("input")].map((i) => i.value.trim());
  try {
    const created = await api("POST", "/api/sheets", {
      layout: $("layout").value,
      names,
      scoring: $("scoring").value,
      tie: $("tie").value,
      first_seat: $("first-seat").value,
    });
    show(created);
    say("Sheet started.");
  } catch (err) {
    say(err.message);
  }
}

// ------------------------------------------------------------------ sheet

async function openSheet(id) {
  try {
    show(await api("GET", `/api/sheets/${id}`));
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

function formatText(view) {
  const scoring =
    view.scoring === "four_rounds"
      ? `four rounds (2 for a round won, 1 each for a tie; a tie after four rounds ${
          view.tie === "draw" ? "is a draw" : "plays extra rounds"
        })`
      : `first to ${view.target} (the round winner adds the difference)`;
  return `${LAYOUT_TEXT[view.layout]}, ${view.discs_per_side} discs per side, ${scoring}.`;
}

function cell(tag, text, attrs = {}) {
  const el = document.createElement(tag);
  el.textContent = text;
  Object.assign(el.dataset, attrs);
  return el;
}

function show(view) {
  sheet = view;
  editing = null;
  if (view.id) localStorage.setItem(KEY, view.id);
  $("setup").hidden = true;
  $("sheet").hidden = false;
  $("sheet-title").textContent = view.names.join(" – ");
  $("sheet-format").textContent = formatText(view);
  const readOnly = Boolean(shareId);
  const points = view.scoring === "four_rounds" ? "points" : "added";

  const head = document.createElement("tr");
  head.append(cell("th", "Round"), cell("th", "First"));
  view.names.forEach((n) => head.append(cell("th", n)));
  head.append(cell("th", view.scoring === "four_rounds" ? "Game points" : "Score"));
  if (!readOnly) head.append(cell("th", ""));
  $("rounds").tHead.replaceChildren(head);

  const body = view.rounds.map((r) => {
    const tr = document.createElement("tr");
    tr.dataset.testid = `sheet-round-${r.number}`;
    tr.append(cell("td", String(r.number)), cell("td", titleCase(r.first)));
    r.totals.forEach((t, i) => {
      const td = cell("td", String(t));
      const detail = document.createElement("small");
      detail.textContent = ` +${r.points[i]}`;
      detail.title = `${r.points[i]} ${points}`;
      if (r.counts) {
        const [a, b, c, d] = r.counts[i];
        td.title = `${a}×20, ${b}×15, ${c}×10, ${d}×5`;
      }
      td.append(detail);
      tr.append(td);
    });
    tr.append(cell("td", r.scores.join(" – ")));
    if (!readOnly) {
      const tools = document.createElement("td");
      tools.className = "row-tools";
      const edit = cell("button", "✎");
      edit.type = "button";
      edit.setAttribute("aria-label", `Edit round ${r.number}`);
      edit.addEventListener("click", () => startEdit(r));
      const del = cell("button", "✕");
      del.type = "button";
      del.setAttribute("aria-label", `Delete round ${r.number}`);
      del.addEventListener("click", () => deleteRound(r.number));
      tools.append(edit, del);
      tr.append(tools);
    }
    return tr;
  });
  $("rounds").tBodies[0].replaceChildren(...body);

  const foot = document.createElement("tr");
  foot.append(cell("th", "Game"), cell("td", ""));
  view.scores.forEach((s) => foot.append(cell("td", String(s))));
  foot.append(cell("td", ""));
  if (!readOnly) foot.append(cell("td", ""));
  $("rounds").tFoot.replaceChildren(foot);

  const over = view.over;
  $("winner").hidden = !over;
  if (over) {
    const o = view.outcome;
    $("winner").textContent =
      o.winner === null
        ? `The game is a draw (${o.drawn.map((i) => view.names[i]).join(" and ")}).`
        : `${view.names[o.winner]} wins the game, ${view.scores.join(" – ")}.`;
  }
  $("next").textContent = over
    ? ""
    : `Round ${view.rounds.length + 1}: ${titleCase(view.next_first)} shoots first.`;
  $("entry").hidden = readOnly || (over && editing === null);
  $("save-round").hidden = false;
  document.querySelectorAll(".owner-only").forEach((el) => (el.hidden = readOnly));
  $("share").hidden = readOnly;
  $("new-sheet").textContent = readOnly ? "Keep your own score" : "New sheet";
  $("csv").href = `/api/shared/${view.share_id}.csv`;
  renderEntry();
}

function mode() {
  return document.querySelector('input[name="mode"]:checked').value;
}

function renderEntry(prefill) {
  if (!sheet) return;
  const counting = mode() === "counts";
  $("entry-title").textContent = editing
    ? `Round ${editing}, entered again`
    : `Round ${sheet.rounds.length + 1}`;
  $("save-round").textContent = editing ? "Save round" : "Add round";
  $("cancel-edit").hidden = editing === null;
  $("entry-error").textContent = "";
  const sides = sheet.names.map((name, i) => {
    const box = document.createElement("fieldset");
    box.className = "side";
    box.append(cell("legend", name));
    if (!counting) {
      const label = document.createElement("label");
      label.textContent = "Round total";
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
    ZONES.forEach(([label, value], z) => {
      const row = document.createElement("div");
      row.className = "stepper";
      const minus = cell("button", "−");
      minus.type = "button";
      minus.setAttribute("aria-label", `${name}: one disc fewer on ${value}`);
      const input = document.createElement("input");
      input.type = "number";
      input.inputMode = "numeric";
      input.min = "0";
      input.max = String(sheet.discs_per_side);
      input.value = String(counts[z]);
      input.dataset.testid = `sheet-count-${i}-${value}`;
      input.setAttribute("aria-label", `${name}: discs on ${value}`);
      const plus = cell("button", "+");
      plus.type = "button";
      plus.setAttribute("aria-label", `${name}: one disc more on ${value}`);
      minus.addEventListener("click", () => {
        input.value = String(Math.max(0, Number(input.value || 0) - 1));
        updateTotals();
      });
      plus.addEventListener("click", () => {
        input.value = String(Number(input.value || 0) + 1);
        updateTotals();
      });
      input.addEventListener("input", updateTotals);
      row.append(cell("span", label), minus, input, plus);
      box.append(row);
    });
    box.append(cell("p", "", { total: String(i) }));
    return box;
  });
  $("entry-sides").replaceChildren(...sides);
  updateTotals();
}

function updateTotals() {
  if (!sheet || mode() !== "counts") return;
  sheet.names.forEach((_, i) => {
    const values = ZONES.map(([, v]) => Number($("entry-sides").querySelector(`[data-testid="sheet-count-${i}-${v}"]`).value || 0));
    const total = values.reduce((sum, n, z) => sum + n * ZONES[z][1], 0);
    const discs = values.reduce((a, b) => a + b, 0);
    const out = $("entry-sides").querySelector(`[data-total="${i}"]`);
    out.textContent = `Total ${total} (${discs} of ${sheet.discs_per_side} discs)`;
  });
}

function readEntry() {
  const inputs = [...$("entry-sides").querySelectorAll("input")];
  const numbers = inputs.map((input) => {
    const text = input.value.trim();
    if (text === "" || !/^-?\d+$/.test(text)) {
      throw new Error("Every box needs a whole number.");
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
  try {
    const path = editing
      ? `/api/sheets/${sheet.id}/rounds/${editing}`
      : `/api/sheets/${sheet.id}/rounds`;
    const view = await api(editing ? "PUT" : "POST", path, entry);
    const what = editing ? `Round ${editing} saved.` : `Round ${view.rounds.length} added.`;
    show(view);
    say(what);
  } catch (err) {
    $("entry-error").textContent = err.message;
  }
}

function startEdit(round) {
  editing = round.number;
  $("entry").hidden = false;
  const radio = document.querySelector(`input[name="mode"][value="${round.counts ? "counts" : "totals"}"]`);
  radio.checked = true;
  renderEntry(round);
  $("entry").scrollIntoView({ block: "nearest" });
  $("entry-sides").querySelector("input")?.focus();
}

async function deleteRound(number) {
  if (!confirm(`Delete round ${number}? The totals after it follow.`)) return;
  try {
    show(await api("DELETE", `/api/sheets/${sheet.id}/rounds/${number}`));
    say(`Round ${number} deleted.`);
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
  $("layout").addEventListener("change", renderSetup);
  $("scoring").addEventListener("change", renderSetup);
  $("setup-form").addEventListener("submit", createSheet);
  $("entry").addEventListener("submit", saveRound);
  document.querySelectorAll('input[name="mode"]').forEach((r) => r.addEventListener("change", () => renderEntry()));
  $("cancel-edit").addEventListener("click", () => show(sheet));
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
  $("new-sheet").addEventListener("click", () => {
    if (shareId) {
      location.href = "/keep-score";
      return;
    }
    localStorage.removeItem(KEY);
    showSetup();
  });

  if (shareId) {
    try {
      const response = await fetch(`/api/shared/${encodeURIComponent(shareId)}`);
      const data = await response.json();
      if (!response.ok) throw new Error(data.error || "That link does not lead to a sheet.");
      show(data);
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
