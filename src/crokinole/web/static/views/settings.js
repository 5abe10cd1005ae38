// The Settings dialog: preferences (sound, colours, the CPU's pause, turning the board, being
// told of your turn in an online game, your name at a table), and leaving the game (resign
// against the CPU or at a ranked table, leave a party), confirmed.

import { cpuOpponent } from "./dialogs.js";
import { VIBRATION_MS, onlineGame, vibrationWanted } from "../lib/attention.js";
import { $, closeDialog, openDialog } from "../lib/dom.js";
import { isHotSeat, isSpectator, memberOf } from "../lib/state.js";
import { savePrefs } from "../lib/store.js";

let h = null;
let confirming = null; // "new" | "resign" while the dialog asks to confirm

function inGame() {
  const S = h.state();
  return h.screen() === "game" && Boolean(S.game) && S.stage === "playing" && !isSpectator(S);
}

function askConfirm(action, label) {
  const S = h.state();
  confirming = action;
  $("settings-confirm").hidden = false;
  const cpu = cpuOpponent(S) !== null;
  $("settings-confirm").querySelector("p").textContent = S.kind === "party"
    ? "Leave this game? A CPU plays your seat for the rest of it."
    : S.ranked
      ? "Resign this ranked game? Leaving a ranked game counts as a loss for your rating."
      : action === "resign"
      ? `Resign this game? ${cpu ? "It counts as a loss in your record." : "It ends without a winner."}`
      : `A new game abandons this one. ${cpu ? "It counts as a loss in your record, as resigning does." : "It ends without a winner."}`;
  $(action === "resign" ? "settings-resign" : "settings-new").textContent = label;
}

function resetConfirm() {
  confirming = null;
  $("settings-confirm").hidden = true;
  const S = h.state();
  $("settings-new").textContent = S.kind === "party" ? "Stop watching" : S.ranked ? "Back to the start" : "New game";
  $("settings-resign").textContent = S.kind === "party" ? "Leave the game" : "Resign";
}

const notifiable = () => "Notification" in window;

/**
 * "Notify me when it's my turn": the browser is asked for its permission here, from the
 * player's click, never on load; a refusal unticks the box and says how to allow it later.
 */
async function setNotify(box) {
  const say = (text) => {
    $("notify-status").hidden = !text; // no empty line under the box
    $("notify-status").textContent = text;
  };
  say("");
  let on = box.checked;
  if (on && !notifiable()) {
    say("This browser cannot show notifications.");
    on = false;
  } else if (on && Notification.permission !== "granted") {
    let answer = Notification.permission;
    if (answer === "default") answer = (await Notification.requestPermission()) || Notification.permission;
    if (answer !== "granted") {
      say(answer === "denied"
        ? "Notifications are blocked for this site: allow them in your browser's site settings, then tick this again."
        : "Notifications were not allowed.");
      on = false;
    }
  }
  box.checked = on;
  h.prefs().notify = on;
  savePrefs(h.prefs());
}

/**
 * Wire the dialog. `hooks`: {state(), screen(), prefs(), cpuPause(), setSound(on), applyScheme(),
 * refresh(), send(msg), leave() (to the start screen, resigning a game in progress),
 * leftParty() (forget the party left), vibration() (attention.js vibrationWanted's device)}.
 */
export function wireSettings(hooks) {
  h = hooks;
  const settings = $("settings-dialog");
  const sform = $("settings-form");
  $("settings-button").addEventListener("click", () => {
    const S = h.state();
    const prefs = h.prefs();
    sform.elements.turn_board.checked = !prefs.fixed_board;
    sform.elements.sound.checked = Boolean(prefs.sound);
    sform.elements.scheme.value = prefs.scheme || "classic";
    sform.elements.cpu_pause.value = String(h.cpuPause());
    if (!sform.elements.cpu_pause.value) sform.elements.cpu_pause.value = "0.8";
    const me = memberOf(S, S.you.member);
    // People sharing a device named their seats when they started: the device's name shows nowhere.
    $("rename-field").hidden = !me || isHotSeat(S);
    sform.elements.rename.value = me ? me.name : "";
    resetConfirm();
    $("settings-resign").hidden = !inGame();
    // In a party a player leaves with "Leave the game" (a spectator: "Stop watching"); turning
    // the board is for several players on one device.
    const party = S.kind === "party";
    // At a ranked game in play "Resign" is the one way out (it costs rating, and says so).
    $("settings-new").hidden = h.screen() === "start" || (party && !isSpectator(S)) || (S.ranked && inGame());
    // A ranked table has one player per device and no CPU opponent: neither preference means anything there.
    $("turn-board-field").hidden = party || S.ranked;
    $("cpu-pause-field").hidden = Boolean(S.ranked);
    // Being called back to your turn is for online games: not at a table of this device alone.
    $("attention-fields").hidden = Boolean(S.table) && !onlineGame(S);
    sform.elements.notify.checked = Boolean(prefs.notify) && notifiable() && Notification.permission === "granted";
    $("notify-status").textContent = "";
    $("notify-status").hidden = true;
    $("vibrate-field").hidden = !h.vibration().canVibrate;
    sform.elements.vibrate.checked = vibrationWanted(prefs.vibrate, h.vibration());
    openDialog(settings);
  });
  sform.elements.sound.addEventListener("change", () => h.setSound(sform.elements.sound.checked));
  sform.elements.notify.addEventListener("change", () => setNotify(sform.elements.notify));
  sform.elements.vibrate.addEventListener("change", () => {
    const on = sform.elements.vibrate.checked;
    h.prefs().vibrate = on;
    savePrefs(h.prefs());
    if (on) navigator.vibrate(VIBRATION_MS); // what it will feel like
  });
  sform.elements.scheme.addEventListener("change", () => {
    h.prefs().scheme = sform.elements.scheme.value;
    savePrefs(h.prefs());
    h.applyScheme();
  });
  sform.elements.cpu_pause.addEventListener("change", () => {
    h.prefs().cpu_pause = Number.parseFloat(sform.elements.cpu_pause.value);
    savePrefs(h.prefs());
  });
  sform.elements.turn_board.addEventListener("change", () => {
    h.prefs().fixed_board = !sform.elements.turn_board.checked;
    savePrefs(h.prefs());
    h.refresh();
  });
  sform.elements.rename.addEventListener("change", () => {
    const name = sform.elements.rename.value.trim();
    const S = h.state();
    if (name && S.table) h.send({ type: "rename", table: S.table, name });
  });
  $("settings-close").addEventListener("click", () => closeDialog(settings));
  settings.addEventListener("close", resetConfirm);
  $("settings-new").addEventListener("click", () => {
    if (inGame() && confirming !== "new") {
      askConfirm("new", "Yes, leave it and start anew");
      return;
    }
    closeDialog(settings);
    h.leave();
  });
  $("settings-resign").addEventListener("click", () => {
    const S = h.state();
    if (confirming !== "resign") {
      askConfirm("resign", S.kind === "party" ? "Yes, leave" : "Yes, resign");
      return;
    }
    closeDialog(settings);
    h.send({ type: S.kind === "party" ? "leave" : "resign", table: S.table });
    if (S.kind === "party") h.leftParty();
  });
}
