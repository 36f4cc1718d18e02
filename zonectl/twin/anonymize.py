"""`--anonymize`: databases, collections, shards and zones renamed consistently, and bound
values replaced by order-preserving stand-ins (rank tokens per field and type), so the twin
plans the same and shows nothing of the users' documents. Hashed-key bounds (hashes, not
values) are kept."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any

from bson import Binary, Int64, ObjectId, Timestamp

from zonectl.model.keys import (
    RANK_BINDATA,
    RANK_DATE,
    RANK_NUMBER,
    RANK_OBJECTID,
    RANK_STRING,
    RANK_TIMESTAMP,
    sort_key,
    type_rank,
)

_EPOCH = dt.datetime(2000, 1, 1, tzinfo=dt.UTC)


def _token(n: int, value: Any) -> Any:
    """The n-th stand-in of `value`'s BSON type: ordered as the ranks are."""
    kind = type_rank(value)
    if kind == RANK_NUMBER:
        return Int64(n)
    if kind == RANK_STRING:
        return f"v{n:010d}"
    if kind == RANK_OBJECTID:
        return ObjectId(n.to_bytes(12, "big"))
    if kind == RANK_DATE:
        return _EPOCH + dt.timedelta(seconds=n)
    if kind == RANK_TIMESTAMP:
        return Timestamp(n, 0)
    if kind == RANK_BINDATA:
        return Binary(n.to_bytes(8, "big"))
    return value  # MinKey, MaxKey, null, booleans...: no user data; others kept as they are


_TOKENED = {RANK_NUMBER, RANK_STRING, RANK_OBJECTID, RANK_DATE, RANK_TIMESTAMP, RANK_BINDATA}


class Names:
    """Stand-in names, numbered in sorted order of the real ones."""

    def __init__(self, prefix: str, real: Iterable[str]) -> None:
        self.map = {name: f"{prefix}{i}" for i, name in enumerate(sorted(set(real)), 1)}
        self.prefix = prefix

    def __call__(self, name: str) -> str:
        if name not in self.map:
            self.map[name] = f"{self.prefix}{len(self.map) + 1}"
        return self.map[name]


class Anonymizer:
    def __init__(self, shards: Iterable[str], zones: Iterable[str], namespaces: Iterable[str]):
        self.shard = Names("shard", shards)
        self.zone = Names("zone", zones)
        namespaces = sorted(set(namespaces))
        self.db = Names("db", (ns.split(".", 1)[0] for ns in namespaces))
        self._colls = Names("c", namespaces)

    def ns(self, ns: str) -> str:
        db = ns.split(".", 1)[0]
        return f"{self.db(db)}.{self._colls(ns)}"


class BoundMap:
    """One collection's bound values to their stand-ins: per field and type, the rank among
    every value the chunks and zone ranges use (equal values stay equal, order is kept)."""

    def __init__(self, key: Mapping[str, Any], bounds: Iterable[Mapping[str, Any]]) -> None:
        self.hashed = {f for f, how in key.items() if how == "hashed"}
        seen: dict[tuple[str, int], dict[Any, Any]] = {}
        for bound in bounds:
            for f, v in bound.items():
                kind = type_rank(v)
                if f in self.hashed or kind not in _TOKENED:
                    continue
                seen.setdefault((f, kind), {}).setdefault(sort_key(v), v)
        self._map: dict[tuple[str, Any], Any] = {}
        for (f, _), values in seen.items():
            for n, k in enumerate(sorted(values), 1):
                self._map[(f, k)] = _token(n, values[k])

    def __call__(self, bound: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for f, v in bound.items():
            if f in self.hashed or type_rank(v) not in _TOKENED:
                out[f] = v
            else:
                out[f] = self._map[(f, sort_key(v))]
        return out
