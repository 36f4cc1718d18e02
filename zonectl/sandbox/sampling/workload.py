"""The simulated workload of a cluster file: per collection, query shapes each with a rate,
run on the sandbox clock. Before each command is served, the traffic since the last one is
offered to the sampler in time order, so `zonectl sandbox` (real time) and `sandbox:` URIs
(a virtual clock that tests step) both see it.

The workload's queries are accounted as served but not executed: reads change nothing, and
the writes set a field outside the key on one document, which the simulated chunk stores
(counts and sizes only) cannot show. Only what query sampling observes is produced. At most
MAX_CATCH_UP of traffic is replayed at once (a sandbox left idle for a day does not replay
the day), and only for collections being sampled (nothing else can observe it).
"""

from __future__ import annotations

import datetime as dt
import random
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.sampling.sampler import READS, REFRESH, Sampler
from zonectl.sandbox.sampling.served import diff_of

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster

MAX_CATCH_UP = dt.timedelta(hours=1)
Query = Literal["key", "range", "field"]


@dataclass(frozen=True)
class Shape:
    """One query shape: `key` (equality on the whole shard key), `range` (a range of the
    key's first field, one chunk wide), `field` (equality on another field)."""

    ns: str
    query: Query
    rate: float  # queries per second of sandbox time
    command: str = "find"
    field: str | None = None
    changes_key: bool = False  # writes: $set the key's first field


class Traffic:
    def __init__(self, sampler: Sampler, cluster: Cluster, shapes: list[Shape]) -> None:
        self.sampler = sampler
        self.cluster = cluster
        self.shapes = shapes
        self.until: dt.datetime | None = None
        self._random = random.Random(21)
        self._counter = 0
        self._bounds: dict[str, tuple[Any, list[tuple[dict[str, Any], dict[str, Any]]]]] = {}

    def start(self, instant: dt.datetime) -> None:
        self.until = instant

    def __call__(self, now: dt.datetime) -> None:
        if self.until is None:
            self.until = now
        if now <= self.until:
            return
        t = max(self.until, now - MAX_CATCH_UP)
        while t < now:
            end = min(t + REFRESH, now)
            self.sampler.tick(t)
            self._run(t, end)
            t = end
        self.until = now

    def _run(self, start: dt.datetime, end: dt.datetime) -> None:
        """The sampled part of the traffic in [start, end). Per collection the shapes'
        queries form one Poisson stream of their summed rate; the bucket admits the first
        arrival once it holds a token, and an exponential gap is memoryless, so drawing
        only those arrivals samples the same stream as drawing every query would, at a
        cost proportional to the samples, not the queries."""
        by_ns: dict[str, list[Shape]] = {}
        for shape in self.shapes:
            by_ns.setdefault(shape.ns, []).append(shape)
        for ns, shapes in by_ns.items():
            entry = self.sampler.entry(ns)
            if entry is None:
                continue
            total = sum(s.rate for s in shapes)
            weights = [s.rate for s in shapes]
            t = start
            while True:
                t = entry.ready_at(t) + dt.timedelta(seconds=self._random.expovariate(total))
                if t >= end:
                    break
                shape = self._random.choices(shapes, weights)[0]
                if not self.sampler.admit(ns, t):
                    continue
                self._record(shape, t)

    def _record(self, shape: Shape, at: dt.datetime) -> None:
        cmd = self._statement(shape)
        sample_id = self.sampler.record(shape.ns, shape.command, cmd, at)
        if shape.command in ("update", "findAndModify"):
            update = cmd["update"] if shape.command == "findAndModify" else cmd["updates"][0]["u"]
            self.sampler.record_diff(shape.ns, sample_id, diff_of(update), at)

    def _statement(self, shape: Shape) -> dict[str, Any]:
        coll = shape.ns.split(".", 1)[1]
        query = self._filter(shape)
        self._counter += 1
        if shape.command in READS:
            return {"filter": query, "collation": {}}
        key = self._key(shape.ns)
        target = next(iter(key)) if shape.changes_key else "touchedAt"
        change = {"$set": {target: self._counter}}
        if shape.command == "update":
            return {"update": coll, "updates": [{"q": query, "u": change}], "ordered": True}
        if shape.command == "delete":
            return {"delete": coll, "deletes": [{"q": query, "limit": 1}], "ordered": True}
        return {"findAndModify": coll, "query": query, "update": change}

    def _filter(self, shape: Shape) -> dict[str, Any]:
        if shape.query == "field":
            return {str(shape.field): self._random.randrange(1_000_000)}
        key = self._key(shape.ns)
        lo, hi = self._chunk_bounds(shape.ns)
        first = next(iter(key))
        if shape.query == "range":
            cond: dict[str, Any] = {}
            if not isinstance(lo.get(first), MinKey):
                cond["$gte"] = lo[first]
            if not isinstance(hi.get(first), MaxKey):
                cond["$lt"] = hi[first]
            return {first: cond or {"$gte": MinKey()}}
        out = {}
        for name, kind in key.items():
            value = lo.get(name)
            if kind == "hashed" or isinstance(value, MinKey | MaxKey) or value is None:
                value = self._random.randrange(1_000_000)
            out[name] = value
        return out

    def _key(self, ns: str) -> dict[str, Any]:
        doc = self.cluster.collection_doc(ns)
        return dict(doc["key"]) if doc is not None else {"_id": 1}

    def _chunk_bounds(self, ns: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """A random chunk's bounds, from a cached draw of up to 256 chunks (decoding a
        chunk per query would cost more than the rest of the sample)."""
        store = self.cluster.chunks(ns)
        if store is None or len(store) == 0:
            return {}, {}
        cached = self._bounds.get(ns)
        if cached is None or cached[0] != store.version:
            picks = self._random.sample(range(len(store)), min(len(store), 256))
            cached = (store.version, [(store.min_at(i), store.max_at(i)) for i in picks])
            self._bounds[ns] = cached
        return self._random.choice(cached[1])
