"""Online parties in real Chromium contexts against the real server (R7; issue 10).

Each player is a browser context of its own (its own localStorage, so its own
device token). A party is created, joined by its link and by its code, seats
are picked, and a short game (``?rounds=1`` on the host: a test option that
shortens the game and changes no rule) is played to its end, with every
screen agreeing; a player closes their context mid-game and comes back with
the same storage to the same seat; a spectator sees the same shots.

Pictures go to ``artifacts/screenshots/``; with ``CROKINOLE_DOCS_IMAGES=1`` the
lobby and the four-player game are also written to ``docs/images/``.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.server_process import free_port, running_server
from tests.web.conftest import ARTIFACTS, REPO, open_more_options, with_csp

pytestmark = pytest.mark.browser

sync_api = pytest.importorskip("playwright.sync_api")

DOCS_IMAGES = REPO / "docs" / "images"


@pytest.fixture
def people(browser: Any) -> Iterator[Any]:
    """Open players: each a fresh context (a device) with its page; page errors fail the test."""
    contexts: list[Any] = []
    errors: list[str] = []

    def open_person(storage: Any = None, **options: Any) -> Any:
        options.setdefault("viewport", {"width": 1200, "height": 860})
        options.setdefault("reduced_motion", "reduce")
        if storage is not None:
            options["storage_state"] = storage
        ctx = browser.new_context(**options)
        ctx.set_default_timeout(30_000)
        # Contract 4's policy on every page: anything inline it refuses is a console error.
        ctx.route("**/*", with_csp)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        return page

    yield open_person
    for ctx in contexts:
        ctx.close()
    if getattr(open_person, "server_down", False):
        # The browser logs each refused reconnection while the server is down.
        errors = [e for e in errors if "ERR_CONNECTION_REFUSED" not in e]
    assert errors == [], f"errors in the pages: {errors}"


def connected(page: Any) -> None:
    page.wait_for_function("() => window.crokinole && window.crokinole.connected")


def view(page: Any) -> dict[str, Any]:
    result: dict[str, Any] = page.evaluate("() => window.crokinole.view")
    return result


def create_party(
    page: Any, url: str, layout: str, name: str, query: str = "", turn_time: str = ""
) -> str:
    """The host creates a party; returns its code."""
    page.goto(f"{url}/{query}")
    connected(page)
    open_more_options(page)
    page.get_by_test_id("mode-party").check()
    page.get_by_test_id("layout-select").select_option(layout)
    page.get_by_test_id("turn-time-select").select_option(turn_time)
    page.get_by_test_id("name-input").fill(name)
    page.get_by_test_id("start-button").click()
    page.wait_for_function("() => window.crokinole.screen === 'lobby'")
    code = page.get_by_test_id("party-code").inner_text().strip()
    assert len(code) == 6 and not set(code) & set("01OIL"), code
    link = page.get_by_test_id("invite-link").input_value()
    assert link.endswith(f"/join/{code}"), link
    return code


def join_by_link(page: Any, url: str, code: str, name: str) -> None:
    page.goto(f"{url}/join/{code}")
    connected(page)
    sync_api.expect(page.get_by_test_id("code-input")).to_have_value(code)
    # The invitation heads the join form, above the name to enter (the link scrolls to it).
    sync_api.expect(page.locator("#join-title")).to_have_text(f"You are invited to party {code}")
    page.get_by_test_id("join-name-input").fill(name)
    page.get_by_test_id("join-button").click()
    page.wait_for_function("() => window.crokinole.screen === 'lobby'")


def join_by_code(page: Any, url: str, code: str, name: str) -> None:
    page.goto(url)
    connected(page)
    page.get_by_test_id("code-input").fill(code.lower())  # codes are read in any case
    page.get_by_test_id("join-name-input").fill(name)
    page.get_by_test_id("join-button").click()
    page.wait_for_function("() => window.crokinole.screen === 'lobby'")


def sit(page: Any, seat: str) -> None:
    if seat in page.evaluate("() => window.crokinole.you"):
        return  # the party's creator already sits south
    page.get_by_test_id(f"sit-{seat}").click()
    page.wait_for_function(f"() => window.crokinole.you.includes('{seat}')")


def free_position(page: Any) -> float:
    """A free place on the shooter's quarter (from the server's free stretches)."""
    position = page.evaluate("() => window.crokinole.freePosition(0)")
    assert position is not None, "no room on the line"
    return float(position)


def shoot(page: Any, power: float = 24.0) -> None:
    position = free_position(page)
    # Inside the stretch, away from its ends: the slider's step is 0.1°.
    stretches = view(page)["placement"][page.evaluate("() => window.crokinole.state.current_seat")]
    for lo, hi in stretches:
        if lo <= position <= hi:
            position = min(max(position, lo + 0.2), hi - 0.2) if hi - lo > 0.4 else position
    if page.get_by_test_id("fine-aim").get_attribute("open") is None:
        page.get_by_test_id("fine-aim-toggle").click()  # folded on a phone: opened to type
    for name, value in (("position", round(position, 1)), ("direction", 0), ("power", power)):
        page.get_by_test_id(f"{name}-input").fill(str(value))
    page.get_by_test_id("shoot-button").click()


CAN_START = "() => !document.querySelector('[data-testid=party-start-button]').disabled"
GAME_OVER = "() => document.querySelector('[data-testid=game-result]').open"


def play_to_the_end(pages: list[Any], limit: int = 200) -> None:
    """Whoever may shoot shoots; round results are confirmed; until every screen shows the end."""
    for _ in range(limit):
        if all(p.evaluate(GAME_OVER) for p in pages):
            return
        acted = False
        for p in pages:
            if p.evaluate("() => window.crokinole.canShoot"):
                before = p.evaluate("() => window.crokinole.lastEvent")
                shoot(p)
                p.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
                acted = True
                break
            if p.evaluate(
                "() => document.querySelector('[data-testid=round-result]').open"
                " && !document.querySelector('[data-testid=next-button]').disabled"
            ):
                p.get_by_test_id("next-button").click()
                acted = True
        if not acted:
            pages[0].wait_for_timeout(150)
    pytest.fail("the game did not end on every screen")


def same_everywhere(pages: list[Any]) -> dict[str, Any]:
    """Every screen comes to show the same game at the same version; returns it."""
    newest = max(p.evaluate("() => window.crokinole.lastEvent") for p in pages)
    for p in pages:
        p.wait_for_function(
            f"() => window.crokinole.lastEvent >= {newest} && !window.crokinole.busy"
        )
    events = [p.evaluate("() => window.crokinole.lastEvent") for p in pages]
    games = [p.evaluate("() => window.crokinole.state") for p in pages]
    assert len(set(events)) == 1, events
    first = games[0]
    for g in games[1:]:
        for key in ("phase", "round", "discs", "sides", "history", "outcome"):
            assert g[key] == first[key], key
    return first


def shot_at(page: Any, name: str, docs: str | None = None) -> None:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.evaluate("() => window.scrollTo(0, 0)")
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    if docs is not None and os.environ.get("CROKINOLE_DOCS_IMAGES"):
        # The README's pictures change only when asked (CROKINOLE_DOCS_IMAGES=1).
        DOCS_IMAGES.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(Path(DOCS_IMAGES / docs)))


def test_two_players_join_by_link_and_play_to_the_end(server_url: str, people: Any) -> None:
    ann = people()
    code = create_party(ann, server_url, "singles", "Ann", query="?rounds=1")
    sit(ann, "south")
    assert view(ann)["you"]["host"] is True
    bob = people()
    join_by_link(bob, server_url, code, "Bob")
    sit(bob, "north")
    # Both lobbies agree on who sits where, and that both are connected.
    for p in (ann, bob):
        p.wait_for_function(
            "() => window.crokinole.view.seats.every((s) => s.occupant && s.occupant.connected)"
        )
        seats = {s["seat"]: s["occupant"]["name"] for s in view(p)["seats"]}
        assert seats == {"south": "Ann", "north": "Bob"}
    sync_api.expect(bob.get_by_test_id("party-start-button")).to_be_hidden()  # not the host
    # The invite: the link and the code, and a button that copies the link (or says how).
    ann.get_by_test_id("copy-button").click()
    sync_api.expect(ann.locator("#copy-status")).to_contain_text(re.compile("cop(y|ied)"))
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
    # Each screen has its own seat at the bottom.
    assert ann.evaluate("() => window.crokinole.bottom") == "south"
    assert bob.evaluate("() => window.crokinole.bottom") == "north"
    play_to_the_end([ann, bob])
    final = same_everywhere([ann, bob])
    assert final["phase"] == "game_over"
    assert len(final["history"]) >= 1  # a tied round is followed by extra rounds (R2)
    # Each screen words the result for its viewer.
    titles = {p: p.locator("#game-title").inner_text() for p in (ann, bob)}
    winner = final["outcome"]["winner"]
    if winner is None:
        assert titles[ann] == titles[bob] == "A draw"
    else:
        assert titles[ann] == ("You win!" if winner == 0 else "Bob wins"), titles
        assert titles[bob] == ("You win!" if winner == 1 else "Ann wins"), titles
    # A rematch needs both: one vote waits for the other.
    ann.get_by_test_id("rematch-button").click()
    bob.wait_for_function("() => window.crokinole.view.rematchVotes.length === 1")
    bob.get_by_test_id("rematch-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.state.phase === 'playing'")
        sync_api.expect(p.get_by_test_id("game-result")).to_be_hidden()


def test_four_players_by_link_and_code_with_a_spectator(server_url: str, people: Any) -> None:
    ann = people()
    code = create_party(ann, server_url, "doubles", "Ann", query="?rounds=1", turn_time="60")
    sit(ann, "south")
    bob, cy, dee = people(), people(), people(viewport={"width": 360, "height": 640})
    join_by_link(bob, server_url, code, "Bob")
    join_by_code(cy, server_url, code, "Cy")
    join_by_code(dee, server_url, code, "Dee")
    sit(bob, "west")
    sit(cy, "north")
    sit(dee, "east")
    watcher = people()
    watcher.goto(f"{server_url}/watch/{code}")
    connected(watcher)
    watcher.wait_for_function("() => window.crokinole.screen === 'lobby'")
    assert view(watcher)["you"]["spectator"] is True
    sync_api.expect(watcher.get_by_test_id("leave-button")).to_have_text("Stop watching")
    ann.wait_for_function("() => window.crokinole.view.spectators === 1")
    ann.wait_for_function(CAN_START)
    # Each seat shows its side's disc as the board draws it, and the partner across (R2).
    west = ann.get_by_test_id("seat-west")
    sync_api.expect(west.locator(".seat-word")).to_have_text("West · partner East")
    sync_api.expect(west.locator("svg.mark")).to_have_count(1)
    shot_at(ann, "lobby-desktop", docs="lobby.png")
    shot_at(dee, "lobby-360x640")
    ann.get_by_test_id("party-start-button").click()
    pages = [ann, bob, cy, dee]
    for p in [*pages, watcher]:
        p.wait_for_function("() => window.crokinole.screen === 'game'")
    for p, seat in zip(pages, ("south", "west", "north", "east"), strict=True):
        assert p.evaluate("() => window.crokinole.bottom") == seat
    # A spectator only watches: no aim controls, no reactions to send.
    sync_api.expect(watcher.get_by_test_id("shoot-button")).to_be_hidden()
    assert watcher.get_by_test_id("react-nice_shot").count() == 0
    # A few shots, then pictures of the four-player game on a desktop and a phone.
    for _ in range(3):
        for p in pages:
            if p.evaluate("() => window.crokinole.canShoot"):
                before = p.evaluate("() => window.crokinole.lastEvent")
                shoot(p)
                for q in [*pages, watcher]:
                    q.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
                break
    ann.get_by_test_id("react-nice_shot").click()
    bob.wait_for_function(
        "() => document.querySelector('[data-testid=reaction-feed]')"
        ".textContent.includes('Ann: Nice shot!')"
    )
    for p in [*pages, watcher]:
        p.wait_for_function("() => !window.crokinole.busy")
    same_everywhere([*pages, watcher])
    log = watcher.evaluate("() => window.crokinole.log")
    assert log != []
    sync_api.expect(ann.locator("#round-label")).to_contain_text("1 watching")
    # The shot log says the same on every screen (named for the spectator, "your" for its owner).
    assert len(bob.evaluate("() => window.crokinole.log")) == len(log)
    # The turn clock counts down from the server's deadline on every screen.
    for p in pages:
        left = p.evaluate("() => window.crokinole.clockLeft")
        assert left is not None and 0 < left <= 60 + 2, left
    # Pictures: the player to move on a desktop (the aim and the clock), and the phone.
    if dee.evaluate("() => window.crokinole.canShoot"):
        before = dee.evaluate("() => window.crokinole.lastEvent")
        shoot(dee)
        bob.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
        same_everywhere(pages)
    mover = next(p for p in pages if p.evaluate("() => window.crokinole.canShoot"))
    shot_at(mover, "four-players-desktop", docs="four-players.png")
    shot_at(dee, "four-players-360x640")
    play_to_the_end(pages)
    watcher.wait_for_function(GAME_OVER)
    final = same_everywhere([*pages, watcher])
    assert final["phase"] == "game_over"
    assert watcher.get_by_test_id("rematch-button").is_hidden()  # a spectator does not vote
    sync_api.expect(watcher.get_by_test_id("new-game-button")).to_have_text("Stop watching")
    # A pair wins together: "Ann & Cy win", not "wins" (R2: partners sit opposite).
    winner = final["outcome"]["winner"]
    pairs = {0: "Ann & Cy", 1: "Bob & Dee"}
    for p, side in ((ann, 0), (bob, 1), (cy, 0), (dee, 1), (watcher, None)):
        title = p.locator("#game-title").inner_text()
        if winner is None:
            assert title == "A draw"
        elif side == winner:
            assert title == "You win!"
        else:
            assert title == f"{pairs[winner]} win" + ("!" if side is None else ""), title


def test_a_player_comes_back_to_the_same_seat(server_url: str, people: Any) -> None:
    ann = people()
    code = create_party(ann, server_url, "three_singles", "Ann", query="?rounds=1")
    sit(ann, "south")
    bob, cy = people(), people()
    join_by_code(bob, server_url, code, "Bob")
    join_by_link(cy, server_url, code, "Cy")
    sit(bob, "west")
    sit(cy, "north")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob, cy):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
    # Cy leaves (the tab closes); the others see Cy is not connected.
    storage = cy.context.storage_state()
    cy.context.close()
    ann.wait_for_function(
        "() => window.crokinole.view.seats.some((s) => s.seat === 'north'"
        " && s.occupant && s.occupant.connected === false)"
    )
    # Cy's card (north: the third side) shows Cy not connected.
    sync_api.expect(ann.locator("#side-card-2 .dot.off")).to_have_count(1)
    # The same device (its storage) opens the game again: the same seat, up to date.
    back = people(storage=storage)
    back.goto(server_url)
    connected(back)
    back.wait_for_function("() => window.crokinole.screen === 'game'")
    assert back.evaluate("() => window.crokinole.you") == ["north"]
    ann.wait_for_function(
        "() => window.crokinole.view.seats.every((s) => s.occupant && s.occupant.connected)"
    )
    for p in (ann, bob, back):
        p.wait_for_function("() => !window.crokinole.busy")
    same_everywhere([ann, bob, back])
    play_to_the_end([ann, bob, back])
    final = same_everywhere([ann, bob, back])
    # One round, or more when it was tied (the party's tie rule: extra rounds, R2).
    assert final["phase"] == "game_over" and len(final["history"]) >= 1


# ---------------------------------------------------------------- short waits (test settings)


@pytest.fixture(scope="module")
def quick_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A server whose party waits are short: stand-in after 1 s, round countdown 4 s,
    turn clocks under 30 s accepted (``--test-clocks``), 0.5 s of latency grace."""
    db: Path = tmp_path_factory.mktemp("quick") / "crokinole.db"
    options = ("--standin-grace", "1", "--round-countdown", "4", "--turn-grace", "0.5")
    with running_server(db, *options, "--test-clocks") as url:
        yield url


