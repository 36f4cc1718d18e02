"""BSON values and zone ranges written as policy YAML (flow style, Extended JSON for what
YAML cannot say), for the ready-to-paste snippets some findings carry."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.policy.export import to_extended_json

_PLAIN_KEY = re.compile(r"^[A-Za-z_$][\w$]*$")


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


def ranges_snippet(
    ns: str,
    key: Mapping[str, Any],
    shard_zones: Sequence[tuple[str, str]],
    ranges: Sequence[tuple[str, Mapping[str, Any], Mapping[str, Any]]],
    partition: str | None = None,
) -> str:
    """A policy fragment: `shards:` (shard -> [zone]) and the collection's `ranges:`."""
    lines = ["shards:"]
    lines += [f"  {shard}: [{zone}]" for shard, zone in shard_zones]
    lines += ["collections:", f"  {ns}:", f"    key: {flow(dict(key))}"]
    if partition is not None:
        lines.append(f"    partition: {partition}")
    lines.append("    ranges:")
    lines += [f"      - {{zone: {z}, min: {flow(dict(lo))}, max: {flow(dict(hi))}}}"
              for z, lo, hi in ranges]  # fmt: skip
    return "\n".join(lines)
