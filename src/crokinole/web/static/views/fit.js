// The board's size on every page that shows one (the game, practice, drills, the replay):
// all of the board in the visible area, as large as the room beside or under the rest allows.

/** Landscape screens put the board beside a side column (style.css, min-aspect-ratio 5/4). */
export function wideScreen() {
  return window.matchMedia("(min-aspect-ratio: 5/4)").matches;
}

/**
 * Size `view` (a BoardView) to the visible area; true when its size changed (draw again then).
 * `main`: the element whose padding and column gap frame the board; `wrap`: the board's box;
 * `side`: the column beside it on wide screens. Wide: the width left beside `side` and the full
 * height under the board's top. Otherwise the full width, and no taller than the space from
 * its top to the bottom of the screen less `below` (pixels that must stay in view under it).
 * `under`: pixels under the board in its own column on any screen (the game's player bar).
 * Between 160 and 1100 CSS pixels whatever the screen.
 */
export function fitBoard(view, { main, wrap, side, below = 6, under = 0 }) {
  const cs = getComputedStyle(main);
  const padX = Number.parseFloat(cs.paddingLeft) + Number.parseFloat(cs.paddingRight);
  const vw = document.documentElement.clientWidth;
  const vh = window.innerHeight;
  const top = wrap.getBoundingClientRect().top + window.scrollY;
  let size;
  if (wideScreen()) {
    const gap = Number.parseFloat(cs.columnGap) || 0;
    size = Math.min(vw - padX - side.getBoundingClientRect().width - gap, vh - top - Number.parseFloat(cs.paddingBottom) - 2 - under);
  } else {
    size = Math.min(vw - padX, vh - top - below - under);
  }
  return view.resize(Math.max(160, Math.min(size, 1100)));
}
