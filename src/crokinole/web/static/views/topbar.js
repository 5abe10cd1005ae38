// The site's top bar, on every page (partials/topbar.html, put in each page by the server):
// the menu's button on phones, and the account's link (who is signed in, or "Log in").
//
// wire() once as the page starts; renderAccount(username) whenever the page learns who is
// signed in (the game's account box calls it after logging in or out).

import { fetchJson } from "../lib/api.js";

const byId = (id) => document.getElementById(id);

let signedIn = null;
/**
 * Who is signed in as the page opened: a promise of the username, or null for a guest (one
 * GET /api/account a page, shared by the bar and whatever else on the page asks).
 */
export function whoIsSignedIn() {
  signedIn ??= fetchJson("/api/account").then((r) => (r.ok && r.body ? r.body.username || null : null));
  return signedIn;
}

/** The account's link: a signed-in player's profile, or "Log in" (the start page's box). */
export function renderAccount(username) {
  const link = byId("nav-account");
  if (!link) return;
  if (username) {
    link.textContent = username;
    link.href = `/players/${encodeURIComponent(username)}`;
    link.setAttribute("aria-label", `${username}, your profile`); // the visible name first (axe: label-content-name-mismatch)
    link.dataset.signedIn = "true";
  } else {
    link.textContent = "Log in";
    link.href = "/#account";
    link.removeAttribute("aria-label");
    delete link.dataset.signedIn;
  }
}

function setOpen(open) {
  const menu = byId("menu-button");
  menu.setAttribute("aria-expanded", String(open));
  byId("site-nav").classList.toggle("open", open);
}

export function wire() {
  const menu = byId("menu-button");
  const nav = byId("site-nav");
  if (!menu || !nav) return;
  menu.addEventListener("click", () => setOpen(menu.getAttribute("aria-expanded") !== "true"));
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape" && menu.getAttribute("aria-expanded") === "true") {
      setOpen(false);
      menu.focus();
    }
  });
  document.addEventListener("click", (ev) => {
    if (menu.getAttribute("aria-expanded") === "true" && !menu.contains(ev.target) && !nav.contains(ev.target)) setOpen(false);
  });
  // A link that opens something on this page (the game's rules dialog) closes the menu too.
  nav.addEventListener("click", (ev) => {
    if (ev.target.closest("a")) setOpen(false);
  });
}

async function start() {
  wire();
  renderAccount(await whoIsSignedIn());
}

start();
