"""Build a cluster from a cluster file: shards, databases, collections with generated chunk
boundaries and distribution, zone ranges, balancer settings, users (schema: seed_schema).

The shipped demo (`zonectl/sandbox/seed/data/demo.yaml`) is what `--uri sandbox:` starts.
"""

from __future__ import annotations

import bisect
import datetime as dt
import itertools
import json
import re
from collections.abc import Callable, Mapping
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bson import Int64, ObjectId, json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.catalog import fcv
from zonectl.sandbox.catalog.cluster import SETTINGS, TAGS
from zonectl.sandbox.catalog.sessions import create_sessions
from zonectl.sandbox.catalog.unsharded import (
    create_with_options,
    home_shard,
    set_meta,
    track_moved,
)
from zonectl.sandbox.keyorder import encode
from zonectl.sandbox.rates import parse_rate
from zonectl.sandbox.seed import twin_load, volumes_seed
from zonectl.sandbox.seed.doc_keys import record_documents
from zonectl.sandbox.seed.schema import (
    ClusterFile,
    CollectionSpec,
    KeySpec,
    SeedError,
    UnshardedSpec,
    load_cluster_file,
)

if TYPE_CHECKING:
    from zonectl.sandbox.auth.users import AuthConfig
    from zonectl.sandbox.state import Sandbox

