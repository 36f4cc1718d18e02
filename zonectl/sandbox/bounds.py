"""Shard-key bounds as the config server handles them: global MinKey/MaxKey bounds, a bound
that is a prefix of the key padded with MinKey, containment and overlap of half-open ranges,
in the sandbox's own key order (zonectl.sandbox.keyorder)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.keyorder import encode


def global_min(key_pattern: Mapping[str, Any]) -> dict[str, Any]:
    """The smallest bound of a key pattern: every field MinKey."""
    return {field: MinKey() for field in key_pattern}


def global_max(key_pattern: Mapping[str, Any]) -> dict[str, Any]:
    """The largest bound of a key pattern: every field MaxKey."""
    return {field: MaxKey() for field in key_pattern}


def is_prefix_of(bound: Mapping[str, Any], key_pattern: Mapping[str, Any]) -> bool:
    """True when the bound's field names are a prefix of the key pattern's, in order."""
    names = list(bound)
    return bool(names) and names == list(key_pattern)[: len(names)]


def pad_bound(bound: Mapping[str, Any], key_pattern: Mapping[str, Any]) -> dict[str, Any]:
    """Fill missing trailing key fields with MinKey, as the config server stores a bound:
    `extendRangeBound(..., makeUpperInclusive=false)` fills min and max alike (reference
    §1.5 (a)). The caller checks `is_prefix_of` first."""
    return {field: bound[field] if field in bound else MinKey() for field in key_pattern}


def range_contains(outer_min: Any, outer_max: Any, inner_min: Any, inner_max: Any) -> bool:
    """[inner_min, inner_max) lies wholly inside [outer_min, outer_max)."""
    return encode(outer_min) <= encode(inner_min) and encode(inner_max) <= encode(outer_max)


def ranges_overlap(a_min: Any, a_max: Any, b_min: Any, b_max: Any) -> bool:
    """Half-open ranges overlap; touching ranges (a_max == b_min) do not."""
    return encode(a_min) < encode(b_max) and encode(b_min) < encode(a_max)