def start_singles(people: Any, url: str, query: str = "?rounds=1") -> tuple[Any, Any, str]:
    ann = people()
    code = create_party(ann, url, "singles", "Ann", query=query)
    sit(ann, "south")
    bob = people()
    join_by_code(bob, url, code, "Bob")
    sit(bob, "north")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
    return ann, bob, code


def test_a_short_turn_clock_runs_out_and_the_disc_goes_to_the_ditch(
    quick_server: str, people: Any
) -> None:
    # R3: the clock runs on the server; when it runs out the disc goes to the ditch.
    ann, bob, _code = start_singles(people, quick_server, query="?rounds=1&turn_time=2")
    ann.wait_for_function("() => window.crokinole.canShoot")
    hand = ann.evaluate("() => window.crokinole.state.seats[0].in_hand")
    # Ann does nothing: the clock on her screen counts down to the server's deadline.
    clock = ann.get_by_test_id("turn-clock")
    sync_api.expect(clock).to_be_visible()
    sync_api.expect(clock).to_contain_text("s left")
    for p in (ann, bob):
        p.wait_for_function(
            f"() => window.crokinole.state.seats[0].in_hand === {hand - 1}"
            " && window.crokinole.state.current_seat === 'north'"
        )
    assert ann.evaluate("() => window.crokinole.log")[0] == (
        "Time ran out: your disc goes to the ditch."
    )
    assert bob.evaluate("() => window.crokinole.log")[0] == (
        "Time ran out: Ann's disc goes to the ditch."
    )
    game = same_everywhere([ann, bob])
    assert game["sides"][0]["ditch"] == 1
    assert game["discs"] == []


