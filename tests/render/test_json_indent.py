"""zonectl.render.json_indent.dumps_indented against json.dumps: hypothesis draws nested JSON
values (unicode, control characters, big ints, every kind of float, bools, None, empty
containers, tuples, subclasses json writes as their base type) and both must give the same
text, with and without ensure_ascii and at other indents. What json refuses (other types,
other keys, circular references) must raise what json raises; deep nesting must still be
written as json writes it."""

from __future__ import annotations

import enum
import json
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.render.json_indent import dumps_indented

SETTINGS = settings(max_examples=400, deadline=None)


class Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


class Name(enum.StrEnum):
    HOT = "hot"


class Ratio(float):
    def __repr__(self) -> str:  # json calls float.__repr__, not this
        return "ratio"


class Count(int):
    def __repr__(self) -> str:  # json calls int.__repr__, not this
        return "count"


_chars = st.one_of(
    st.characters(codec="utf-8"),  # no lone surrogates
    st.sampled_from(["\x00", "\x1f", "\x7f", "\x85", '"', "\\", "/", "\n", "\t", "\u2028"]),
    st.sampled_from(["\u202e", "\ufeff", "\uffff", "\U0001f600", "é", "ß", "中"]),
)
_strings = st.text(_chars, max_size=12)
_floats = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e300, -1e300, 5e-324, 1e16, 1e-7, 0.1, float("nan")]),
    st.sampled_from([float("inf"), float("-inf"), 2.0**53, 123456789.0]),
)
_ints = st.one_of(
    st.integers(-(2**31), 2**31),
    st.integers(-(2**200), 2**200),
    st.sampled_from([0, -1, 2**63 - 1, -(2**63), 2**64]),
)
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    _ints,
    _floats,
    _strings,
    st.sampled_from(list(Level)),
    st.sampled_from(list(Name)),
    _floats.map(Ratio),
    _ints.map(Count),
)
_keys = st.one_of(
    _strings,
    _strings,
    st.sampled_from(list(Name)),
    _ints,
    _floats,
    st.booleans(),
    st.none(),
    st.sampled_from(list(Level)),
)


def _containers(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=5),
        st.lists(children, max_size=5).map(tuple),
        st.dictionaries(_keys, children, max_size=5),
        st.dictionaries(_strings, children, max_size=5).map(OrderedDict),
    )


_values = st.recursive(_scalars, _containers, max_leaves=40)


@SETTINGS
@given(_values, st.booleans())
def test_the_same_text_as_json_dumps(value: Any, ensure_ascii: bool) -> None:
    expected = json.dumps(value, indent=2, ensure_ascii=ensure_ascii)
    assert dumps_indented(value, ensure_ascii=ensure_ascii) == expected


@settings(max_examples=100, deadline=None)
@given(_values, st.integers(0, 8))
def test_other_indents(value: Any, indent: int) -> None:
    assert dumps_indented(value, indent=indent) == json.dumps(value, indent=indent)


@pytest.mark.parametrize(
    "value",
    [
        {},
        [],
        (),
        {"a": {}, "b": [], "c": [{}, [], ()]},
        [[[[]]]],
        "",
        0,
        -0.0,
        float("nan"),
        True,
        None,
        "\u202e\x1b[2J",
        {"x": {"$minKey": 1}, "y": [1, 2.5, None, False, "s"]},
        {3: "a", 2.5: "b", True: "c", False: "g", None: "d", Level.HIGH: "e", Name.HOT: "f"},
    ],
)
def test_edges(value: Any) -> None:
    assert dumps_indented(value, ensure_ascii=False) == json.dumps(
        value, indent=2, ensure_ascii=False
    )


def test_deep_nesting_is_written_as_json_writes_it() -> None:
    value: Any = "leaf"
    for depth in range(300):
        value = [value] if depth % 2 else {"k": value}
    assert dumps_indented(value) == json.dumps(value, indent=2)


def _raised(call: Any) -> tuple[type[BaseException], str]:
    with pytest.raises(Exception) as caught:
        call()
    return caught.type, str(caught.value)


@pytest.mark.parametrize(
    "value",
    [
        {"a": [1, {2, 3}]},
        {"when": object()},
        [b"bytes"],
        {(1, 2): "tuple key"},
        {"a": 1, b"k": 2},
        [1, 2**100000],  # more digits than int's str() allows
    ],
)
def test_what_json_refuses_raises_what_json_raises(value: Any) -> None:
    assert _raised(lambda: dumps_indented(value)) == _raised(lambda: json.dumps(value, indent=2))


def test_a_circular_reference_raises_what_json_raises() -> None:
    loop: dict[str, Any] = {"a": []}
    loop["a"].append(loop)
    expected = _raised(lambda: json.dumps(loop, indent=2))
    assert expected == (ValueError, "Circular reference detected")
    assert _raised(lambda: dumps_indented(loop)) == expected


def test_a_shared_value_is_not_circular() -> None:
    shared = {"x": [1, 2]}
    value = {"a": shared, "b": [shared, shared]}
    assert dumps_indented(value) == json.dumps(value, indent=2)
