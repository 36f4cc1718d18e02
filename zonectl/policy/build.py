"""Build the DesiredState the planner consumes from a merged, checked policy, with a digest
of its normalized content (stable across file layout, comments and key order of sections)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from bson.binary import UuidRepresentation
from bson.json_util import CANONICAL_JSON_OPTIONS

from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import CLUSTER, COLLECTION, plain
from zonectl.model import extjson_text
from zonectl.model.capacity import DiskLimit
from zonectl.model.desired import (
    ActiveWindow,
    BalancerPolicy,
    CollectionPolicy,
    DesiredState,
    Firehose,
    Sampling,
    SettingValue,
    Slices,
    ZoneRange,
)
from zonectl.model.shard_lifecycle import ShardSpec
from zonectl.policy.check_disk import cluster_limit, shard_limits
from zonectl.policy.check_misc import is_pattern
from zonectl.policy.check_ranges import CheckedRange
from zonectl.policy.fragment import CollectionEntry
from zonectl.policy.merge import Merged

_DIGEST_JSON = CANONICAL_JSON_OPTIONS.with_options(uuid_representation=UuidRepresentation.STANDARD)


def build_desired(
    merged: Merged,
    keys: Mapping[str, dict[str, Any] | None],
    checked: Mapping[str, list[CheckedRange]],
    sources: Sequence[str],
    own_database: str = "zonectl",
) -> DesiredState:
    entries = {
        ns: _collection(merged, ns, keys.get(ns), checked.get(ns, []))
        for ns in sorted(merged.collections)
    }
    collections: dict[str, CollectionPolicy] = {}
    patterns: dict[str, CollectionPolicy] = {}
    for ns, c in entries.items():
        (patterns if is_pattern(ns) else collections)[ns] = c
    entries_by_name = {name: merged.shards[name] for name in sorted(merged.shards)}
    # A removed shard's zones are dropped (warned by policy/check_shards.py).
    shards = {
        name: frozenset(e.zones) if e.state == "active" else frozenset()
        for name, e in entries_by_name.items()
    }
    specs = {
        name: ShardSpec(e.state, e.host, e.at(key=True))
        for name, e in entries_by_name.items()
        if e.state != "active" or e.host is not None
    }
    balancer = _balancer(merged)
    positions = {name: merged.shards[name].at(key=True) for name in shards}
    found = cluster_limit(merged.disk)  # checked: a DiskLimit or None
    disk = found if isinstance(found, DiskLimit) else None
    per_shard = {n: v for n, v in shard_limits(merged.shards).items() if isinstance(v, DiskLimit)}
    state = DesiredState(
        shards,
        collections,
        balancer,
        tuple(sources),
        "",
        patterns=patterns,
        shard_specs=specs,
        disk_limit=disk,
        shard_disk_limits=per_shard,
    )
    return DesiredState(
        shards,
        collections,
        balancer,
        tuple(sources),
        digest_of(state),
        positions,
        patterns=patterns,
        own_database=own_database,
        shard_specs=specs,
        disk_limit=disk,
        shard_disk_limits=per_shard,
    )


def _collection(
    merged: Merged, ns: str, key: dict[str, Any] | None, checked: list[CheckedRange]
) -> CollectionPolicy:
    entry = merged.collections[ns]
    model = entry.model
    ranges = tuple(
        ZoneRange(c.entry.zone, c.min, c.max, c.entry.position)
        for c in sorted(checked, key=lambda c: (c.kmin, c.kmax))
    )
    firehose = None
    if model.firehose is not None:
        fh = model.firehose
        firehose = Firehose(
            fh.field,
            fh.type,
            fh.schedule,
            fh.timezone,
            fh.keep,
            fh.hot,
            fh.cold,
            entry.at("firehose"),
        )
    slices = None
    if model.slices is not None:
        sl = model.slices
        slices = Slices(sl.schedule, sl.timezone, sl.keep, sl.hot, sl.cold, entry.at("slices"))
    return CollectionPolicy(
        slices=slices,
        namespace=ns,
        key=key,
        ranges=ranges,
        pin=model.pin,
        firehose=firehose,
        balancing=model.balancing,
        sampling=_sampling(entry),
        migrate=model.migrate,
        reshard=bool(model.reshard),
        position=entry.at(key=True),
        names_ranges="ranges" in model.model_fields_set,
        settings=_settings(model, COLLECTION, lambda key: entry.at(key, key=True)),
    )


def _settings(model: Any, rows: tuple[Setting, ...], at: Any) -> dict[str, SettingValue]:
    """The table's keys the policy names, as plain values with their position."""
    return {
        r.key: SettingValue(plain(getattr(model, r.key)), at(r.key))
        for r in rows
        if getattr(model, r.key) is not None
    }


