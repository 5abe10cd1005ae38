// What one attempt of a drill scores, worked out in the browser from the shot's report, for
// the progress shown while a set is played ("attempt 3 of 10 · 2 made"). The rules are the
// server's (analysis/drills.py); the score kept is always the server's own replay of the shots
// (POST /api/drills/{id}/results), never this. Pure: tested in node against the server's rules.

import { zoneOf } from "./geometry.js";
import { MINE, THEIRS } from "./position.js";

function inFifteen(board, x, y) {
  return zoneOf(board, x, y) === 15;
}

/**
 * The points of one attempt at drill `drillId`: `report` is the shot's report as
 * POST /api/practice/shoot answers it (valid, twenty, twenties {mine, theirs}, removed
 * {mine, theirs}, points), `after` the position after the shot ({discs: [[who, x, y]]}),
 * `board` the board. The setups hold none of your discs but hanger20's, so a disc of yours
 * left on the board after the shot is the shooter.
 */
export function attemptPoints(drillId, report, after, board) {
  if (!report) return 0;
  const valid = report.valid !== false;
  const mine = (report.twenties && report.twenties.mine) || 0;
  const theirsIn = (report.twenties && report.twenties.theirs) || 0;
  const removedTheirs = (report.removed && report.removed.theirs) || 0;
  const removedMine = (report.removed && report.removed.mine) || 0;
  const shooterStays = !report.twenty && removedMine === 0;
  switch (drillId) {
    case "open20":
      return valid && report.twenty ? 1 : 0;
    case "hanger20":
      return mine;
    case "star8":
    case "far_side":
    case "near_side": {
      if (!valid) return 0;
      const taken = Math.min(removedTheirs, drillId === "star8" ? 2 : 1);
      return taken + (taken > 0 && shooterStays ? 1 : 0);
    }
    case "inside_out": {
      if (!valid || theirsIn) return 0;
      const left = after.discs.filter((d) => d[0] === THEIRS);
      if (left.some(([, x, y]) => inFifteen(board, x, y))) return 0;
      const shooter = after.discs.find((d) => d[0] === MINE);
      return 1 + (report.twenty || (shooter && inFifteen(board, shooter[1], shooter[2])) ? 1 : 0);
    }
    case "follow20":
    case "ricochet20":
      return valid && report.twenty && theirsIn === 0 ? 1 : 0;
    default:
      return Number.isFinite(report.points) && report.points > 0 ? 1 : 0;
  }
}
