"""Hypothesis strategies for the robustness property: small sandbox cluster files (sharded,
unsharded and missing namespaces, live zone ranges, empty zones, sampling, noBalance) and
policies against them (exact names, patterns, missing namespaces, key changes, reshard
routes, `ranges: []`, sampling-, balancing- or key-only entries). Both are written as JSON,
which YAML reads as flow style."""

from __future__ import annotations

import itertools
from typing import Any

from hypothesis import strategies as st

SHARDS = ("s0", "s1", "s2")
ZONES = ("hot", "cold", "eu")
MIN: dict[str, Any] = {"$minKey": 1}
MAX: dict[str, Any] = {"$maxKey": 1}

# Sharded collections: key, chunk generator, and the split values a range may use.
SHARDED: dict[str, dict[str, Any]] = {
    "app.events": {
        "key": {"ts": 1, "_id": 1},
        "keys": {"type": "date", "start": "2026-01-01T00:00:00Z", "step": "1d"},
        "splits": [{"$date": f"2026-01-0{d}T00:00:00Z"} for d in range(2, 6)],
    },
    "app.users": {
        "key": {"uid": 1},
        "keys": {"type": "int", "start": 0, "step": 100},
        "splits": [100, 200, 300, 400],
    },
    "app.h": {
        "key": {"_id": "hashed"},
        "keys": None,
        "splits": [{"$numberLong": str(v)} for v in (-(2**62), 0, 2**62)],
    },
}
UNSHARDED = {
    "app.plain": "collection",
    "app.v": "view",
    "app.ts": "timeseries",
    "app.cap": "capped",
}
MISSING = ("app.nosuch", "other.gone")
PATTERNS = ("app.*", "app.u*", "other.*", "app.[hp]*")
TEMPLATE = "app.day_%Y%m%d"  # collection-per-day slices; a 13th month is no date
SLICES = ("app.day_20200101", "app.day_20261124", "app.day_20991231", "app.day_20261399")
NAMES = (*SHARDED, *UNSHARDED, *MISSING, *PATTERNS, TEMPLATE)
# Keys a policy may name: the live ones, a refine of each, and others (a resharding).
KEYS = (
    {"ts": 1, "_id": 1},
    {"ts": 1, "_id": 1, "region": 1},
    {"uid": 1},
    {"uid": 1, "_id": 1},
    {"_id": "hashed"},
    {"region": 1},
)


def _ranges(draw: st.DrawFn, key: dict[str, Any], splits: list[Any], zones: list[str]) -> list[Any]:
    """0-3 ordered, non-overlapping ranges over the first key field (MinKey/MaxKey ends)."""
    field = next(iter(key))
    points = [MIN, *draw(st.lists(st.sampled_from(splits), unique_by=str, max_size=3)), MAX]
    points = [MIN, *sorted(points[1:-1], key=splits.index), MAX]
    out = []
    for lo, hi in itertools.pairwise(points):
        if zones and draw(st.booleans()):
            zone = draw(st.sampled_from(zones))
            out.append({"zone": zone, "min": {field: lo}, "max": {field: hi}})
    return out


def _pad(bound: dict[str, Any], key: dict[str, Any]) -> dict[str, Any]:
    """A bound as config.tags stores it: every key field, MinKey after a prefix (MaxKey
    after MaxKey)."""
    fill = MAX if MAX in bound.values() else MIN
    return {f: bound.get(f, fill) for f in key}


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    version = draw(st.sampled_from(("5.0", "6.0", "7.0", "8.0")))
    shards = [
        {"name": name, "zones": draw(st.lists(st.sampled_from(ZONES), unique=True, max_size=2))}
        for name in SHARDS[: draw(st.sampled_from((1, 2, 2, 3, 3)))]
    ]
    carried = sorted({z for s in shards for z in s["zones"]})
    collections, zones = [], []
    for ns in draw(st.lists(st.sampled_from(sorted(SHARDED)), unique=True)):
        spec = SHARDED[ns]
        coll: dict[str, Any] = {"ns": ns, "key": spec["key"], "chunks": draw(st.integers(1, 5))}
        if spec["keys"]:
            coll["keys"] = spec["keys"]
        if draw(st.booleans()):
            coll["noBalance"] = True
        if coll["chunks"] > 1 and draw(st.booleans()):
            coll["jumbo"] = [0]
        if version >= "7.0" and draw(st.booleans()):
            coll["queryAnalyzer"] = {"samplesPerSecond": 2}
        collections.append(coll)
        for r in _ranges(draw, spec["key"], spec["splits"], carried):
            zones.append({"ns": ns, "zone": r["zone"], "min": _pad(r["min"], spec["key"]),
                          "max": _pad(r["max"], spec["key"])})  # fmt: skip
    unsharded = [
        {"ns": ns, "type": kind} for ns, kind in sorted(UNSHARDED.items()) if draw(st.booleans())
    ]
    unsharded += [{"ns": ns} for ns in draw(st.lists(st.sampled_from(SLICES), unique=True))]
    fcv = {"featureCompatibilityVersion": "7.0"} if version == "8.0" and draw(st.booleans()) else {}
    return {
        **fcv,
        "version": version,
        "shards": shards,
        "databases": [{"name": "app", "primary": SHARDS[0]}],
        "collections": collections,
        "unsharded": unsharded,
        "zones": zones,
        "balancer": {"enabled": draw(st.booleans())},
    }


