"""A complete crokinole bot: plays one game against CPU Expert and prints the result.

Usage: python examples/bot.py [URL] [TOKEN]  (or $CROKINOLE_URL and $CROKINOLE_TOKEN);
the token is a bot account's API token (docs/bots.md) with the ``play`` scope.
"""

import json
import math
import os
import sys

from websockets.exceptions import ConnectionClosed
from websockets.sync.client import connect

url = (sys.argv[1:2] or [os.environ.get("CROKINOLE_URL", "http://localhost:8000")])[0]
token = (sys.argv[2:3] or [os.environ.get("CROKINOLE_TOKEN", "")])[0]


def shot(game: dict, free: list) -> dict:
    """Place on the free stretch nearest the line's middle (R3); aim at the nearest foe (R4)."""
    position = min((max(lo, min(hi, 0.0)) for lo, hi in free), key=abs)
    a, r = math.radians(270.0 + position), game["board"]["shooting_line_radius"]
    x, y = r * math.cos(a), r * math.sin(a)  # where the disc starts
    foes = [(d["x"], d["y"]) for d in game["discs"] if d["owner"] != "south"]
    tx, ty = min(foes, key=lambda p: math.dist(p, (x, y)), default=(0.0, 0.0))
    aim = math.degrees(math.atan2(-y, -x) - math.atan2(ty - y, tx - x))  # right of the centre
    direction = (aim + 180.0) % 360.0 - 180.0
    return {"position": position, "direction": direction, "power": 34.0 if foes else 26.0}


def play(ws) -> None:
    """Start a solo game against CPU Expert at south and play it to its end."""
    ws.send(json.dumps({"type": "hello"}))
    seats = {"south": "me", "north": "cpu:expert"}
    create = {"type": "create", "kind": "solo", "name": "Example bot", "settings": {}}
    ws.send(json.dumps({**create, "seats": seats}))
    while True:
        msg = json.loads(ws.recv())
        if msg["type"] == "error":
            sys.exit(f"refused: {msg['message']}")
        if msg["type"] == "finished":
            scores = [side["score"] for side in msg["game"]["sides"]]
            print("finished: table", msg["table"], "winner side", msg["winner"], "scores", scores)
            break
        view = msg.get("view") or msg  # a table's view, or an event with its lobby
        game, lobby = view.get("game"), view.get("lobby") or view
        if not game or msg["type"] not in ("table", "game_started", "shot", "timeout", "round"):
            continue
        if game["phase"] == "round_over":
            ws.send(json.dumps({"type": "next_round", "table": msg["table"]}))
        elif game["phase"] == "playing" and game["current_seat"] == "south":
            free = lobby["placement"]["south"]  # the free stretches of its quarter
            aimed = {"type": "shoot", "table": msg["table"], "seat": "south", **shot(game, free)}
            ws.send(json.dumps(aimed))


try:
    headers = {"Authorization": f"Bearer {token}"}
    with connect(url.replace("http", "ws", 1) + "/ws", additional_headers=headers) as ws:
        play(ws)
except ConnectionClosed as closed:  # a bad token: 4401 and the reason in words
    sys.exit(f"closed by the server: {closed.rcvd.reason if closed.rcvd else closed}")
