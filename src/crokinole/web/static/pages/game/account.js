// The start screen's account area: sign up, log in, log out, change password, and attach this
// device's guest games to the account (docs/protocol.md, "Accounts (HTTP)"). Accounts are
// optional: nothing else on the page waits for them. The session lives in an HttpOnly cookie
// the page never sees; what the server answers is shown as it comes.

import { fetchJson, said } from "../../lib/api.js";
import { $, closeDialog, openDialog } from "../../lib/dom.js";
import { deviceToken } from "../../lib/store.js";
import { renderAccount, whoIsSignedIn } from "../../views/topbar.js";

/** A request to the accounts' API: {ok, status, data}, data.message the server's words as it wrote them. */
async function call(path, body, headers = {}) {
  const r = await fetchJson(path, { method: body === undefined ? "GET" : "POST", body, headers });
  return { ok: r.ok, status: r.status, data: r.ok ? r.body : { ...r.body, message: said(r) } };
}

const A = { username: null, mode: "login" };
window.crokinoleAccount = A; // for tests: who is signed in

function status(text) {
  $("account-status").textContent = text || "";
}

function render() {
  const signedIn = Boolean(A.username);
  $("account-guest").hidden = signedIn;
  $("account-user").hidden = !signedIn;
  $("account-name").textContent = A.username || "";
  if (!signedIn) $("attach-offer").hidden = true;
  renderAccount(A.username); // the top bar's link: the profile, or "Log in"
  // Ranked play (ranked.js) follows who is signed in.
  document.dispatchEvent(new CustomEvent("account", { detail: { username: A.username || null } }));
}

function openAccountDialog(mode) {
  A.mode = mode;
  const signup = mode === "signup";
  const form = $("account-form");
  form.reset();
  $("account-title").textContent = signup ? "Sign up" : "Log in";
  $("account-submit").textContent = signup ? "Sign up" : "Log in";
  $("account-password").autocomplete = signup ? "new-password" : "current-password";
  $("username-rule").hidden = !signup;
  $("password-rule").hidden = !signup;
  $("account-error").textContent = "";
  openDialog($("account-dialog"));
  $("account-username").focus();
}

async function submitAccount(event) {
  event.preventDefault();
  const f = $("account-form").elements;
  const body = { username: f.username.value.trim(), password: f.password.value };
  if (!body.username || !body.password) {
    $("account-error").textContent = "Fill in the username and the password.";
    return;
  }
  const button = $("account-submit");
  button.disabled = true;
  $("account-error").textContent = ""; // a repeated message is a new answer
  const answer = await call(`/api/account/${A.mode}`, body);
  button.disabled = false;
  if (!answer.ok) {
    $("account-error").textContent = answer.data.message;
    return;
  }
  const signup = A.mode === "signup";
  A.username = answer.data.username;
  f.password.value = "";
  closeDialog($("account-dialog"));
  render();
  status(signup ? `Welcome, ${A.username}: your account is ready.` : `Welcome back, ${A.username}.`);
  $("attach-offer").hidden = false;
}

async function logOut() {
  const answer = await call("/api/account/logout", {});
  if (!answer.ok) {
    status(answer.data.message);
    return;
  }
  A.username = null;
  render();
  status("Logged out. You play as a guest on this device.");
}

function openPasswordDialog() {
  const form = $("password-form");
  form.reset();
  form.elements.username.value = A.username || "";
  $("password-error").textContent = "";
  openDialog($("password-dialog"));
  form.elements.old_password.focus();
}

async function submitPassword(event) {
  event.preventDefault();
  const f = $("password-form").elements;
  const body = { old_password: f.old_password.value, new_password: f.new_password.value };
  if (!body.old_password || !body.new_password) {
    $("password-error").textContent = "Fill in both passwords.";
    return;
  }
  $("password-error").textContent = "";
  const answer = await call("/api/account/password", body);
  if (!answer.ok) {
    $("password-error").textContent = answer.data.message;
    if (answer.status === 401) {
      A.username = null;
      render();
    }
    return;
  }
  closeDialog($("password-dialog"));
  status("Your password is changed. Your other devices are signed out.");
}

async function attach() {
  const answer = await call("/api/account/attach", {}, { "X-Device-Token": deviceToken() });
  if (!answer.ok) {
    status(answer.data.message);
    return;
  }
  $("attach-offer").hidden = true;
  const n = answer.data.attached;
  status(n === 1 ? "1 game of this device now counts for your account."
    : `${n} games of this device now count for your account.`);
}

async function start() {
  $("signup-open").addEventListener("click", () => openAccountDialog("signup"));
  $("login-open").addEventListener("click", () => openAccountDialog("login"));
  $("account-form").addEventListener("submit", submitAccount);
  $("account-cancel").addEventListener("click", () => closeDialog($("account-dialog")));
  $("logout-button").addEventListener("click", logOut);
  $("password-open").addEventListener("click", openPasswordDialog);
  $("password-form").addEventListener("submit", submitPassword);
  $("password-cancel").addEventListener("click", () => closeDialog($("password-dialog")));
  $("attach-button").addEventListener("click", attach);
  $("attach-later").addEventListener("click", () => {
    $("attach-offer").hidden = true;
    status("");
  });
  // The top bar's "Log in" (a link to /#account from every page) opens the dialog here.
  $("nav-account").addEventListener("click", (ev) => {
    if (A.username) return; // the profile's link
    ev.preventDefault();
    openAccountDialog("login");
  });
  A.username = await whoIsSignedIn();
  render();
  A.ready = true;
  if (!A.username && location.hash === "#account") {
    history.replaceState(null, "", location.pathname + location.search);
    openAccountDialog("login");
  }
}

start();