@st.composite
def entries(draw: st.DrawFn, ns: str, zones: list[str]) -> dict[str, Any]:
    """One `collections:` entry naming a random subset of what an entry can say."""
    if ns == TEMPLATE:
        cold = {"cold": draw(st.sampled_from(zones))} if zones and draw(st.booleans()) else {}
        hot = draw(st.sampled_from(zones)) if zones else "hot"
        keep = draw(st.integers(1, 3))
        return {"slices": {"schedule": "0 0 * * *", "keep": keep, "hot": hot, **cold}}
    entry: dict[str, Any] = {}
    live = SHARDED.get(ns)
    key = draw(st.sampled_from(KEYS)) if draw(st.booleans()) else None
    if key is not None:
        entry["key"] = key
        if draw(st.booleans()):
            entry["reshard"] = True
    written = key or (live["key"] if live else {"uid": 1})
    splits = live["splits"] if live and written == live["key"] else SHARDED["app.users"]["splits"]
    if next(iter(written)) == "ts":
        splits = SHARDED["app.events"]["splits"]
    aspect = draw(st.sampled_from(("none", "ranges", "empty", "pin", "firehose")))
    if aspect == "ranges" and next(iter(written)) != "_id":
        entry["ranges"] = _ranges(draw, written, splits, zones)
    elif aspect == "empty":
        entry["ranges"] = []
    elif aspect == "pin" and zones:
        entry["pin"] = draw(st.sampled_from(zones))
    elif aspect == "firehose" and zones:
        entry["firehose"] = {
            "field": "ts",
            "type": draw(st.sampled_from(("date", "date", "objectId", "epochSeconds"))),
            "schedule": "0 0 * * *",
            "hot": draw(st.sampled_from(zones)),
            **({"cold": draw(st.sampled_from(zones))} if len(zones) > 1 else {}),
        }
    if draw(st.booleans()):
        entry["migrate"] = draw(st.sampled_from(("eager", "balancer", "reshard")))
    if draw(st.booleans()):
        entry["sampling"] = draw(st.sampled_from(({"samplesPerSecond": 1}, "off")))
    if draw(st.booleans()):
        entry["balancing"] = draw(st.booleans())
    return entry


@st.composite
def policies(draw: st.DrawFn, cluster: dict[str, Any]) -> dict[str, Any]:
    """A policy for `cluster`: its shards (one in ten times an unknown one too)."""
    shard_names = [s["name"] for s in cluster["shards"]]
    if draw(st.integers(0, 9)) == 0:
        shard_names.append("s9")
    shards = {
        name: draw(st.lists(st.sampled_from(ZONES), unique=True, max_size=2))
        for name in draw(st.lists(st.sampled_from(shard_names), unique=True, min_size=1))
    }
    zones = sorted({z for zs in shards.values() for z in zs})
    names = draw(st.lists(st.sampled_from(NAMES), unique=True, max_size=4))
    doc: dict[str, Any] = {"apiVersion": "zonectl/v1", "kind": "ZonePolicy", "shards": shards}
    doc["collections"] = {ns: draw(entries(ns, zones)) for ns in names}
    if draw(st.booleans()):
        window = {"start": "23:00", "stop": "06:00"} if draw(st.booleans()) else None
        doc["balancer"] = {"enabled": draw(st.booleans()), "activeWindow": window}
    return doc


def cases() -> st.SearchStrategy[tuple[dict[str, Any], dict[str, Any]]]:
    """(cluster, policy for it)."""
    return clusters().flatmap(lambda c: st.tuples(st.just(c), policies(c)))
