"""BSON values and zone ranges written as policy YAML (flow style, Extended JSON for what
YAML cannot say), for the ready-to-paste snippets some findings carry."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.policy.export import to_extended_json

_PLAIN_KEY = re.compile(r"^[A-Za-z_$][\w$]*$")
_PLAIN_NAME = re.compile(r"^[A-Za-z_][\w.\-]*$")  # namespaces, shard and zone names
_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


def flow(value: Any) -> str:
    """`{bucket: 3}`, `{bucket: {$minKey: 1}}`, `{day: {$date: "2026-01-01T00:00:00Z"}}`."""
    return _flow(to_extended_json(value))


def _flow(value: Any) -> str:
    if isinstance(value, Mapping):
        items = (f"{_key(str(k))}: {_flow(v)}" for k, v in value.items())
        return "{" + ", ".join(items) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return json.dumps(value)


def _key(name: str) -> str:
    return name if _PLAIN_KEY.match(name) else json.dumps(name)


def name(text: str) -> str:
    """A namespace, shard or zone name as a YAML scalar: plain when it is safe, else
    double-quoted (names come from the cluster: a ': ' or '#' in one, or a name YAML would
    read as a number or a boolean, must stay text)."""
    plain = _PLAIN_NAME.match(text) and text.lower() not in _WORDS
    return text if plain else json.dumps(text)


def ranges_snippet(
    ns: str,
    key: Mapping[str, Any],
    shard_zones: Sequence[tuple[str, str]],
    ranges: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]],
    partition: str | None = None,
) -> str:
    """A policy fragment: `shards:` (shard -> [zone]) and the collection's `ranges:`."""
    lines = ["shards:"]
    lines += [f"  {name(shard)}: [{name(zone)}]" for shard, zone in shard_zones]
    lines += ["collections:", f"  {name(ns)}:", f"    key: {flow(dict(key))}"]
    if partition is not None:
        lines.append(f"    partition: {name(partition)}")
    lines.append("    ranges:")
    lines += [f"      - {{zone: {name(z)}, min: {flow(dict(lo))}, max: {flow(dict(hi))}}}"
              for z, lo, hi in ranges]  # fmt: skip
    return "\n".join(lines)