def test_a_cpu_plays_for_a_missing_player_who_then_takes_the_seat_back(
    quick_server: str, people: Any
) -> None:
    # R7: a player not connected when their turn comes is replaced by the CPU after a grace.
    ann, bob, _code = start_singles(people, quick_server, query="?rounds=1&cpu_pause=0")
    ann.wait_for_function("() => window.crokinole.canShoot")
    storage = bob.context.storage_state()
    bob.context.close()
    ann.wait_for_function(
        "() => window.crokinole.view.seats.some((s) => s.seat === 'north'"
        " && s.occupant.connected === false)"
    )
    shoot(ann)
    # Bob's turn: after the grace the CPU plays it, and Ann's screen says so.
    ann.wait_for_function(
        "() => window.crokinole.view.seats.some((s) => s.seat === 'north' && s.occupant.stand_in)"
    )
    sync_api.expect(ann.locator("#side-card-1")).to_contain_text("CPU playing for Bob")
    ann.wait_for_function("() => window.crokinole.state.seats[1].in_hand === 7")
    ann.wait_for_function("() => window.crokinole.canShoot")
    # Bob comes back on the same device and takes his seat back at his next turn.
    back = people(storage=storage)
    back.goto(quick_server)
    connected(back)
    back.wait_for_function("() => window.crokinole.screen === 'game'")
    assert back.evaluate("() => window.crokinole.you") == ["north"]
    shoot(ann)
    back.wait_for_function("() => window.crokinole.canShoot")
    assert not any(s["occupant"]["stand_in"] for s in view(back)["seats"])
    sync_api.expect(ann.locator("#side-card-1")).not_to_contain_text("CPU playing")
    hand = back.evaluate("() => window.crokinole.state.seats[1].in_hand")
    shoot(back)
    ann.wait_for_function(f"() => window.crokinole.state.seats[1].in_hand === {hand - 1}")


