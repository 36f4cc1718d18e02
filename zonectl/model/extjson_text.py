"""`bson.json_util.dumps(value, json_options=...)`'s text, with json_util's conversion walked
here for the values plan ids and policy digests hold by the ten thousand (strings, dicts,
lists, ints, MinKey, MaxKey) and `json_util.default` asked for every other value."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from bson import json_util
from bson.json_util import JSONMode, JSONOptions
from bson.max_key import MaxKey
from bson.min_key import MinKey

_INT32_MIN, _INT32_END = -(2**31), 2**31  # json_util's `-_INT32_MAX <= obj < _INT32_MAX`
_MIN_KEY, _MAX_KEY = MinKey, MaxKey


def converter(options: JSONOptions) -> Callable[[Any], Any]:
    """json_util's `_json_convert(value, options)` (the structure json_util.dumps hands to
    json.dumps), exactly: mappings (anything with `items`) as dicts of their converted
    values, other iterables but str and bytes as lists, any other value as
    `json_util.default` converts it, or as it is where default raises TypeError. Exact
    types first: a canonical int is its $numberInt or $numberLong, MinKey and MaxKey their
    documents, str, bool and None themselves (what default returns for them)."""
    canonical = options.json_mode == JSONMode.CANONICAL
    default = json_util.default

    def convert(value: Any) -> Any:
        kind = type(value)
        if kind is str or kind is bool or value is None:
            return value
        if kind is dict:
            return {k: convert(v) for k, v in value.items()}
        if kind is list or kind is tuple:
            return [convert(v) for v in value]
        if kind is int and canonical:
            number = "$numberInt" if _INT32_MIN <= value < _INT32_END else "$numberLong"
            return {number: str(value)}
        if kind is _MIN_KEY:
            return {"$minKey": 1}
        if kind is _MAX_KEY:
            return {"$maxKey": 1}
        if hasattr(value, "items"):
            return {k: convert(v) for k, v in value.items()}
        if hasattr(value, "__iter__") and not isinstance(value, str | bytes):
            return [convert(v) for v in value]
        try:
            return default(value, options)
        except TypeError:
            return value

    return convert


def dumps(value: Any, options: JSONOptions, **kwargs: Any) -> str:
    """`json_util.dumps(value, json_options=options, **kwargs)`, the same text."""
    return json.dumps(converter(options)(value), **kwargs)
