// Tests of the websocket's address (src/crokinole/web/static/lib/net.js), run by `node --test`
// from tests/web/test_state_js.py: it names the party, else the table, for a load balancer
// to hash on (docs/deploy.md, "Affinity"), and nothing the server would refuse.

import assert from "node:assert/strict";
import test from "node:test";

import { affinityQuery } from "../../../src/crokinole/web/static/lib/net.js";

const T = "0123456789abcdef".repeat(2);

test("the party's code is named before the table, the table when there is no party", () => {
  assert.equal(affinityQuery({ party: "ABC234", table: T }), "?party=ABC234");
  assert.equal(affinityQuery({ party: null, table: T }), `?table=${T}`);
  assert.equal(affinityQuery({ table: T }), `?table=${T}`);
});

test("nothing is named away from any table", () => {
  assert.equal(affinityQuery({}), "");
  assert.equal(affinityQuery(), "");
  assert.equal(affinityQuery({ party: null, table: null }), "");
});

test("what the server would refuse is left out (a link's short code, a strange id)", () => {
  assert.equal(affinityQuery({ party: "ABC2" }), "");
  assert.equal(affinityQuery({ party: "abc234" }), "");
  assert.equal(affinityQuery({ party: "ABC2&3", table: T }), `?table=${T}`);
  assert.equal(affinityQuery({ table: "../ws" }), "");
  assert.equal(affinityQuery({ table: T.toUpperCase() }), "");
});