def test_the_round_result_counts_down_and_the_next_round_starts(
    quick_server: str, people: Any
) -> None:
    # R6: the next round starts when every player pressed Next, or after the countdown.
    ann, bob, _code = start_singles(people, quick_server, query="?rounds=2&cpu_pause=0")
    for _ in range(40):
        if all(
            p.evaluate("() => document.querySelector('[data-testid=round-result]').open")
            for p in (ann, bob)
        ):
            break
        for p in (ann, bob):
            if p.evaluate("() => window.crokinole.canShoot"):
                before = p.evaluate("() => window.crokinole.lastEvent")
                shoot(p)
                p.wait_for_function(f"() => window.crokinole.lastEvent > {before}")
        ann.wait_for_timeout(100)
    else:
        pytest.fail("the round did not end")
    # Ann presses Next; Bob does not: the server's countdown starts the round anyway.
    ann.get_by_test_id("next-button").click()
    sync_api.expect(ann.get_by_test_id("next-button")).to_be_disabled()
    bob.wait_for_function("() => window.crokinole.view.nextPressed.length === 1")
    sync_api.expect(bob.get_by_test_id("round-countdown")).to_contain_text("1 of 2 pressed Next")
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.state.round === 2")
        sync_api.expect(p.get_by_test_id("round-result")).to_be_hidden()


