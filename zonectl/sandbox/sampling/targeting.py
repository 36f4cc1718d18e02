"""How a sampled query's filter targets a shard key: one shard key value (single shard), a
sub-range of the key space (a variable number of shards), or all of it (scatter-gather).

As analyze_shard_key_read_write_distribution.cpp `_incrementMetricsForQuery` decides it:
an equality on every shard key field is single-shard (extractShardKeyFromQuery); otherwise
the index bounds of the filter on the key decide: bounds on the first field narrower than
[MinKey, MaxKey] target a sub-range, else the whole key space. A hashed field takes only
equalities: a range on it is scatter-gather (jstests analyze_shard_key/
read_and_write_distribution.js, "For hashed sharding, range queries ... target all shards").
`$expr: {$eq: ["$f", v]}` with `v` literal or a `let` variable counts as an equality, as the
jstest's aggregate with `let` shows. Collation is not simulated (every key is simple).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.keyorder import encode

Kind = Literal["single", "multi", "scatter"]
_MIN, _MAX = MinKey(), MaxKey()
_RANGE_OPS = {"$gt", "$gte", "$lt", "$lte"}


@dataclass(frozen=True)
class Target:
    kind: Kind
    point: tuple[Any, ...] | None = None  # the key value of a single-shard query
    low: Any = _MIN  # bounds on the first key field of a multi-shard query
    high: Any = _MAX


def target(
    query: Mapping[str, Any], key: Mapping[str, Any], let: Mapping[str, Any] | None = None
) -> Target:
    fields = list(key)
    equal = _equalities(query, let or {})
    if all(f in equal for f in fields):
        return Target("single", point=tuple(equal[f] for f in fields))
    first = fields[0]
    if key[first] == "hashed":
        return Target("scatter")
    if first in equal:
        return Target("multi", low=equal[first], high=equal[first])
    bounds = _bounds(query.get(first))
    if bounds is not None and not (isinstance(bounds[0], MinKey) and isinstance(bounds[1], MaxKey)):
        return Target("multi", low=bounds[0], high=bounds[1])
    return Target("scatter")


def _equalities(query: Mapping[str, Any], let: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name, value in query.items():
        if name == "$and" and isinstance(value, list):
            for part in value:
                if isinstance(part, Mapping):
                    out.update(_equalities(part, let))
        elif name == "$expr" and isinstance(value, Mapping):
            out.update(_expr_equality(value, let))
        elif not name.startswith("$"):
            if isinstance(value, Mapping) and any(str(k).startswith("$") for k in value):
                if list(value) == ["$eq"]:
                    out[name] = value["$eq"]
                elif list(value) == ["$in"] and _one(value["$in"]):
                    out[name] = value["$in"][0]
            elif not isinstance(value, list):
                out[name] = value
    return out


def _expr_equality(expr: Mapping[str, Any], let: Mapping[str, Any]) -> dict[str, Any]:
    args = expr.get("$eq")
    if not isinstance(args, list) or len(args) != 2:
        return {}
    path, value = args
    if not (isinstance(path, str) and path.startswith("$") and not path.startswith("$$")):
        return {}
    if isinstance(value, str) and value.startswith("$$"):
        name = value[2:]
        if name not in let:
            return {}  # $$NOW and other system variables: no constant, whole key space
        value = let[name]
    elif isinstance(value, str) and value.startswith("$"):
        return {}
    return {path[1:]: value}


def _bounds(condition: Any) -> tuple[Any, Any] | None:
    if not isinstance(condition, Mapping):
        return None
    ops = {k: v for k, v in condition.items() if k in _RANGE_OPS}
    if "$in" in condition and isinstance(condition["$in"], list) and condition["$in"]:
        values = condition["$in"]
        return min(values, key=encode), max(values, key=encode)
    if not ops:
        return None
    low = next((ops[k] for k in ("$gt", "$gte") if k in ops), MinKey())
    high = next((ops[k] for k in ("$lt", "$lte") if k in ops), MaxKey())
    return low, high


def _one(values: Any) -> bool:
    return isinstance(values, list) and len(values) == 1
