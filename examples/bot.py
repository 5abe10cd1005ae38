"""A complete crokinole bot: plays one game against CPU Expert and prints the result.

Usage: python examples/bot.py [URL] [TOKEN]  (or $CROKINOLE_URL and $CROKINOLE_TOKEN);
the token is a bot account's API token (docs/bots.md) with the ``play`` scope.
"""

import json
import math
import os
import sys
import time

from websockets.sync.client import connect

url = (sys.argv[1:2] or [os.environ.get("CROKINOLE_URL", "http://localhost:8000")])[0]
token = (sys.argv[2:3] or [os.environ.get("CROKINOLE_TOKEN", "")])[0]
ANGLE = {"south": 270.0, "west": 180.0, "north": 90.0, "east": 0.0}  # each quarter's middle
auth = {"Authorization": f"Bearer {token}"}
with connect(url.replace("http", "ws", 1) + "/ws", additional_headers=auth) as ws:
    sent = [json.dumps({"type": "hello"})]
    send = lambda **msg: (sent.append(json.dumps(msg)), ws.send(sent[-1]))  # noqa: E731
    ws.send(sent[0])
    seats = {"south": "me", "north": "cpu:expert"}
    send(type="create", kind="solo", name="Example bot", settings={}, seats=seats)
    game, placement, mine, done = None, {}, [], set()
    while True:
        msg = json.loads(ws.recv())
        part = msg.get("view") or msg.get("lobby") or msg
        game = msg.get("game") or part.get("game") or game
        placement = part.get("placement", placement)
        mine = (part.get("you") or msg.get("you") or {}).get("seats", mine)
        if msg["type"] == "error":  # over the token's rate: the last message again, a moment later
            print("refused:", msg["message"], flush=True)
            if msg["code"] == "rate_limited":
                time.sleep(1.0), ws.send(sent[-1])
        if msg["type"] == "finished":
            scores = [side["score"] for side in msg["game"]["sides"]]
            print("finished: table", msg["table"], "winner side", msg["winner"], "scores", scores)
            break
        seat = game and game["current_seat"]
        turn = game and (game["round"], tuple(s["in_hand"] for s in game["seats"]))  # one a turn
        if game and game["phase"] == "round_over" and ("next", game["round"]) not in done:
            done.add(("next", game["round"])), send(type="next_round", table=msg["table"])
        mine_now = game and game["phase"] == "playing" and seat in mine and seat in placement
        if mine_now and turn not in done:
            done.add(turn)
            lo, hi = placement[seat][0]
            position = max(lo, min(hi, 0.0))  # the middle of the quarter when it is free
            a, r = math.radians(ANGLE[seat] + position), game["board"]["shooting_line_radius"]
            x, y = r * math.cos(a), r * math.sin(a)  # where the disc starts
            # R4: with their discs on the board, hit one (the nearest); else the centre.
            foes = [(d["x"], d["y"]) for d in game["discs"] if d["owner"] not in mine]
            tx, ty = min(foes, key=lambda p: math.dist(p, (x, y)), default=(0.0, 0.0))
            # The aim in degrees to the right of the line to the centre.
            aim = math.degrees(math.atan2(-y, -x) - math.atan2(ty - y, tx - x))
            send(type="shoot", table=msg["table"], seat=seat, position=position,
                 direction=(aim + 180.0) % 360.0 - 180.0, power=34.0 if foes else 26.0)
