"""Analysis over HTTP on its own pool (real server, real sockets, real HTTP).

Reviews and the practice room compute on the analysis pool, never on the CPU
players' threads; a review is computed a shot at a time, so reviews asked
together take turns; a review is capped in length and the pool's queue is
bounded (503 past it).  Tests assert on the order things come back, never
on how long they took.
"""

from __future__ import annotations

import random
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from crokinole import Game, Rules, Shot
from crokinole.rules.options import Scoring
from crokinole.server.http.review import MAX_REVIEW_SHOTS
from crokinole.server.limits import ServerSettings
from tests.support.server import Player, serving


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    db: Path = tmp_path_factory.mktemp("db") / "crokinole.db"
    settings = ServerSettings(warm_up=True, cpu_workers=1, analysis_workers=1, analysis_queue=1)
    with serving(db, settings) as url:
        yield url


def long_record(shots: int, seed: int = 3) -> bytes:
    """A game record of ``shots`` shots (a game to 1000, discs left all over the board)."""
    rng = random.Random(seed)
    game = Game(Rules(scoring=Scoring.TO_100, target=1000))
    played = 0
    while played < shots:
        seat = game.current_seat
        if seat is None:
            game.next_round()
            continue
        for _ in range(50):
            shot = Shot(rng.uniform(-10, 10), rng.uniform(-8, 8), rng.uniform(22, 34))
            if game.placement_problem(seat, shot.position) is None:
                break
        game.shoot(seat, shot)
        played += 1
    return game.to_json().encode()


class Review(threading.Thread):
    """``POST /api/review`` from its own client address (``X-Forwarded-For``), in a thread."""

    def __init__(self, url: str, record: bytes, address: str) -> None:
        super().__init__(daemon=True)
        self.request = urllib.request.Request(
            url + "/api/review",
            data=record,
            method="POST",
            headers={"Content-Type": "application/json", "X-Forwarded-For": address},
        )
        self.status: int | None = None
        self.body = b""
        self.finished = threading.Event()

    def run(self) -> None:
        try:
            with urllib.request.urlopen(self.request, timeout=600) as answer:
                self.status, self.body = answer.status, answer.read()
        except urllib.error.HTTPError as exc:
            self.status, self.body = exc.code, exc.read()
        finally:
            self.finished.set()


def _started(url: str, record: bytes, address: str) -> Review:
    review = Review(url, record, address)
    review.start()
    time.sleep(0.5)  # its request is on the server (no figure is asserted on this)
    return review


def test_a_review_longer_than_the_cap_is_refused_in_plain_words(server: str) -> None:
    review = Review(server, long_record(MAX_REVIEW_SHOTS + 1), "10.0.0.1")
    review.run()
    assert review.status == 413
    assert f"this game has {MAX_REVIEW_SHOTS + 1} shots" in review.body.decode()


def test_reviews_asked_together_take_turns_a_shot_at_a_time(server: str) -> None:
    long = _started(server, long_record(200), "10.0.0.2")
    short = Review(server, long_record(4, seed=5), "10.0.0.3")
    short.start()
    short.join(timeout=600)
    # The short review came back while the long one (asked first) was still computed.
    assert short.status == 200 and not long.finished.is_set()
    long.join(timeout=600)
    assert long.status == 200


def test_the_analysis_queue_is_bounded(server: str) -> None:
    first = _started(server, long_record(200), "10.0.0.4")
    second = _started(server, long_record(200, seed=4), "10.0.0.5")
    third = Review(server, long_record(4, seed=5), "10.0.0.6")
    third.run()
    assert third.status == 503
    assert "the analysis is busy" in third.body.decode()
    for review in (first, second):
        review.join(timeout=600)
        assert review.status == 200


def _cpu_game(url: str) -> tuple[Player, dict[str, Any]]:
    ann = Player(url)
    ann.hello()
    view = ann.create(
        "solo", "Ann", seats={"south": "me", "north": "expert"}, layout="singles", rounds=1
    )["view"]
    return ann, view


def test_a_cpu_reply_comes_while_two_long_reviews_are_computed(server: str) -> None:
    ann, _view = _cpu_game(server)
    reviews = [
        _started(server, long_record(240, seed=6), "10.0.0.7"),
        _started(server, long_record(240, seed=7), "10.0.0.8"),
    ]
    ann.shoot("south", power=28.0)
    assert ann.until("shot")["seat"] == "south"
    cpu = ann.until("shot", timeout=600)
    assert cpu["seat"] == "north" and cpu["by"] == "cpu"
    # The CPU played while both reviews were still being computed.
    assert not any(r.finished.is_set() for r in reviews)
    for review in reviews:
        review.join(timeout=600)
        assert review.status == 200
    ann.close()
