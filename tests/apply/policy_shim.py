"""A stand-in for `zonectl.policy.load_policy` while it has not landed: enough of the
policy format (shards, ranges, pin, balancing, migrate, balancer) for the apply tests. It
is installed only when the real loader is missing, so the tests run the real one later."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bson import json_util
from ruamel.yaml import YAML

from zonectl.model.desired import (
    ActiveWindow,
    BalancerPolicy,
    CollectionPolicy,
    DesiredState,
    ZoneRange,
)


def _ejson(value: Any) -> Any:
    return json_util.loads(json.dumps(value))


def load_desired(paths: Sequence[Path]) -> DesiredState:
    shards: dict[str, frozenset[str]] = {}
    collections: dict[str, CollectionPolicy] = {}
    balancer: BalancerPolicy | None = None
    texts = []
    for path in paths:
        files = sorted(Path(path).rglob("*.yaml")) if Path(path).is_dir() else [Path(path)]
        for file in files:
            text = file.read_text()
            texts.append(text)
            doc = json.loads(json.dumps(YAML(typ="safe").load(text)))
            for shard, zones in (doc.get("shards") or {}).items():
                shards[shard] = frozenset(zones)
            for ns, spec in (doc.get("collections") or {}).items():
                ranges = tuple(
                    ZoneRange(r["zone"], _ejson(r["min"]), _ejson(r["max"]))
                    for r in spec.get("ranges", [])
                )
                collections[ns] = CollectionPolicy(
                    namespace=ns,
                    ranges=ranges,
                    pin=spec.get("pin"),
                    balancing=spec.get("balancing"),
                    migrate=spec.get("migrate"),
                )
            if "balancer" in doc:
                b = doc["balancer"] or {}
                window = b.get("activeWindow")
                balancer = BalancerPolicy(
                    enabled=b.get("enabled"),
                    active_window=ActiveWindow(window["start"], window["stop"]) if window else None,
                    manage_window="activeWindow" in b,
                )
    digest = hashlib.sha256("\n".join(texts).encode()).hexdigest()
    return DesiredState(
        shards=shards,
        collections=collections,
        balancer=balancer,
        sources=tuple(str(p) for p in paths),
        digest=digest,
    )


def needed() -> bool:
    try:
        import zonectl.policy as policy
    except ImportError:
        return True
    return not hasattr(policy, "load_policy")


def install() -> None:
    """Point the CLI's policy loading at this loader when the real one is missing."""
    if not needed():
        return
    from zonectl.cli import apply_cmd, common, plan_cmd

    for module in (common, apply_cmd, plan_cmd):
        module.load_desired = load_desired  # type: ignore[attr-defined]
