"""read_json: the nesting limit is exact, and brackets inside strings do not count."""

from __future__ import annotations

import pytest

from crokinole.server.json_input import MAX_DEPTH, JsonInputError, read_json


def test_nesting_up_to_the_limit_is_read() -> None:
    text = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    value = read_json(text)
    for _ in range(MAX_DEPTH - 1):
        value = value[0]
    assert value == []


def test_one_level_more_is_refused_plainly() -> None:
    text = "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)
    with pytest.raises(JsonInputError, match="nested too deeply") as caught:
        read_json(text)
    assert caught.value.kind == "content"


def test_brackets_inside_strings_are_text() -> None:
    # More brackets than the limit, all inside strings (an escaped quote included).
    names = ["[" * 50, '\\"' + "{" * 50]
    text = '{"names": ["' + names[0] + '", "' + names[1] + '"]}'
    assert read_json(text) == {"names": ["[" * 50, '"' + "{" * 50]}


def test_a_bracket_after_a_string_counts_again() -> None:
    text = '["[[[["' + ", [" * MAX_DEPTH + "]" * MAX_DEPTH + "]"
    with pytest.raises(JsonInputError, match="nested too deeply"):
        read_json(text)