DEMO = "demo.yaml"
_STEP = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw]?)\s*$")
_UNITS = {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def demo_path() -> Path:
    return Path(str(resources.files("zonectl.sandbox.seed") / "data" / DEMO))


def load(path: str | Path | None) -> ClusterFile:
    """The cluster file at `path`, or the shipped demo when None."""
    return load_cluster_file(path if path is not None else demo_path())


def ejson(value: Any) -> Any:
    """YAML values with MongoDB Extended JSON (`{$date: ...}`, `{$minKey: 1}`) decoded."""
    return json_util.loads(json.dumps(value, default=str))


def auth_config(spec: ClusterFile) -> AuthConfig | None:
    """A's AuthConfig from the `users:` section (None when there are no users)."""
    if not spec.users:
        return None
    from zonectl.sandbox.auth.users import AuthConfig, User

    users = []
    for u in spec.users:
        roles: list[str | tuple[str, str]] = []
        for r in u.roles:
            roles.append((r["role"], r.get("db", u.db)) if isinstance(r, dict) else r)
        users.append(User(name=u.user, db=u.db, password=u.pwd, roles=tuple(roles)))
    return AuthConfig(users=users)


def seed(sandbox: Sandbox, spec: ClusterFile, source: str = "<cluster file>") -> None:
    """Populate an empty sandbox from a validated cluster file."""
    cluster = sandbox.cluster
    if spec.featureCompatibilityVersion is not None:
        try:
            fcv.install(sandbox.catalog, sandbox.version, spec.featureCompatibilityVersion)
        except ValueError as exc:
            raise SeedError(f"{source}: field 'featureCompatibilityVersion': {exc}") from None
    for i, shard in enumerate(spec.shards):
        host = shard.host or f"{shard.name}/{shard.name}.sandbox:{27018 + i}"
        cluster.add_shard(shard.name, host, shard.zones)
        if shard.draining:
            cluster.set_shard_field(shard.name, "draining", True)
    # Only these replica sets answer addShard (commands/add_shard.py).
    cluster.spares = [{"name": s.name, "host": s.host} for s in spec.spareShards]
    names = cluster.shard_names()
    if not names:
        raise SeedError(f"{source}: field 'shards': at least one shard is needed")
    for db in spec.databases:
        _known_shard(db.primary, names, source, f"databases: {db.name}")
        cluster.ensure_database(db.name, db.primary)
    # Zone ranges first: a collection whose ranges exist is laid out at them (§1.8).
    for zr in spec.zones:
        lo, hi = ejson(zr.min), ejson(zr.max)
        if encode(lo) >= encode(hi):
            raise SeedError(f"{source}: field 'zones': min must be below max for {zr.ns}")
        cluster.coll(TAGS).put(
            {"_id": ObjectId(), "ns": zr.ns, "min": lo, "max": hi, "tag": zr.zone}
        )
    if spec.twin is not None:
        twin_load.seed_collections(sandbox, spec, spec.twin, source)
    else:
        for coll in spec.collections:
            _seed_collection(sandbox, coll, names, source)
    # Every real cluster has it, split by its config server's minNumChunksForSessionsCollection.
    create_sessions(cluster, spec.configServer.setParameter.minNumChunksForSessionsCollection)
    volumes_seed.configure(cluster, spec)  # the shards' disks, the collections' compression
    for entry in spec.unsharded:
        _seed_unsharded(sandbox, entry, names, source)
    if spec.balancer is not None:
        b = spec.balancer
        doc: dict[str, Any] = {"_id": "balancer", "mode": "full" if b.enabled else "off"}
        doc["stopped"] = not b.enabled
        if b.activeWindow is not None:
            doc["activeWindow"] = {"start": b.activeWindow.start, "stop": b.activeWindow.stop}
        cluster.coll(SETTINGS).put(doc)
        if b.chunkSizeMB is not None:
            cluster.coll(SETTINGS).put({"_id": "chunksize", "value": b.chunkSizeMB})
        if b.autoMerger is not None:
            cluster.coll(SETTINGS).put({"_id": "automerge", "enabled": b.autoMerger})
    if spec.twin is not None:
        for doc in spec.twin.settings:
            cluster.coll(SETTINGS).put(ejson(doc))
    apply_costs(sandbox, spec)


def apply_costs(sandbox: Sandbox, spec: ClusterFile, copy_rate: float | None = None) -> None:
    """The migration cost settings of a cluster file (not saved state: they are the
    simulation's, so a sandbox loaded from a state file takes them too); `copy_rate`
    (the URI's or `--copy-rate`) overrides the file's default rate."""
    costs = sandbox.balancer.costs
    b = spec.balancer
    if copy_rate is not None:
        costs.copy_rate = copy_rate
    elif b is not None and b.copyRate is not None:
        costs.copy_rate = parse_rate(b.copyRate)
    costs.configure(
        shard_rates={s.name: parse_rate(s.copyRate) for s in spec.shards if s.copyRate},
        per_document_s=b.perDocumentMicros / 1e6 if b and b.perDocumentMicros else None,
        jitter=b.jitter if b is not None else None,
        seed=b.jitterSeed if b is not None else None,
    )
    if spec.twin is not None:
        twin_load.apply_costs(sandbox, spec.twin)
        if copy_rate is not None:
            costs.copy_rate = copy_rate


def _known_shard(name: str | None, names: list[str], source: str, where: str) -> None:
    if name is not None and name not in names:
        raise SeedError(f"{source}: {where}: unknown shard {name!r}")


def _seed_collection(sandbox: Sandbox, spec: CollectionSpec, names: list[str], source: str) -> None:
    cluster = sandbox.cluster
    key = dict(spec.key)
    db = spec.ns.split(".", 1)[0]
    primary = cluster.ensure_database(db)["primary"]
    lo = {f: MinKey() for f in key}
    hi = {f: MaxKey() for f in key}
    ranges = cluster.zone_ranges(spec.ns)
    points = _split_points(spec, key, source)
    bounds = [lo, *({**lo, **p} for p in points), hi]
    shards = _distribute(spec, len(bounds) - 1, names, primary, source)
    if ranges:
        # Respect zones: chunks wholly inside a range start on a shard of its zone.
        zone_for = _zone_lookup(ranges)
        for i in range(len(shards)):
            zone = zone_for(bounds[i], bounds[i + 1])
            holders = cluster.shards_in_zone(zone) if zone else []
            if holders and shards[i] not in holders:
                shards[i] = holders[i % len(holders)]
    n = len(shards)
    store = cluster.create_collection(
        spec.ns,
        key,
        unique=spec.unique,
        bounds=bounds,
        shards=shards,
        sizes=[spec.chunkSize.bytes] * n,
        counts=[spec.chunkSize.docs] * n,
    )
    if spec.noBalance:
        cluster.set_collection_field(spec.ns, "noBalance", True)
    for i in spec.jumbo:
        if 0 <= i < n:
            store.set_jumbo(i, True)
    record_documents(sandbox, spec)


def _seed_unsharded(sandbox: Sandbox, spec: UnshardedSpec, names: list[str], source: str) -> None:
    """An unsharded collection (view, time-series, capped or plain) with nominal sizes, on
    its database's primary or, on `shard`, as a moveCollection commit leaves it (8.0+:
    commands/move_collection.py's rules: no view, no time-series)."""
    body: dict[str, Any] = {}
    if spec.type == "view":
        body = {"viewOn": spec.ns.split(".", 1)[1] + "_source", "pipeline": []}
    elif spec.type == "timeseries":
        body = {"timeseries": {"timeField": "t", "granularity": "seconds"}}
    elif spec.type == "capped":
        body = {"capped": True, "size": max(spec.bytes, 4096)}
    create_with_options(sandbox.cluster, spec.ns, body)
    coll = sandbox.catalog.get(spec.ns)
    if spec.type != "view":
        set_meta(coll, size=spec.bytes, count=spec.docs)
    _known_shard(spec.shard, names, source, f"unsharded: {spec.ns}")
    home = home_shard(sandbox.cluster, spec.ns)
    if spec.shard is None or spec.shard == home:
        return
    where = f"{source}: unsharded: {spec.ns}: on shard {spec.shard!r}, not its primary {home!r}"
    if sandbox.version.version_array[0] < 8:
        raise SeedError(
            f"{where}: only moveCollection (8.0+) puts an unsharded collection elsewhere"
        )
    if spec.type in ("view", "timeseries"):
        raise SeedError(f"{where}: a {spec.type} cannot be moved (moveCollection refuses it)")
    track_moved(sandbox.cluster, spec.ns, spec.shard)


def _zone_lookup(ranges: list[Any]) -> Callable[[Mapping[str, Any], Mapping[str, Any]], str | None]:
    """The zone of the range wholly containing [lo, hi), or None. Zone ranges never
    overlap, so only the range with the greatest min <= lo can contain it: one bisection
    per chunk (a cluster file with thousands of ranges seeds in a moment)."""
    ordered = sorted((encode(r.min), encode(r.max), str(r.zone)) for r in ranges)
    mins = [r[0] for r in ordered]

    def zone_for(lo: Mapping[str, Any], hi: Mapping[str, Any]) -> str | None:
        i = bisect.bisect_right(mins, encode(lo)) - 1
        if i >= 0 and encode(hi) <= ordered[i][1]:
            return ordered[i][2]
        return None

    return zone_for


def _split_points(spec: CollectionSpec, key: dict[str, Any], source: str) -> list[dict[str, Any]]:
    """n-1 boundaries for the key's first field, from the generator."""
    n = spec.chunks
    first = next(iter(key))
    gen = spec.keys or KeySpec(type="hashed" if key[first] == "hashed" else "int")
    values: list[Any]
    if gen.type == "bounds":
        points = [dict(ejson(v)) if isinstance(v, dict) else {} for v in gen.values]
        if any(not p or not set(p) <= set(key) for p in points):
            raise SeedError(f"{source}: collection {spec.ns}: bounds must be key documents")
        marks = [encode({f: p.get(f, MinKey()) for f in key}) for p in points]
        if any(a >= b for a, b in itertools.pairwise(marks)):
            raise SeedError(f"{source}: collection {spec.ns}: bounds are not ascending")
        return points
    if gen.type == "list":
        values = [ejson(v) for v in gen.values]
    elif gen.type == "hashed":
        values = [Int64(-(2**63) + (k * 2**64) // n) for k in range(1, n)]
    elif gen.type == "int":
        start = int(gen.start or 0)
        step = int(gen.step or 1000)
        values = [start + k * step for k in range(1, n)]
    else:
        day0 = _parse_date(gen.start, source) if gen.start else dt.datetime(2025, 1, 1)
        delta = dt.timedelta(seconds=_parse_step(gen.step, source))
        dates = [day0 + k * delta for k in range(1, n)]
        values = dates if gen.type == "date" else [ObjectId.from_datetime(d) for d in dates]
    keys = [encode(v) for v in values]
    if any(a >= b for a, b in itertools.pairwise(keys)):
        raise SeedError(f"{source}: collection {spec.ns}: generated boundaries are not ascending")
    return [{first: v} for v in values]


def _parse_date(value: Any, source: str) -> dt.datetime:
    if isinstance(value, dt.datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, dt.date):
        return dt.datetime(value.year, value.month, value.day)
    try:
        parsed = dt.datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        raise SeedError(f"{source}: keys.start: not an ISO date: {value!r}") from None
    return parsed.astimezone(dt.UTC).replace(tzinfo=None) if parsed.tzinfo else parsed


def _parse_step(value: Any, source: str) -> float:
    if value is None:
        return 86400.0
    if isinstance(value, int | float):
        return float(value)
    match = _STEP.match(str(value))
    if not match:
        raise SeedError(f"{source}: keys.step: expected seconds or '30m', '1h', '1d': {value!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]


def _distribute(
    spec: CollectionSpec, n: int, names: list[str], primary: str, source: str
) -> list[str]:
    if spec.distribution == "listed":
        for name in spec.placement:
            _known_shard(name, names, source, f"collection {spec.ns} placement")
        if len(spec.placement) != n:
            raise SeedError(
                f"{source}: collection {spec.ns}: placement names {len(spec.placement)} "
                f"shard(s) for {n} chunk(s)"
            )
        return list(spec.placement)
    if spec.distribution == "all-on-one":
        target = spec.shard or primary
        _known_shard(target, names, source, f"collection {spec.ns}")
        return [target] * n
    if spec.distribution == "by-weight":
        for name in spec.weights:
            _known_shard(name, names, source, f"collection {spec.ns} weights")
        total = sum(w for w in spec.weights.values() if w > 0)
        if total <= 0:
            raise SeedError(f"{source}: collection {spec.ns}: weights must be positive")
        out: list[str] = []
        for name, w in spec.weights.items():
            out += [name] * round(n * w / total)
        out = (out + [next(iter(spec.weights))] * n)[:n]
        return sorted(out, key=list(spec.weights).index)
    cycle = itertools.cycle(names)
    return [next(cycle) for _ in range(n)]
