// Small DOM helpers shared by the views.

export const $ = (id) => document.getElementById(id);

export function escapeHtml(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

export function openDialog(d) {
  if (!d.open) d.showModal();
}

export function closeDialog(d) {
  if (d.open) d.close();
}

export function anyModalOpen() {
  return Array.from(document.querySelectorAll("dialog")).some((d) => d.open && !d.classList.contains("peek"));
}

/** An element with a class and text (never HTML: names are what players typed). */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = text;
  return e;
}

export function button(text, onClick, attrs = {}) {
  const b = el("button", attrs.cls || "", text);
  b.type = "button";
  for (const [k, v] of Object.entries(attrs)) if (k !== "cls") b.setAttribute(k, v);
  b.addEventListener("click", onClick);
  return b;
}
