"""The store's JSON: compact text that parses back to the value, or a plain refusal."""

from __future__ import annotations

import enum
import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import pytest

from crokinole.store import StoreDataError
from crokinole.store.database import to_json


class Colour(enum.Enum):
    RED = "red"


class Size(enum.IntEnum):
    BIG = 3


class Mood(enum.StrEnum):
    GLAD = "glad"


@dataclass
class Point:
    x: float


@pytest.mark.parametrize(
    "value",
    [
        {"type": "shot_played", "version": 5, "at": 1000.25, "aimed": None, "by": "person"},
        {"played": {"position": -4.031870998418759, "direction": 1e-7, "power": 1e22}},
        {"name": "Zoë 🎯", "quote": 'say "hi"\\n', "control": "\x00\x1f", "empty": {}},
        {"floats": [0.1, -0.0, 5e-324, 1.7976931348623157e308, 123456789.0], "ints": [-(2**63)]},
        {"big": 2**70, "tuple": (1, 2), 1: "int key", None: "null key", 2.5: "float key"},
        {"surrogate": "\ud800", "enums": [Size.BIG, Mood.GLAD], Mood.GLAD: True},
        [True, False, None, "null", "NaN"],
    ],
)
def test_the_text_is_compact_and_reads_back_as_the_standard_library_writes_it(value: Any) -> None:
    text = to_json(value, "it")
    expected = json.dumps(value, separators=(",", ":"), allow_nan=False)
    assert json.loads(text) == json.loads(expected)
    assert type(json.loads(text)) is type(json.loads(expected))


def test_dict_keys_keep_their_order() -> None:
    assert to_json({"b": 1, "a": {"z": None, "y": 2}}, "it") == '{"b":1,"a":{"z":null,"y":2}}'


@pytest.mark.parametrize(
    "value",
    [
        {"x": float("nan")},
        {"x": [1.0, float("inf")]},
        {"x": {"y": -float("inf")}},
        {"at": object()},
        {"colour": Colour.RED},
        {"id": uuid.UUID(int=1)},
        {"point": Point(1.0)},
        {"when": datetime(2026, 1, 1)},
        {(1, 2): "tuple key"},
        {"x": {1, 2}},
        {"x": b"bytes"},
    ],
)
def test_what_the_standard_library_refuses_is_refused(value: Any) -> None:
    with pytest.raises((TypeError, ValueError)) as stdlib:
        json.dumps(value, separators=(",", ":"), allow_nan=False)
    with pytest.raises(StoreDataError) as info:
        to_json(value, "event 4 of table t1")
    assert str(info.value) == f"event 4 of table t1 is not JSON: {stdlib.value}"
