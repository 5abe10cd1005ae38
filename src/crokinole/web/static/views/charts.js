// Small SVG line charts as strings (no library, no style attributes: the page's CSS colours
// them): the open-20 trend of the drills page and the swing of a round in the game review.

function esc(s) {
  return String(s).replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]);
}

const f = (v) => (Math.round(v * 10) / 10).toString();

/**
 * A line chart. `points`: [{y, label, cls}] in order (x is the index). Options: width, height
 * (CSS pixels: draw it at its box's width so the text keeps the page's size), yMin, yMax,
 * ticks ([{v, text}] lines across with their labels), xFirst / xLast (labels under the first
 * and last point), zero (a heavier line at y = 0, with the area above and below it shaded),
 * start (a point at x = 0 before the first one, e.g. the margin before a round's first shot),
 * cls (the svg's class), testid, summary (what a screen reader hears: the chart in words).
 */
export function lineChart(points, o = {}) {
  const width = o.width || 480;
  const height = o.height || 200;
  const left = o.left ?? 44;
  const right = 12;
  const top = 12;
  const bottom = 26;
  const all = (o.start !== undefined ? [{ y: o.start, start: true }] : []).concat(points);
  const n = all.length;
  if (!n) return "";
  const yMin = o.yMin;
  const yMax = o.yMax;
  const x = (i) => left + (n === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (n - 1));
  const y = (v) => top + ((yMax - Math.min(yMax, Math.max(yMin, v))) * (height - top - bottom)) / (yMax - yMin || 1);
  const ticks = (o.ticks || []).map((t) => `<line class="${t.v === 0 && o.zero ? "zero" : "grid"}" x1="${left}" x2="${width - right}" y1="${f(y(t.v))}" y2="${f(y(t.v))}"/>`
    + `<text class="axis" x="${left - 6}" y="${f(y(t.v) + 4)}" text-anchor="end">${esc(t.text)}</text>`).join("");
  const line = all.map((p, i) => `${i ? "L" : "M"}${f(x(i))} ${f(y(p.y))}`).join(" ");
  let areas = "";
  if (o.zero && n > 1) {
    const z = y(0);
    const base = `M${f(x(0))} ${f(z)} ${all.map((p, i) => `L${f(x(i))} ${f(y(p.y))}`).join(" ")} L${f(x(n - 1))} ${f(z)} Z`;
    const id = `clip${Math.random().toString(36).slice(2, 9)}`;
    areas = `<defs><clipPath id="${id}-up"><rect x="0" y="0" width="${width}" height="${f(z)}"/></clipPath>`
      + `<clipPath id="${id}-down"><rect x="0" y="${f(z)}" width="${width}" height="${f(height - z)}"/></clipPath></defs>`
      + `<path class="area-up" d="${base}" clip-path="url(#${id}-up)"/><path class="area-down" d="${base}" clip-path="url(#${id}-down)"/>`;
  }
  const r = n > 40 ? 2.5 : 4;
  const dots = all.map((p, i) => (p.start ? "" : `<circle class="dot ${esc(p.cls || "")}" cx="${f(x(i))}" cy="${f(y(p.y))}" r="${r}"><title>${esc(p.label || "")}</title></circle>`)).join("");
  const labels = (o.xFirst ? `<text class="axis" x="${f(x(0))}" y="${height - 8}" text-anchor="${n === 1 ? "middle" : "start"}">${esc(o.xFirst)}</text>` : "")
    + (o.xLast && n > 1 ? `<text class="axis" x="${f(x(n - 1))}" y="${height - 8}" text-anchor="end">${esc(o.xLast)}</text>` : "");
  return `<svg class="${esc(o.cls || "chart-svg")}" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img"`
    + ` aria-label="${esc(o.summary || "")}"${o.testid ? ` data-testid="${esc(o.testid)}"` : ""} preserveAspectRatio="xMidYMid meet">`
    + `${areas}${ticks}<path class="line" d="${line}"/>${dots}${labels}</svg>`;
}

/**
 * Redraw every chart in `boxes` (elements with a `chart` property: a function of the width in
 * CSS pixels returning the SVG) when its width changed; call on load and on resize.
 */
export function drawCharts(boxes) {
  for (const box of boxes) {
    if (typeof box.chart !== "function") continue;
    const width = Math.max(220, Math.round(box.clientWidth));
    if (box.dataset.width === String(width)) continue;
    box.dataset.width = String(width);
    box.innerHTML = box.chart(width);
  }
}
