"""A stand-in for `zonectl.policy.load_policy` while it has not landed: shards, key, ranges,
pin and firehose windows, enough for the rotate tests. Installed only when the real loader
is missing (so the tests run the real one once it exists), and only into rotate's module."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bson import json_util
from ruamel.yaml import YAML

from zonectl.model.desired import CollectionPolicy, DesiredState, Firehose, ZoneRange


def _ejson(value: Any) -> Any:
    return json_util.loads(json.dumps(value))


def _firehose(spec: dict[str, Any] | None) -> Firehose | None:
    if not spec:
        return None
    return Firehose(
        field=spec["field"],
        type=spec["type"],
        schedule=spec["schedule"],
        timezone=spec.get("timezone", "UTC"),
        keep=int(spec.get("keep", 1)),
        hot=spec["hot"],
        cold=spec.get("cold"),
    )


def load_desired(paths: Sequence[Path]) -> DesiredState:
    shards: dict[str, frozenset[str]] = {}
    collections: dict[str, CollectionPolicy] = {}
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
                collections[ns] = CollectionPolicy(
                    namespace=ns,
                    key=_ejson(spec["key"]) if "key" in spec else None,
                    ranges=tuple(
                        ZoneRange(r["zone"], _ejson(r["min"]), _ejson(r["max"]))
                        for r in spec.get("ranges", [])
                    ),
                    pin=spec.get("pin"),
                    firehose=_firehose(spec.get("firehose")),
                    balancing=spec.get("balancing"),
                )
    return DesiredState(
        shards=shards,
        collections=collections,
        sources=tuple(str(p) for p in paths),
        digest=hashlib.sha256("\n".join(texts).encode()).hexdigest(),
    )


def needed() -> bool:
    try:
        import zonectl.policy as policy
    except ImportError:
        return True
    return not hasattr(policy, "load_policy")


def install() -> None:
    if not needed():
        return
    from zonectl.cli import rotate_cmd

    rotate_cmd.load_desired = load_desired  # type: ignore[attr-defined]
