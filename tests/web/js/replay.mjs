// Reduce a stream of server messages (a JSON file: [message, ...]) with state.js and print
// what the state says at the end. Run by tests/web/test_state_js.py.

import { readFileSync } from "node:fs";

import { clock, initialState, reduce, shooter } from "../../../src/crokinole/web/static/lib/state.js";

const messages = JSON.parse(readFileSync(process.argv[2], "utf8"));
let s = initialState();
let localNow = 100;
for (const m of messages) {
  s = reduce(s, m, localNow);
  localNow += 0.25;
}
process.stdout.write(JSON.stringify({
  table: s.table, event: s.event, stage: s.stage, you: s.you, seats: s.seats, members: s.members,
  settings: s.settings, game: s.game, deadline: s.deadline, placement: s.placement,
  nextPressed: s.nextPressed, log: s.log.length, shooter: shooter(s),
  clock: clock(s, localNow),
}));