def _sampling(entry: CollectionEntry) -> Sampling | None:
    wanted = entry.model.sampling
    if wanted is None:
        return None
    rate = None if wanted == "off" else float(wanted.samplesPerSecond)
    return Sampling(rate, entry.at("sampling", key=True))


def _balancer(merged: Merged) -> BalancerPolicy | None:
    if merged.balancer is None:
        return None
    model, doc = merged.balancer
    window = model.activeWindow
    return BalancerPolicy(
        enabled=model.enabled,
        active_window=ActiveWindow(window.start, window.stop) if window else None,
        manage_window="activeWindow" in model.model_fields_set,
        timezone=model.timezone,
        position=doc.position(("balancer",), key=True),
        settings=_settings(model, CLUSTER, lambda key: doc.position(("balancer", key), key=True)),
    )


def digest_of(state: DesiredState) -> str:
    """sha256 of the canonical Extended JSON of the state (sources and positions excluded)."""
    normal: dict[str, Any] = {
        "shards": {name: sorted(zones) for name, zones in state.shards.items()},
        "collections": {ns: _normal_collection(c) for ns, c in state.collections.items()},
        "balancer": None,
    }
    if state.balancer is not None:
        b = state.balancer
        window = b.active_window
        normal["balancer"] = {
            "enabled": b.enabled,
            "manageWindow": b.manage_window,
            "activeWindow": [window.start, window.stop] if window else None,
        }
        if b.timezone is not None:  # only when stated, so other digests stay put
            normal["balancer"]["timezone"] = b.timezone
        if b.settings:  # only when stated, so other digests stay put
            normal["balancer"]["settings"] = {k: v.value for k, v in sorted(b.settings.items())}
    if state.shard_specs:  # only when present, so other digests stay put
        normal["shardSpecs"] = {
            name: {"state": spec.state, "host": spec.host}
            for name, spec in sorted(state.shard_specs.items())
        }
    if state.disk_limit is not None or state.shard_disk_limits:  # only when set, likewise
        normal["disk"] = {
            "limit": state.disk_limit.ratio if state.disk_limit else None,
            "shards": {n: d.ratio for n, d in sorted(state.shard_disk_limits.items())},
        }
    if state.patterns:  # only when present, so digests of pattern-free policies stay put
        normal["patterns"] = {ns: _normal_collection(c) for ns, c in state.patterns.items()}
    text = extjson_text.dumps(normal, _DIGEST_JSON, sort_keys=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _normal_collection(c: CollectionPolicy) -> dict[str, Any]:
    fh = c.firehose
    return {
        "key": dict(c.key) if c.key is not None else None,
        "ranges": [[r.zone, dict(r.min), dict(r.max)] for r in c.ranges],
        "pin": c.pin,
        "firehose": None
        if fh is None
        else [fh.field, fh.type, fh.schedule, fh.timezone, fh.keep, fh.hot, fh.cold],
        "balancing": c.balancing,
        "migrate": c.migrate,
        # only when set, so digests of policies without sampling stay put
        **({"sampling": c.sampling.rate} if c.sampling is not None else {}),
        **({"reshard": True} if c.reshard else {}),  # only when set: old digests stay put
        # `ranges: []` (no zones) differs from no `ranges:` (ranges not managed)
        **({"noZones": True} if c.names_ranges and not c.zones() else {}),
        **(
            {"settings": {k: v.value for k, v in sorted(c.settings.items())}}
            if c.settings  # only when set: old digests stay put
            else {}
        ),
        **(
            {"slices": [sl.schedule, sl.timezone, sl.keep, sl.hot, sl.cold]}
            if (sl := c.slices) is not None
            else {}
        ),
    }
