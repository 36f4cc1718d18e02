"""Seed a sandbox from a twin (`zonectl twin`): its collections' exact chunks from the
sidecar file, refused with the chunk named when they overlap or leave a gap; its raw
config.settings and per-collection fields; its learned migration costs."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bson import json_util

from zonectl.sandbox.catalog.keystring import encode
from zonectl.sandbox.seed import twin_chunks
from zonectl.sandbox.seed.twin_chunks import TwinFileError

if TYPE_CHECKING:
    from zonectl.sandbox.seed.schema import ClusterFile, TwinSpec
    from zonectl.sandbox.state import Sandbox


def sidecar(twin: TwinSpec, source: str) -> Path:
    path = Path(twin.chunks)
    return path if path.is_absolute() else Path(source).parent / path


def seed_collections(sandbox: Sandbox, spec: ClusterFile, twin: TwinSpec, source: str) -> None:
    """Every collection of `spec` laid out exactly as the sidecar lists its chunks."""
    cluster = sandbox.cluster
    names = set(cluster.shard_names())
    by_ns = {c.ns: c for c in spec.collections}
    path = sidecar(twin, source)
    seen: set[str] = set()
    log: list[dict[str, Any]] = []
    for chunks in twin_chunks.read(path, log):
        coll = by_ns.get(chunks.ns)
        if coll is None:
            raise TwinFileError(f"{path}: chunks of {chunks.ns}, which {source} does not list")
        if chunks.ns in seen:
            raise TwinFileError(f"{path}: the chunks of {chunks.ns} are listed twice")
        seen.add(chunks.ns)
        keys = [encode(m) for m in chunks.mins]  # once: for the check and the store
        twin_chunks.check(chunks, coll.key, str(path), keys)
        unknown = set(chunks.shards) - names
        if unknown:
            i = next(i for i, s in enumerate(chunks.shards) if s in unknown)
            raise TwinFileError(
                f"{path}: {chunks.ns} chunk {i} is on unknown shard {chunks.shards[i]!r}"
            )
        store = cluster.create_collection(
            coll.ns,
            dict(coll.key),
            unique=coll.unique,
            bounds=[*chunks.mins, chunks.maxs[-1]],
            shards=chunks.shards,
            sizes=chunks.sizes,
            counts=chunks.counts,
            keys=keys,
        )
        for i in chunks.jumbo:
            store.set_jumbo(i, True)
        if coll.noBalance:
            cluster.set_collection_field(coll.ns, "noBalance", True)
        for field, value in twin.collectionFields.get(coll.ns, {}).items():
            cluster.set_collection_field(coll.ns, field, ejson(value))
    missing = sorted(set(by_ns) - seen)
    if missing:
        raise TwinFileError(f"{path}: no chunks for {', '.join(missing)} (listed in {source})")
    _seed_history(sandbox, log)


def _seed_history(sandbox: Sandbox, entries: list[dict[str, Any]]) -> None:
    """The captured migrations into config.changelog, moved in time so the newest is now:
    a twin served weeks later still teaches the forecast what the cluster did, and one whose
    cluster's clock ran ahead of this host's shows no skew that is not this sandbox's."""
    times = [t for e in entries if (t := _utc(e.get("time"))) is not None]
    if not times:
        return
    shift = sandbox.cluster.now() - max(times)
    log = sandbox.cluster.coll("config.changelog")
    for n, entry in enumerate(entries):
        when = _utc(entry.get("time"))
        doc = {**entry, "_id": f"twin-{n}"}
        if when is not None:
            doc["time"] = when + shift
        log.put(doc)


def _utc(value: Any) -> dt.datetime | None:
    """A changelog time as an aware UTC datetime (None when it is not a date)."""
    if not isinstance(value, dt.datetime):
        return None
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def ejson(value: Any) -> Any:
    """A YAML value with MongoDB Extended JSON decoded."""
    return json_util.loads(json.dumps(value, default=str))


def apply_costs(sandbox: Sandbox, twin: TwinSpec) -> None:
    """The twin's learned costs as the sandbox's: rates as learned, and the learned fixed
    part beyond the sandbox's own fixed steps added to each migration's commit."""
    costs = twin.costs
    if costs is None:
        return
    model = sandbox.balancer.costs
    if costs.copyRateBytesPerSecond:
        model.copy_rate = costs.copyRateBytesPerSecond
    extra = None
    if costs.fixedSeconds is not None:
        extra = max(0.0, costs.fixedSeconds - model.fixed_seconds())
    model.configure(
        shard_rates=dict(costs.shardRatesBytesPerSecond),
        pair_rates={
            (p.donor, p.recipient): p.bytesPerSecond for p in costs.pairRatesBytesPerSecond
        },
        per_document_s=costs.perDocumentMicros / 1e6 if costs.perDocumentMicros else None,
        extra_fixed_s=extra,
    )
