"""The chunks a resharding creates under the new key, and the bytes each shard sends/receives.

Split points (ReshardingSplitPolicy, mongo:src/mongo/db/s/resharding/resharding_util.cpp;
manual, reshardCollection `numInitialChunks`: "defaults to the number of chunks of the
current shard key"):
- to the same key (7.2+ forceRedistribution): the current chunk bounds;
- to a new key over documents the sandbox holds: quantiles of the documents' new key values;
- a hashed first field without documents: even NumberLong intervals, as shardCollection;
- otherwise (nominal sizes, no documents): one chunk per zone piece, the size shared evenly
  (a guess: the sandbox cannot know the new key's distribution).
Every piece is then split at the `zones` boundaries. A chunk inside a zone goes to that
zone's shards in turn, any other to all shards in turn (the policy's round robin, inferred).
Every donor sends everything it holds, every recipient receives its whole new share: the
temporary collection is rebuilt from scratch (manual, "Resharding Process").
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bson import Int64

from zonectl.sandbox.bounds import global_max, global_min, range_contains
from zonectl.sandbox.catalog.cluster import Cluster
from zonectl.sandbox.keyorder import compare, encode


@dataclass
class Layout:
    bounds: list[dict[str, Any]]
    shards: list[str]
    sizes: list[int]
    counts: list[int]
    sent: dict[str, int] = field(default_factory=dict)
    received: dict[str, int] = field(default_factory=dict)

    @property
    def total_bytes(self) -> int:
        return sum(self.sizes)

    @property
    def total_docs(self) -> int:
        return sum(self.counts)


Piece = tuple[dict[str, Any], dict[str, Any], int, int]  # min, max, bytes, docs


def build(
    cluster: Cluster,
    ns: str,
    key: Mapping[str, Any],
    zones: Sequence[Mapping[str, Any]],
    num_chunks: int | None,
) -> Layout:
    store = cluster.chunks(ns)
    assert store is not None
    sizes, counts = store.sizes()
    total, docs = sum(sizes), sum(counts)
    sent: dict[str, int] = {}
    for i in range(len(store)):
        sent[store.shard_at(i)] = sent.get(store.shard_at(i), 0) + store.size_at(i)
    n = num_chunks or len(store)
    if dict(cluster.key_pattern(ns) or {}) == dict(key):
        pieces: list[Piece] = [(c.min, c.max, c.size, c.count) for c in store]
    else:
        pieces = _new_key_pieces(cluster, ns, key, n, total, docs)
    for zone in zones:
        pieces = _split_at(_split_at(pieces, dict(zone["min"])), dict(zone["max"]))
    shards, received = _owners(cluster, pieces, zones)
    return Layout(
        [p[0] for p in pieces] + [pieces[-1][1]],
        shards,
        [p[2] for p in pieces],
        [p[3] for p in pieces],
        sent,
        received,
    )


def _new_key_pieces(
    cluster: Cluster, ns: str, key: Mapping[str, Any], n: int, total: int, docs: int
) -> list[Piece]:
    lo, hi = global_min(key), global_max(key)
    data = cluster.catalog.get(ns)
    held = list(data) if data is not None else []
    first = next(iter(key))
    if held and key[first] != "hashed":
        values = sorted(({f: d.get(f) for f in key} for d in held), key=lambda v: encode(v))
        points: list[dict[str, Any]] = []
        for k in range(1, n):
            point = values[k * len(values) // n]
            if compare(point, lo) > 0 and (not points or compare(point, points[-1]) > 0):
                points.append(point)
        edges = [lo, *points, hi]
        per_doc = total // max(docs, 1) if docs else 0
        out: list[Piece] = []
        for a, b in itertools.pairwise(edges):
            inside = sum(1 for v in values if compare(a, v) <= 0 < compare(b, v))
            out.append((a, b, inside * per_doc, inside))
        return out
    if key[first] == "hashed":
        edges = [lo]
        edges += [{**lo, first: Int64(-(2**63) + (k * 2**64) // n)} for k in range(1, n)]
        edges.append(hi)
    else:
        edges = [lo, hi]
    pieces = len(edges) - 1
    return [(a, b, total // pieces, docs // pieces) for a, b in itertools.pairwise(edges)]


def _split_at(pieces: list[Piece], point: dict[str, Any]) -> list[Piece]:
    out: list[Piece] = []
    for lo, hi, size, count in pieces:
        if compare(lo, point) < 0 < compare(hi, point):
            out.append((lo, point, size // 2, count // 2))
            out.append((point, hi, size - size // 2, count - count // 2))
        else:
            out.append((lo, hi, size, count))
    return out


def _owners(
    cluster: Cluster, pieces: list[Piece], zones: Sequence[Mapping[str, Any]]
) -> tuple[list[str], dict[str, int]]:
    everyone = itertools.cycle(cluster.shard_names())
    per_zone: dict[str, itertools.cycle[str]] = {}
    shards: list[str] = []
    received: dict[str, int] = {}
    for lo, hi, size, _count in pieces:
        zone = next((z["zone"] for z in zones if range_contains(z["min"], z["max"], lo, hi)), None)
        if zone is not None and zone not in per_zone:
            per_zone[zone] = itertools.cycle(cluster.shards_in_zone(zone))
        shard = next(per_zone[zone] if zone is not None else everyone)
        shards.append(shard)
        received[shard] = received.get(shard, 0) + size
    return shards, received