def test_the_host_fills_moves_and_removes_and_changes_the_rules(
    server_url: str, people: Any
) -> None:
    ann = people()
    code = create_party(ann, server_url, "three_singles", "Ann")
    bob, cy = people(), people()
    join_by_code(bob, server_url, code, "Bob")
    join_by_code(cy, server_url, code, "Cy")
    # Joiners take the free seats in turn (Bob west, Cy north); Cy stands up.
    sit(bob, "west")
    sit(cy, "north")
    cy.get_by_test_id("stand-north").click()
    cy.wait_for_function("() => window.crokinole.you.length === 0")
    sync_api.expect(ann.locator("#lobby-unseated")).to_contain_text("Cy: not seated")
    cy_id = next(m["member"] for m in view(ann)["members"] if m["name"] == "Cy")
    # Only the host has the host's controls.
    sync_api.expect(bob.get_by_test_id("rules-button")).to_be_hidden()
    assert bob.get_by_test_id("cpu-north").count() == 0
    # The host moves Bob from west to north, and fills west with a CPU.
    bob_id = next(m["member"] for m in view(ann)["members"] if m["name"] == "Bob")
    ann.get_by_test_id(f"move-{bob_id}").select_option("north")
    bob.wait_for_function("() => window.crokinole.you.includes('north')")
    ann.get_by_test_id("cpu-west").select_option("hard")
    for p in (ann, bob, cy):
        p.wait_for_function(
            "() => window.crokinole.view.seats.some((s) => s.seat === 'west'"
            " && s.occupant && s.occupant.kind === 'cpu' && s.occupant.level === 'hard')"
        )
    sync_api.expect(cy.get_by_test_id("seat-west")).to_contain_text("CPU Hard")
    # Every seat is filled without Cy, who is told so; the host may move Cy only to a seat no
    # person holds (the CPU's), not onto Ann or Bob.
    sync_api.expect(cy.get_by_test_id("lobby-status")).to_have_text(
        "Every seat is filled without you: you will watch the game unless the host seats you."
    )
    cy_move = ann.locator(f"[data-testid=move-{cy_id}] option")
    sync_api.expect(cy_move).to_have_text(["Move to…", "West"])
    # The host's own seat: its Stand up button, and a list that does not say it again.
    ann_id = view(ann)["you"]["member"]
    ann_move = ann.locator(f"[data-testid=move-{ann_id}] option")
    sync_api.expect(ann_move).to_have_text(["Move to…", "West"])
    # The host removes Cy, who is told and goes back to the start screen.
    ann.get_by_test_id(f"remove-{cy_id}").click()
    cy.wait_for_function("() => window.crokinole.screen === 'start'")
    sync_api.expect(cy.locator("#start-status")).to_contain_text("removed you")
    ann.wait_for_function(
        f"() => !window.crokinole.view.members.some((m) => m.member === '{cy_id}')"
    )
    # Every seat is filled: the host may start. The host changes the rules first: singles
    # has no west seat, so the CPU's seat goes; 12 discs, first to 100, a 30 s clock.
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("rules-button").click()
    form = ann.locator("#rules-form")
    form.locator("select[name=layout]").select_option("singles")
    form.locator("select[name=discs]").select_option("12")
    form.locator("select[name=scoring]").select_option("to_100")
    form.locator("select[name=turn_time]").select_option("30")
    ann.get_by_test_id("rules-apply").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.view.settings.layout === 'singles'")
        rules = p.get_by_test_id("lobby-rules")
        sync_api.expect(rules).to_contain_text("12 discs each side")
        sync_api.expect(rules).to_contain_text("First to 100")
        sync_api.expect(rules).to_contain_text("30 s per turn")
    assert [s["seat"] for s in view(bob)["seats"]] == ["south", "north"]
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
        p.wait_for_function("() => window.crokinole.state.rules.discs_per_side === 12")


def test_a_wrong_code_or_a_full_party_is_told_on_the_join_form(
    server_url: str, people: Any
) -> None:
    ann = people()
    code = create_party(ann, server_url, "singles", "Ann")
    eve = people()
    eve.goto(server_url)
    connected(eve)
    status = eve.locator("#join-status")
    # A code of the wrong shape is refused before it is sent.
    eve.get_by_test_id("code-input").fill("AB1")
    eve.get_by_test_id("join-name-input").fill("Eve")
    eve.get_by_test_id("join-button").click()
    sync_api.expect(status).to_contain_text("6 letters and digits")
    # A code no party has: the server's answer, in its words.
    unknown = "ZZZZZZ" if code != "ZZZZZZ" else "YYYYYY"
    eve.get_by_test_id("code-input").fill(unknown)
    eve.get_by_test_id("join-button").click()
    sync_api.expect(status).to_contain_text(unknown)
    assert eve.evaluate("() => window.crokinole.screen") == "start"
    # A full party (singles: Ann and Bob) takes no third player, but a spectator.
    bob = people()
    join_by_code(bob, server_url, code, "Bob")
    sit(bob, "north")
    eve.get_by_test_id("code-input").fill(code)
    eve.get_by_test_id("join-button").click()
    sync_api.expect(status).to_contain_text("full")
    eve.get_by_test_id("watch-toggle").check()
    eve.get_by_test_id("join-button").click()
    eve.wait_for_function("() => window.crokinole.screen === 'lobby'")
    assert view(eve)["you"]["spectator"] is True
    ann.wait_for_function("() => window.crokinole.view.spectators === 1")
    sync_api.expect(ann.get_by_test_id("spectators")).to_contain_text("1 watching")


