// Tests of the one HTTP helper of the client (src/crokinole/web/static/lib/api.js), run by
// `node --test` from tests/web/test_state_js.py, with `fetch` replaced by a fake server: every
// answer (JSON, 204, the server's {"code", "message"}, not JSON, no server) in one style.

import assert from "node:assert/strict";
import test from "node:test";

import { UNREACHABLE, fetchJson, fetchText, said, sentence } from "../../../src/crokinole/web/static/lib/api.js";

const real = globalThis.fetch;
let asked = [];

/** The fake server: answers with `status` and the text `text` (JSON when an object), or fails. */
function serve(status, text, type = "application/json") {
  globalThis.fetch = async (url, init = {}) => {
    asked.push({ url, init });
    if (status === 0) throw new TypeError("Failed to fetch");
    const body = typeof text === "string" || text === null ? text : JSON.stringify(text);
    return new Response(body, { status, headers: { "Content-Type": type } });
  };
}

test.afterEach(() => {
  globalThis.fetch = real;
  asked = [];
});

test("an answer's JSON is the body; what was sent goes as JSON", async () => {
  serve(200, { record: { wins: 2 } });
  const r = await fetchJson("/api/x", { method: "POST", body: { a: 1 } });
  assert.deepEqual(r, { ok: true, status: 200, body: { record: { wins: 2 } }, error: "", reason: "" });
  const { url, init } = asked[0];
  assert.equal(url, "/api/x");
  assert.equal(init.method, "POST");
  assert.equal(init.body, '{"a":1}');
  assert.equal(init.headers["Content-Type"], "application/json");
  assert.equal(init.headers.Accept, "application/json");
  assert.equal(init.credentials, "same-origin");
});

test("a GET sends no body; more headers are added", async () => {
  serve(200, { ok: 1 });
  await fetchJson("/api/y", { headers: { "X-Thing": "1" } });
  const { init } = asked[0];
  assert.equal(init.method, "GET");
  assert.equal(init.body, undefined);
  assert.equal(init.headers["Content-Type"], undefined);
  assert.equal(init.headers["X-Thing"], "1");
});

test("204 is ok with no body", async () => {
  serve(204, null);
  assert.deepEqual(await fetchJson("/api/z", { method: "DELETE" }), { ok: true, status: 204, body: null, error: "", reason: "" });
});

test("the server's message becomes a sentence, and words to follow a colon", async () => {
  serve(404, { code: "not_found", message: "table abc has no game" });
  const r = await fetchJson("/api/t");
  assert.equal(r.ok, false);
  assert.equal(r.status, 404);
  assert.equal(r.error, "Table abc has no game.");
  assert.equal(r.reason, "table abc has no game.");
  assert.equal(said(r), "table abc has no game");
  assert.deepEqual(r.body, { code: "not_found", message: "table abc has no game" });
});

test("an answer that is not JSON is told by its status", async () => {
  serve(502, "<html>Bad gateway</html>", "text/html");
  const r = await fetchJson("/api/t");
  assert.deepEqual([r.ok, r.status, r.body, r.error, r.reason], [false, 502, null, "The server answered 502.", "the server answered 502."]);
  assert.equal(said(r), "The server answered 502.");
  serve(200, "not json", "text/plain");
  assert.equal((await fetchJson("/api/t")).error, "The server answered 200.");
});

test("no server: never a throw, the same words everywhere", async () => {
  serve(0, null);
  const r = await fetchJson("/api/t");
  assert.deepEqual([r.ok, r.status, r.body, r.error], [false, 0, null, UNREACHABLE]);
  assert.equal(r.reason, "the server cannot be reached: try again in a moment.");
  assert.deepEqual(await fetchText("/static/how-to-play.html"), { ok: false, status: 0, text: "", error: UNREACHABLE });
});

test("a page's text, and its status when it is missing", async () => {
  serve(200, "<main>rules</main>", "text/html");
  assert.deepEqual(await fetchText("/static/how-to-play.html"), { ok: true, status: 200, text: "<main>rules</main>", error: "" });
  serve(404, "gone", "text/plain");
  const r = await fetchText("/static/x.html");
  assert.deepEqual([r.ok, r.status, r.error], [false, 404, "The server answered 404."]);
});

test("sentence: a capital and one full stop, or none of the capital", () => {
  assert.equal(sentence("no such sheet"), "No such sheet.");
  assert.equal(sentence("Done!"), "Done!");
  assert.equal(sentence("  ends here.  ", false), "ends here.");
});

test("the device's token goes in a header when asked for, never in the address", async () => {
  serve(200, { record: null });
  await fetchJson("/api/record", { token: true });
  await fetchJson("/api/record");
  assert.match(asked[0].init.headers["X-Device-Token"], /^[0-9a-f]{32}$/);
  assert.equal(asked[0].url, "/api/record");
  assert.equal(asked[1].init.headers["X-Device-Token"], undefined);
});
