"""sort_key's shortcuts for the commonest shard-key values (a one-field document; an int,
str, MinKey or MaxKey inside a document) give exactly the tuples of its documented rule: a
document is (RANK_OBJECT, per element (value's rank, field name, value's key)). Checked
against that rule spelt out here, over every value type the order differential draws."""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

from bson.son import SON
from hypothesis import given, settings

from tests.model.test_key_order_differential import _any, _bounds
from zonectl.model import keys

SETTINGS = settings(max_examples=300, deadline=None)


def _by_the_rule(value: Any) -> keys.SortKey:
    """The documented key, recursing into plain dicts and lists (scalars: sort_key)."""
    if type(value) is dict:
        elements = []
        for name, element in value.items():
            inner = _by_the_rule(element)
            elements.append((inner[0], name, inner))
        return (keys.RANK_OBJECT, tuple(elements))
    if type(value) is list:
        return (
            keys.RANK_ARRAY,
            tuple(
                (inner[0], str(i), inner)
                for i, inner in ((i, _by_the_rule(v)) for i, v in enumerate(value))
            ),
        )
    return keys.sort_key(value)


@SETTINGS
@given(_any)
def test_documents_key_as_the_rule_says(value: Any) -> None:
    assert keys.sort_key(value) == _by_the_rule(value)


@SETTINGS
@given(_bounds)
def test_a_dict_keys_as_the_same_document_in_another_mapping(bound: dict[str, Any]) -> None:
    # SON is a dict subclass, so it takes the generic Mapping path, not the dict shortcut.
    assert keys.sort_key(bound) == keys.sort_key(SON(bound)) == _by_the_rule(bound)


def _as_mapping(value: Any) -> Any:
    """The same value with every dict in it a read-only Mapping that is no dict."""
    if type(value) is dict:
        return MappingProxyType({k: _as_mapping(v) for k, v in value.items()})
    if type(value) is list:
        return [_as_mapping(v) for v in value]
    return value


@SETTINGS
@given(_any)
def test_a_dict_is_formatted_as_any_mapping(value: Any) -> None:
    """format_value's shortcut for a plain dict (a bound, in every op's description) gives
    what its Mapping case gives, over every value type the order differential draws."""
    assert keys.format_value(value) == keys.format_value(_as_mapping(value))
