"""Build a policy YAML from the live ClusterState, so that planning it against the same
cluster is empty: bounds exactly as config.tags stores them, in Extended JSON, with
comments marking what was found (ruamel round-trip formatting)."""

from __future__ import annotations

import datetime as dt
import io
import json
import math
import uuid
from collections.abc import Collection, Mapping
from typing import Any

from bson import Decimal128, Int64, ObjectId, json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.scalarstring import DoubleQuotedScalarString

from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.model.cluster import ClusterState, LiveRange, is_mongodb_own
from zonectl.model.keys import bson_equal, format_value, global_max, global_min, sort_key
from zonectl.policy.check_misc import exact_pattern, is_pattern

_COMMENT_COLUMN = 36


def to_extended_json(value: Any) -> Any:
    """A decoded BSON value as YAML-ready Extended JSON that loads back to the same type:
    `$numberLong` keeps NumberLong (hashed bounds need it, reference §1.5 (c)), dates are
    `$date` ISO strings, and every string is quoted so YAML never retypes it."""
    if isinstance(value, MinKey):
        return _flow({"$minKey": 1})
    if isinstance(value, MaxKey):
        return _flow({"$maxKey": 1})
    if value is None or isinstance(value, bool):
        return value
    if isinstance(value, Int64):
        return _flow({"$numberLong": DoubleQuotedScalarString(str(int(value)))})
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return value
        text = "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
        return _flow({"$numberDouble": DoubleQuotedScalarString(text)})
    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    if isinstance(value, dt.datetime):
        return _flow({"$date": _date(value)})
    if isinstance(value, ObjectId):
        return _flow({"$oid": DoubleQuotedScalarString(str(value))})
    if isinstance(value, uuid.UUID):
        return _flow({"$uuid": DoubleQuotedScalarString(str(value))})
    if isinstance(value, Decimal128):
        return _flow({"$numberDecimal": DoubleQuotedScalarString(str(value))})
    if isinstance(value, Mapping):
        return _flow({str(k): to_extended_json(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        seq = CommentedSeq([to_extended_json(v) for v in value])
        seq.fa.set_flow_style()
        return seq
    # BinData, UUID, Timestamp, Regex...: bson's canonical Extended JSON says it exactly.
    canonical = json.loads(json_util.dumps(value, json_options=json_util.CANONICAL_JSON_OPTIONS))
    return _plain_json(canonical)


def _date(value: dt.datetime) -> Any:
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    value = value.astimezone(dt.UTC)
    if 1970 <= value.year <= 9999:
        text = value.strftime("%Y-%m-%dT%H:%M:%S")
        if value.microsecond:
            text += f".{value.microsecond // 1000:03d}"
        return DoubleQuotedScalarString(text + "Z")
    millis = (value - dt.datetime(1970, 1, 1, tzinfo=dt.UTC)) // dt.timedelta(milliseconds=1)
    return _flow({"$numberLong": DoubleQuotedScalarString(str(millis))})


def _plain_json(value: Any) -> Any:
    if isinstance(value, dict):
        return _flow({k: _plain_json(v) for k, v in value.items()})
    if isinstance(value, str):
        return DoubleQuotedScalarString(value)
    return value


def _note(parent: CommentedMap, comment: str, key: str) -> None:
    """An end-of-line comment, aligned with its neighbours where the line is short enough."""
    parent.yaml_add_eol_comment(comment, key, column=_COMMENT_COLUMN)


def _flow(items: Mapping[str, Any]) -> CommentedMap:
    cm = CommentedMap(items)
    cm.fa.set_flow_style()
    return cm


def _key_pattern(key: Mapping[str, Any]) -> CommentedMap:
    """`{ts: 1, _id: hashed}`: integral numbers as ints (1.0 and 1 are the same key)."""
    out = {}
    for name, v in key.items():
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        out[name] = v if isinstance(v, int | str) else to_extended_json(v)
    return _flow(out)


def build_policy(
    state: ClusterState,
    *,
    source: str,
    at: dt.datetime,
    namespaces: Collection[str] | None = None,
) -> tuple[str, list[str]]:
    """The policy YAML text and warnings about what a plan of it would still refuse.

    Whole-cluster export: the balancer, every shard with its zones, every sharded
    namespace and every namespace with ranges. With `namespaces`: only those, the zones
    their ranges use, and no balancer section (it is cluster-wide)."""
    warnings: list[str] = []
    names = _namespaces(state, namespaces)
    skipped = sorted(
        ns
        for ns in state.collections
        if is_mongodb_own(ns) and not state.ranges_of(ns) and namespaces is None
    )
    doc = CommentedMap()
    doc["apiVersion"] = "zonectl/v1"
    doc["kind"] = "ZonePolicy"
    header = [
        f"Exported by `zonectl export` from {source} (MongoDB {state.version or '?'}) at "
        f"{at.astimezone(dt.UTC).strftime('%Y-%m-%dT%H:%M:%SZ')}.",
        "Comments starting with 'found' say what the cluster had; range bounds are exactly",
        "as config.tags stores them. `zonectl plan` of this file against the same cluster",
        "is empty. Review it, then commit it.",
    ]
    if skipped:
        header.append(f"Not exported (MongoDB's own): {', '.join(skipped)}.")
    doc.yaml_set_start_comment("\n".join(header))
    if namespaces is None:
        doc["balancer"] = _balancer(state)
    used = {r.zone for ns in names for r in state.ranges_of(ns)}
    doc["shards"] = _shards(state, None if namespaces is None else used)
    # A draining shard is exported as removed, without zones (ZP304): it carries none.
    carried = {z for s in state.shards if not s.draining for z in s.zones}
    collections = CommentedMap()
    for ns in names:
        # A name with glob characters is written as the pattern matching only it.
        key = exact_pattern(ns) if is_pattern(ns) else ns
        collections[key] = _collection(state, ns, collections, warnings, carried)
    if collections:
        doc["collections"] = collections
    out = io.StringIO()
    yaml = YAML()  # round-trip mode: keeps our comments and flow styles
    yaml.width = 4096  # one range bound per line, however long
    yaml.indent(mapping=2, sequence=4, offset=2)
    yaml.representer.add_representer(type(None), _represent_null)
    yaml.dump(doc, out)
    return out.getvalue(), warnings


def _represent_null(representer: Any, _: None) -> Any:
    # ruamel writes None as an empty value; `null` says "no window" to a reader.
    return representer.represent_scalar("tag:yaml.org,2002:null", "null")


def _namespaces(state: ClusterState, only: Collection[str] | None) -> list[str]:
    names = set(state.collections) | {r.namespace for r in state.ranges}
    if only is not None:
        return sorted(names & set(only))
    return sorted(ns for ns in names if not is_mongodb_own(ns) or state.ranges_of(ns))


def _balancer(state: ClusterState) -> CommentedMap:
    live = state.balancer
    section = CommentedMap()
    section["enabled"] = live.enabled
    found = f"found: mode {live.mode}" + (", stopped" if live.stopped else "")
    _note(section, found, "enabled")
    window = live.active_window
    section["activeWindow"] = (
        _flow({"start": DoubleQuotedScalarString(window["start"]),
               "stop": DoubleQuotedScalarString(window["stop"])})
        if window
        else None
    )  # fmt: skip
    _note(
        section,
        # MongoDB reports no time zone for the config server: the reviewer states it.
        "found: config server local time; state its zone as balancer.timezone"
        if window
        else "found: none (always active)",
        "activeWindow",
    )
    for r in CLUSTER:  # the settings table: what is stored, exactly as the policy says it
        stored = state.settings.get(r.doc)
        if r.is_stored(stored) and (r.since is None or state.features >= r.since):
            section[r.key] = to_extended_json(r.live_value(stored))
            _note(section, f"found: {r.stored_text}", r.key)
    return section


def _shards(state: ClusterState, zones: set[str] | None) -> CommentedMap:
    shards = CommentedMap()
    for shard in state.shards:
        kept = [z for z in shard.zones if zones is None or z in zones]
        if zones is not None and not kept:
            continue
        seq = CommentedSeq(sorted(set(kept)))
        seq.fa.set_flow_style()
        if shard.draining:
            # Being removed: the policy says so, and a removed shard keeps no zones (ZP304).
            entry = CommentedMap(state="removed")
            entry.fa.set_flow_style()
            shards[shard.id] = entry
            held = f"; zones {', '.join(seq)}" if seq else ""
            _note(shards, f"found: draining (a removal in progress{held})", shard.id)
        else:
            shards[shard.id] = seq
    return shards


def _collection(
    state: ClusterState, ns: str, parent: CommentedMap, warnings: list[str], carried: set[str]
) -> CommentedMap:
    live = state.collections.get(ns)
    ranges = sorted(state.ranges_of(ns), key=lambda r: (sort_key(r.min), sort_key(r.max)))
    section = CommentedMap()
    n = len(ranges)
    if live is None:
        _note(
            parent,
            f"found: not sharded, {n} range{'s' if n != 1 else ''} "
            "(they pre-split it when it is sharded)",
            ns,
        )
    else:
        section["key"] = _key_pattern(live.key)
    if live is not None and len(ranges) == 1 and _covers_all(ranges[0], live.key):
        section["pin"] = ranges[0].zone
        _note(section, "found: one range over the whole key space", "pin")
    elif ranges:
        seq = CommentedSeq()
        for r in ranges:
            item = CommentedMap()
            item["zone"] = r.zone
            item["min"] = to_extended_json(dict(r.min))
            item["max"] = to_extended_json(dict(r.max))
            seq.append(item)
        section["ranges"] = seq
        found = f"found: {n} range{'s' if n != 1 else ''}"
        split = _window_split(ranges, live.key) if live is not None else None
        if split is not None:
            found += f"; a time split at {split}: a firehose window? (docs/policy.md)"
        _note(section, found, "ranges")
    for zone in sorted({r.zone for r in ranges} - carried):
        warnings.append(
            f"{ns}: zone {zone} has ranges but no shard carries it; "
            "plan will refuse this policy until a shard is listed for it under `shards`"
        )
    if live is not None:
        section["balancing"] = not live.no_balance
        if live.no_balance:
            _note(section, "found: noBalance set", "balancing")
    if live is not None:
        for setting in COLLECTION:
            if not setting.once and setting.is_stored(live.settings):
                section[setting.key] = to_extended_json(setting.live_value(live.settings))
                _note(section, f"found: {setting.stored_text}", setting.key)
    rate = (state.samplers or {}).get(ns)
    if rate is not None:
        number = int(rate) if rate == int(rate) else rate
        section["sampling"] = _flow({"samplesPerSecond": number})
        _note(section, "found: config.queryAnalyzers mode full", "sampling")
    return section


def _window_split(ranges: list[LiveRange], key: Mapping[str, Any]) -> str | None:
    """The split value when two ranges cover the key space and meet at a date or ObjectId
    of the first key field: what a firehose window leaves in config.tags."""
    if len(ranges) != 2 or not bson_equal(dict(ranges[0].max), dict(ranges[1].min)):
        return None
    if not _covers_all(LiveRange("", "", ranges[0].min, ranges[1].max), key):
        return None
    first = next(iter(key))
    value = ranges[0].max.get(first)
    if not isinstance(value, dt.datetime | ObjectId):
        return None
    return f"{first} = {format_value(value)}"


def _covers_all(r: LiveRange, key: Mapping[str, Any]) -> bool:
    return bson_equal(dict(r.min), global_min(key)) and bson_equal(dict(r.max), global_max(key))
