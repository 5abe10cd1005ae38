// Tests of the bots' pure parts in the browser: views/bots.js (a token's name and scopes, its
// state in words, who may challenge whom) and views/challenge.js (the address, the message, the
// time left, a refusal's words), written from the contract (docs/engines.md, "Contract between
// the parts"; docs/bots.md) and run by `node --test` from tests/web/test_state_js.py.

import assert from "node:assert/strict";
import test from "node:test";

import {
  CHALLENGE_GAMES, SCOPES, challengeHref, challengeState, scopesProblem, scopesText, tokenNameProblem, tokenState,
} from "../../../src/crokinole/web/static/views/bots.js";
import { asSentence, challengeMessage, challengeSettings, challengedIn, declinedText, secondsLeft } from "../../../src/crokinole/web/static/views/challenge.js";
import { botMark, profileLink } from "../../../src/crokinole/web/static/views/ranked.js";

test("a token's name is 1 to 40 characters after trimming", () => {
  assert.match(tokenNameProblem(""), /Name the token/);
  assert.match(tokenNameProblem("   "), /Name the token/);
  assert.equal(tokenNameProblem("my laptop"), "");
  assert.equal(tokenNameProblem("x".repeat(40)), "");
  assert.match(tokenNameProblem("x".repeat(41)), /at most 40/);
  assert.match(tokenNameProblem(null), /Name the token/);
});

test("a token needs at least one scope, each of play, challenge and ladder", () => {
  assert.deepEqual(SCOPES, ["play", "challenge", "ladder"]);
  assert.match(scopesProblem([]), /at least one/);
  assert.match(scopesProblem(undefined), /at least one/);
  assert.equal(scopesProblem(["play"]), "");
  assert.equal(scopesProblem(["ladder", "play", "challenge"]), "");
  assert.equal(scopesProblem(["play", "admin"]), "No such scope: admin.");
  // Listed in the page's order whatever order the server kept them in.
  assert.equal(scopesText(["ladder", "play"]), "play, ladder");
  assert.equal(scopesText([]), "nothing");
});

test("a token's state: revoked wins over last used; never used says so", () => {
  assert.equal(tokenState({ last_used: null, revoked: null }), "Never used");
  assert.match(tokenState({ last_used: 1_796_000_000, revoked: null }), /^Last used \S/);
  assert.match(tokenState({ last_used: 1_796_000_000, revoked: "2026-12-03T10:00:00Z" }), /^Revoked \S/);
});

test("only a signed-in person challenges, and only a bot that is online and not their own", () => {
  const bot = { username: "Robo", online: true };
  assert.equal(challengeState(null, bot), "guest");
  assert.equal(challengeState({ username: "ann", bot: false }, bot), "challenge");
  assert.equal(challengeState({ username: "ann", bot: false }, { ...bot, online: false }), "offline");
  assert.equal(challengeState({ username: "robo", bot: true }, bot), "self"); // names match in any case
  assert.equal(challengeState({ username: "other", bot: true }, bot), "bot");
  assert.equal(challengeHref("Robo_1"), "/?challenge=Robo_1");
});

test("the challenge named in the address is a possible username, else none", () => {
  assert.equal(challengedIn("?challenge=Robo_1"), "Robo_1");
  assert.equal(challengedIn("?challenge=ab"), ""); // usernames are 3-20 characters
  assert.equal(challengedIn("?challenge=%3Cscript%3E"), "");
  assert.equal(challengedIn(""), "");
  assert.deepEqual(challengeMessage("Robo"), { type: "challenge", opponent: "Robo", settings: {} });
  assert.deepEqual(challengeMessage("Robo", { target: 200 }), { type: "challenge", opponent: "Robo", settings: { target: 200 } });
});

test("the time left to answer counts by the server's clock, rounded up, never below 0", () => {
  assert.equal(secondsLeft(1060, 1000), 60);
  assert.equal(secondsLeft(1060, 1059.2), 1);
  assert.equal(secondsLeft(1060, 1070), 0);
  assert.equal(secondsLeft(undefined, 1000), null);
});

test("a declined challenge says why, naming the bot", () => {
  assert.equal(declinedText({ reason: "declined" }, "Robo"), "Robo declined the challenge.");
  assert.match(declinedText({ reason: "expired" }, "Robo"), /^Robo did not answer in time/);
  assert.equal(declinedText({ reason: "something new", message: "The bot is resting." }, "Robo"), "The bot is resting.");
  assert.equal(declinedText({ reason: "something new" }, ""), "The bot did not take the challenge.");
});

test("BOT marks a bot's name and nothing else; a name is escaped", () => {
  assert.match(botMark(true), /class="bot-mark"[^>]*>BOT</);
  assert.equal(botMark(false), "");
  assert.equal(botMark("yes"), ""); // only the server's true
  assert.match(profileLink("Robo", "", true), /^<a href="\/players\/Robo">Robo<\/a> <abbr class="bot-mark"/);
  assert.equal(profileLink("<b>", ""), '<a href="/players/%3Cb%3E">&lt;b&gt;</a>');
});

test("the server's words end as a sentence; a username first keeps its spelling", () => {
  assert.equal(asSentence("robo is not online now"), "robo is not online now.");
  assert.equal(asSentence("Done."), "Done.");
  assert.equal(asSentence(""), "");
});

test("the game offered goes in the address and comes back as the table's settings", () => {
  assert.equal(challengeHref("Robo", "to100"), "/?challenge=Robo&game=to100");
  assert.equal(challengeHref("Robo", "four"), "/?challenge=Robo"); // the default says nothing
  assert.equal(challengeHref("Robo", "nonsense"), "/?challenge=Robo");
  assert.deepEqual(challengeSettings("?challenge=Robo&game=to100", CHALLENGE_GAMES), { scoring: "to_100" });
  assert.deepEqual(challengeSettings("?challenge=Robo&game=one", CHALLENGE_GAMES), { rounds: 1 });
  assert.deepEqual(challengeSettings("?challenge=Robo", CHALLENGE_GAMES), {});
  assert.deepEqual(challengeSettings("?game=__proto__", CHALLENGE_GAMES), {});
});