@contextlib.contextmanager
def server_on(port: int, db: Path, *options: str) -> Iterator[subprocess.Popen[str]]:
    """``crokinole serve`` on a given port (so that a restarted server has the same address)."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "crokinole", "serve", "--port", str(port), "--db", str(db),
         "--log-level", "warning", *options],
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                    break
            except OSError:
                assert proc.poll() is None, "the server did not start"
                time.sleep(0.2)
        yield proc
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()


def test_the_party_goes_on_after_the_server_is_killed_and_restarted(
    tmp_path: Path, people: Any
) -> None:
    # The issue: the server process is killed mid-party and restarted on the same database;
    # both players come back to their seats and the turn clock (re-armed from the store)
    # still runs out.
    people.server_down = True  # the pages' refused reconnections are expected
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    db = tmp_path / "crokinole.db"
    options = ("--test-clocks", "--turn-grace", "0.5", "--standin-grace", "120")
    with server_on(port, db, *options) as first:
        ann, bob, _code = start_singles(people, url, query="?rounds=1&turn_time=12")
        ann.wait_for_function("() => window.crokinole.canShoot")
        shoot(ann)
        for p in (ann, bob):
            p.wait_for_function("() => window.crokinole.state.current_seat === 'north'")
        first.send_signal(signal.SIGKILL)
        first.wait()
        for p in (ann, bob):
            sync_api.expect(p.get_by_test_id("connection")).to_contain_text("reconnecting")
    with server_on(port, db, *options):
        for p in (ann, bob):
            p.wait_for_function("() => window.crokinole.connected", timeout=40_000)
        assert bob.evaluate("() => window.crokinole.you") == ["north"]
        # Bob does not shoot: his clock, re-armed by the new process, runs out (R3).
        for p in (ann, bob):
            p.wait_for_function(
                "() => window.crokinole.state.current_seat === 'south'"
                " && window.crokinole.state.seats[1].in_hand === 7",
                timeout=40_000,
            )
        assert (
            bob.evaluate("() => window.crokinole.log").count(
                "Time ran out: your disc goes to the ditch."
            )
            == 1
        )
        ann.wait_for_function("() => window.crokinole.canShoot")
        shoot(ann)
        game = same_everywhere([ann, bob])
        assert [s["in_hand"] for s in game["seats"]] == [6, 7]


def test_a_player_who_leaves_mid_game_is_played_by_the_cpu_and_not_pulled_back(
    quick_server: str, people: Any
) -> None:
    ann, bob, _code = start_singles(people, quick_server, query="?rounds=1&cpu_pause=0")
    ann.wait_for_function("() => window.crokinole.canShoot")
    bob.get_by_test_id("settings-button").click()
    leave = bob.get_by_test_id("settings-resign")
    sync_api.expect(leave).to_have_text("Leave the game")
    leave.click()
    sync_api.expect(bob.get_by_test_id("settings-dialog")).to_contain_text("A CPU plays your seat")
    leave.click()
    bob.wait_for_function("() => window.crokinole.screen === 'start'")
    # The seat stays: the CPU plays it for the rest of the game (R7). Ann is told, and the
    # seat's card keeps saying whom the CPU replaced.
    sync_api.expect(ann.get_by_test_id("message-area")).to_have_text(
        "Bob left the party: a CPU plays for them for the rest of the game."
    )
    shoot(ann)
    ann.wait_for_function("() => window.crokinole.state.seats[1].in_hand === 7")
    ann.wait_for_function("() => window.crokinole.canShoot")
    sync_api.expect(ann.locator("#side-card-1")).to_contain_text("for Bob, who left")
    # Bob left on purpose: opening the page again does not take him back to the party.
    bob.reload()
    connected(bob)
    bob.wait_for_timeout(500)
    assert bob.evaluate("() => window.crokinole.screen") == "start"
    assert bob.evaluate("() => window.crokinole.table") is None


# ---------------------------------------------------------------- what a player reads (review)

#: The option texts of the visible selects under ``root`` that are wider than their select
#: (measured in the select's own font): a phone would cut them short.
CUT_OPTIONS = """(root) => {
  const out = [];
  const ctx = document.createElement('canvas').getContext('2d');
  for (const s of document.querySelectorAll(root + ' select')) {
    if (!s.offsetParent) continue;
    const cs = getComputedStyle(s);
    ctx.font = cs.font;
    const room = s.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
    for (const o of s.options) {
      if (ctx.measureText(o.text).width > room) out.push(`${s.name}: ${o.text}`);
    }
  }
  return out;
}"""

#: The texts under ``sel`` that a line break cuts inside a word (not at a space or a hyphen):
#: "C|y", "CPU Norm|al".
BROKEN_WORDS = """(sel) => {
  const bad = [];
  for (const box of document.querySelectorAll(sel)) {
    const walk = document.createTreeWalker(box, NodeFilter.SHOW_TEXT);
    for (let n = walk.nextNode(); n; n = walk.nextNode()) {
      const t = n.textContent;
      let top = null;
      for (let i = 0; i < t.length; i += 1) {
        if (/\\s/.test(t[i])) continue;
        const r = document.createRange();
        r.setStart(n, i);
        r.setEnd(n, i + 1);
        const b = r.getBoundingClientRect();
        if (!b.height) continue;
        if (top !== null && b.top > top + 2 && !/[\\s-]/.test(t[i - 1])) {
          bad.push(t);
          break;
        }
        top = b.top;
      }
    }
  }
  return bad;
}"""

PHONE = {"width": 360, "height": 640}


def test_the_party_form_and_the_rules_fit_a_small_phone(server_url: str, people: Any) -> None:
    # Every choice of the party form and of the host's rules is read whole on a 360 px phone.
    ann = people(viewport=PHONE)
    ann.goto(server_url)
    connected(ann)
    open_more_options(ann)
    ann.get_by_test_id("mode-party").check()
    for layout in ("singles", "doubles"):
        ann.get_by_test_id("layout-select").select_option(layout)
        assert ann.evaluate(CUT_OPTIONS, "#start-form") == []
    sync_api.expect(ann.get_by_test_id("layout-note")).to_contain_text("partners sitting opposite")
    sync_api.expect(ann.locator("#hand-note")).to_contain_text("strong club player")
    # The stand-in's level is asked in the words the lobby's rules then say.
    for form in ("#start-form", "#rules-form"):
        label = ann.locator(f"{form} label:has(select[name=standin_level])")
        sync_api.expect(label).to_contain_text("A missing player is played by")
    box = ann.get_by_test_id("contact-toggle").bounding_box()
    assert box is not None and box["width"] >= 18, box  # not squeezed by its two-line label
    ann.get_by_test_id("name-input").fill("Ann")
    ann.get_by_test_id("start-button").click()
    ann.wait_for_function("() => window.crokinole.screen === 'lobby'")
    ann.get_by_test_id("rules-button").click()
    sync_api.expect(ann.get_by_test_id("rules-dialog")).to_be_visible()
    assert ann.evaluate(CUT_OPTIONS, "#rules-form") == []
    ann.locator("#rules-close").click()
    # Settings: its choices read whole too; its checkboxes keep their size beside a long label;
    # in a party it offers neither a new game nor turning the board (one player per device).
    ann.get_by_test_id("settings-button").click()
    sync_api.expect(ann.get_by_test_id("settings-dialog")).to_be_visible()
    assert ann.evaluate(CUT_OPTIONS, "#settings-form") == []
    sizes = ann.evaluate(
        "() => [...document.querySelectorAll('.field.check input')].filter((e) => e.offsetParent)"
        ".map((e) => Math.round(e.getBoundingClientRect().width))"
    )
    assert sizes and min(sizes) >= 18, sizes
    sync_api.expect(ann.locator("#turn-board-field")).to_be_hidden()
    sync_api.expect(ann.get_by_test_id("settings-apply")).to_be_hidden()


def test_leaving_a_party_says_so_on_the_start_screen(server_url: str, people: Any) -> None:
    ann = people()
    code = create_party(ann, server_url, "singles", "Ann")
    bob = people()
    join_by_code(bob, server_url, code, "Bob")
    bob.get_by_test_id("leave-button").click()
    bob.wait_for_function("() => window.crokinole.screen === 'start'")
    # Told what happened; nothing left over from joining ("Joining…", the code).
    sync_api.expect(bob.locator("#start-status")).to_have_text("You left the party.")
    sync_api.expect(bob.locator("#join-status")).to_have_text("")
    sync_api.expect(bob.get_by_test_id("code-input")).to_have_value("")
    ann.wait_for_function("() => window.crokinole.view.members.length === 1")


#: Every text the turn line and the game result's title show, from the page's first moment.
WATCH_TEXTS = """
window.__seen = { turn: [], results: [] };
setInterval(() => {
  const t = document.querySelector('#turn-indicator');
  if (t && t.textContent && window.__seen.turn.at(-1) !== t.textContent) {
    window.__seen.turn.push(t.textContent);
  }
  const d = document.querySelector('#game-dialog');
  const title = d && d.open ? document.querySelector('#game-title').textContent : null;
  if (title && window.__seen.results.at(-1) !== title) window.__seen.results.push(title);
}, 20);
"""


def test_a_stand_in_is_named_and_a_player_back_after_the_end_sees_the_result(
    quick_server: str, people: Any
) -> None:
    # R7: the CPU plays for Cy, who is away; the screens name it "CPU playing for Cy" even
    # while it pauses before its shot (not "Cy is thinking…"), on a card that keeps the name
    # whole. Cy comes back after the end, on a phone: the missed shots are caught up and the
    # result shown is the game's (never "Game abandoned" from the party's lobby part, which
    # already says "finished"), its title in view.
    ann = people()
    ann.context.add_init_script(WATCH_TEXTS)
    code = create_party(ann, quick_server, "three_singles", "Ann", query="?rounds=1&cpu_pause=0.3")
    bob, cy = people(), people(viewport=PHONE)
    join_by_code(bob, quick_server, code, "Bob Normal")
    join_by_code(cy, quick_server, code, "Cy")
    sit(bob, "west")
    sit(cy, "north")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    for p in (ann, bob, cy):
        p.wait_for_function("() => window.crokinole.screen === 'game'")
    storage = cy.context.storage_state()
    cy.context.close()
    for p in (ann, bob):  # south, then west; then it is Cy's turn (north)
        p.wait_for_function("() => window.crokinole.canShoot")
        shoot(p)
    ann.wait_for_function(
        "() => window.crokinole.view.seats.some((s) => s.seat === 'north' && s.occupant.stand_in)"
    )
    sync_api.expect(ann.locator("#side-card-2")).to_contain_text("CPU playing for Cy")
    assert ann.evaluate(BROKEN_WORDS, ".side-card") == []
    play_to_the_end([ann, bob])
    final = same_everywhere([ann, bob])
    seen = ann.evaluate("() => window.__seen.turn")
    assert "CPU playing for Cy…" in seen, seen
    assert "Cy is thinking…" not in seen, seen
    # The result names every side whole, on a desktop.
    assert ann.evaluate(BROKEN_WORDS, "#game-dialog thead") == []
    back = people(storage=storage, viewport=PHONE)
    back.context.add_init_script(WATCH_TEXTS)
    back.goto(quick_server)
    connected(back)
    back.wait_for_function(GAME_OVER, timeout=60_000)
    back.wait_for_function("() => !window.crokinole.busy")
    winner = final["outcome"]["winner"]
    names = {0: "Ann wins", 1: "Bob Normal wins", 2: "You win!"}
    expected = "A draw" if winner is None else names[winner]
    assert back.evaluate("() => window.__seen.results") == [expected]
    # The title is in view on the phone (the dialog is not scrolled down to its buttons).
    assert back.evaluate("() => document.querySelector('#game-dialog').scrollTop") == 0
    title = back.locator("#game-title").bounding_box()
    assert title is not None and 0 <= title["y"] < PHONE["height"]
    sync_api.expect(back.locator("#game-title")).to_be_in_viewport()
    # Each side's mark stays on the line of its name in the final score.
    apart = back.evaluate(
        """() => [...document.querySelectorAll('#game-body .result-line svg.mark')].filter((m) => {
          const text = m.nextSibling;
          const at = text.textContent.search(/\\S/);
          const r = document.createRange();
          r.setStart(text, at);
          r.setEnd(text, at + 1);
          const a = m.getBoundingClientRect(), b = r.getBoundingClientRect();
          return Math.abs((a.top + a.bottom) / 2 - (b.top + b.bottom) / 2) > 10;
        }).length"""
    )
    assert apart == 0


#: How many times the page started animating a shot (sampled; an animation lasts far longer).
COUNT_ANIMATIONS = """
window.__animations = 0;
let __was = false;
setInterval(() => {
  const now = Boolean(window.crokinole && window.crokinole.animating);
  if (now && !__was) window.__animations += 1;
  __was = now;
}, 5);
"""


def test_a_player_back_mid_game_is_not_walked_through_every_missed_shot(
    quick_server: str, people: Any
) -> None:
    # Bob is away for several shots (the CPU stands in for his, R7). Back, his page catches up
    # on them at once and animates only the last, instead of replaying each one while the
    # game goes on without him.
    ann, bob, _code = start_singles(people, quick_server, query="?rounds=1&cpu_pause=0")
    ann.wait_for_function("() => window.crokinole.canShoot")
    storage = bob.context.storage_state()
    seen = bob.evaluate("() => window.crokinole.lastEvent")
    bob.context.close()
    for hand in (7, 6, 5):  # Ann shoots, then the stand-in plays Bob's turn
        ann.wait_for_function("() => window.crokinole.canShoot")
        shoot(ann)
        ann.wait_for_function(f"() => window.crokinole.state.seats[1].in_hand === {hand}")
    ann.wait_for_function("() => window.crokinole.canShoot")
    back = people(storage=storage, reduced_motion="no-preference")
    back.context.add_init_script(COUNT_ANIMATIONS)
    back.goto(quick_server)
    connected(back)
    final = same_everywhere([ann, back])
    assert [s["in_hand"] for s in final["seats"]] == [5, 5]  # six shots missed
    assert back.evaluate("() => window.crokinole.lastEvent") > seen
    assert len(back.evaluate("() => window.crokinole.log")) == 6
    assert back.evaluate("() => window.__animations") <= 2


def test_a_member_without_a_seat_watches_the_game(server_url: str, people: Any) -> None:
    ann = people()
    code = create_party(ann, server_url, "doubles", "Ann")
    bob, cy = people(), people()
    join_by_code(bob, server_url, code, "Bob")
    join_by_code(cy, server_url, code, "Cy")
    sit(bob, "west")
    sit(cy, "north")
    # Singles has no west seat: Bob is left without one, and the game starts without him.
    ann.get_by_test_id("rules-button").click()
    ann.locator("#rules-form select[name=layout]").select_option("singles")
    ann.get_by_test_id("rules-apply").click()
    bob.wait_for_function("() => window.crokinole.view.settings.layout === 'singles'")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    bob.wait_for_function("() => window.crokinole.screen === 'game'")
    # He watches, as a spectator does: no aim controls, no reactions, no Next or rematch.
    sync_api.expect(bob.locator("#controls")).to_be_hidden()
    assert bob.get_by_test_id("react-nice_shot").count() == 0
    sync_api.expect(bob.get_by_test_id("turn-indicator")).to_have_text("Ann to shoot")


def test_a_party_player_must_give_a_name(server_url: str, people: Any) -> None:
    # The others read it in the lobby and on every turn: no "You" or "Player" stands in for it.
    ann = people()
    ann.goto(server_url)
    connected(ann)
    open_more_options(ann)
    ann.get_by_test_id("mode-party").check()
    ann.get_by_test_id("name-input").fill("  ")
    ann.get_by_test_id("start-button").click()
    sync_api.expect(ann.locator("#start-status")).to_have_text(
        "Enter your name: the other players see it."
    )
    sync_api.expect(ann.get_by_test_id("name-input")).to_be_focused()
    assert ann.evaluate("() => window.crokinole.screen") == "start"
    code = create_party(ann, server_url, "singles", "Ann")
    bob = people()
    bob.goto(server_url)
    connected(bob)
    bob.get_by_test_id("code-input").fill(code)
    bob.get_by_test_id("join-button").click()
    sync_api.expect(bob.locator("#join-status")).to_have_text(
        "Enter your name: the other players see it."
    )
    assert bob.evaluate("() => window.crokinole.screen") == "start"
    assert len(view(ann)["members"]) == 1


def test_long_names_read_whole_on_a_phone(server_url: str, people: Any) -> None:
    # Names of up to 24 characters break between words or at a hyphen, never inside a word,
    # on the cards and in the result's table of a 360 px phone.
    ann = people(viewport=PHONE)
    code = create_party(ann, server_url, "singles", "Annabelle-Christina", query="?rounds=1")
    bob = people(viewport=PHONE)
    join_by_code(bob, server_url, code, "Bartholomew Fitzgerald")
    sit(bob, "north")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    play_to_the_end([ann, bob])
    for p in (ann, bob):
        assert p.evaluate(BROKEN_WORDS, ".side-card .players") == []
        assert p.evaluate(BROKEN_WORDS, "#game-dialog thead") == []


def test_a_seat_left_after_the_game_is_filled_in_the_lobby_for_the_next(
    server_url: str, people: Any
) -> None:
    # Bob leaves after the game: no rematch can start with his seat empty, so Ann is not left
    # "waiting for the others" but sent to the lobby to fill it (a CPU here), then starts.
    ann = people()
    code = create_party(ann, server_url, "singles", "Ann", query="?rounds=1&cpu_pause=0")
    bob = people()
    join_by_code(bob, server_url, code, "Bob")
    sit(bob, "north")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    play_to_the_end([ann, bob])
    bob.get_by_test_id("new-game-button").click()
    bob.wait_for_function("() => window.crokinole.screen === 'start'")
    rematch = ann.get_by_test_id("rematch-button")
    sync_api.expect(rematch).to_have_text("A seat is empty: fill it")
    rematch.click()
    ann.wait_for_function("() => window.crokinole.screen === 'lobby'")
    ann.get_by_test_id("cpu-north").select_option("easy")
    ann.wait_for_function(CAN_START)
    ann.get_by_test_id("party-start-button").click()
    ann.wait_for_function(
        "() => window.crokinole.screen === 'game' && window.crokinole.state.phase === 'playing'"
    )
    sync_api.expect(ann.get_by_test_id("game-result")).to_be_hidden()
    assert view(ann)["seats"][1]["occupant"]["name"] == "CPU Easy"
