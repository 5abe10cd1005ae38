"""The example bot (examples/bot.py) finishes a game against CPU Expert over a real server."""

from __future__ import annotations

import re

import httpx

from crokinole.rules import Game
from tests.server.bots.conftest import EXAMPLE, make_bot, run_example


def test_the_example_bot_plays_a_whole_game_against_expert(server: str) -> None:
    token, client = make_bot(server, "example_bot")
    done = run_example(server, token)
    assert done.returncode == 0, done.stderr
    found = re.search(
        r"finished: table ([0-9a-f]{32}) winner side (\S+) scores \[(\d+), (\d+)\]", done.stdout
    )
    assert found is not None, done.stdout + done.stderr
    table, winner = found[1], None if found[2] == "None" else int(found[2])
    scores = [int(found[3]), int(found[4])]
    # (A refused message would have ended it, "refused: ..." and exit status 1.)
    # The server's game record of that table, scored by hand (R6, RULES.md's scoring):
    # each round's discs counted 20/15/10/5, the higher total taking 2 game points, a
    # tie 1 each; four rounds (a level game against the CPU is drawn).
    with httpx.Client(base_url=server, timeout=30) as plain:
        record = plain.get(f"/api/tables/{table}/record.json")
        assert record.status_code == 200, record.text
        bots = plain.get("/api/bots").json()["bots"]
        replay = plain.get(f"/api/tables/{table}/replay.json").json()
    game = Game.from_json(record.text)
    assert game.phase.value == "game_over"
    assert len(game.history) == 4
    totals = [0, 0]
    for round_result in game.history:
        counted = [
            20 * c.twenties + 15 * c.fifteens + 10 * c.tens + 5 * c.fives
            for c in round_result.counts
        ]
        if counted[0] == counted[1]:
            totals = [totals[0] + 1, totals[1] + 1]
        else:
            totals[0 if counted[0] > counted[1] else 1] += 2
    assert totals == scores
    assert winner == (None if scores[0] == scores[1] else scores.index(max(scores)))
    # The seat the bot played is its account's, named after it and marked a bot.
    assert record.json()["names"]["south"] == "Example bot"
    assert replay["bots"] == ["south"] and replay["names"]["north"] == "CPU Expert"
    assert [(b["username"], b["bot"], b["rating"], b["games"]) for b in bots] == [
        ("example_bot", True, 1000, 0)
    ]
    client.close()


def test_the_example_says_in_words_why_a_bad_token_is_refused(server: str) -> None:
    done = run_example(server, "crk_" + "x" * 43, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip() == (
        "closed by the server: this API token is not valid (mistyped, or revoked): "
        "make a new one on the Bots page (/bots)"
    )


def test_docs_bots_md_shows_the_example_as_it_is() -> None:
    page = (EXAMPLE.parents[1] / "docs" / "bots.md").read_text()
    shown = page.split("```python\n", 1)[1].split("```\n", 1)[0]
    assert shown == EXAMPLE.read_text()
