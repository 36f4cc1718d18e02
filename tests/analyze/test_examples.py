"""The example policies raise no finding they should not: each runs against a sandbox built
to match it (its shards and zones, each collection sharded on its key with the policy's
ranges), and no error or warning comes back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from tests.analyze.kit import analyze, serve_cluster

EXAMPLES = sorted((Path(__file__).parents[2] / "policies" / "examples").glob("*.yaml"))


def _cluster_for(policy: dict[str, Any]) -> str:
    shards = [{"name": s, "zones": list(z or [])} for s, z in policy["shards"].items()]
    collections, unsharded = [], []
    for ns, spec in policy["collections"].items():
        if any(c in ns for c in "*?[%"):
            continue  # namespace patterns and per-period slices name no one collection
        if "key" not in spec:
            unsharded.append({"ns": ns})  # a pinned unsharded collection
            continue
        key = spec["key"]
        entry: dict[str, Any] = {"ns": ns, "key": key}
        fh = spec.get("firehose")
        if fh and fh["type"] in ("date", "objectId"):
            entry["keys"] = {"type": fh["type"], "start": "2026-01-01T00:00:00Z"}
        elif fh:  # epochSeconds / epochMillis: numbers written in time order
            entry["documents"] = {"inserts": "ascending"}
        collections.append(entry)
    # JSON is YAML, and keeps the key's field order.
    return json.dumps({"shards": shards, "collections": collections, "unsharded": unsharded})


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.stem)
def test_example_policy_raises_no_error_or_warning(
    sandbox_server: Any, tmp_path: Path, path: Path
) -> None:
    text = path.read_text(encoding="utf-8")
    handle = serve_cluster(sandbox_server, _cluster_for(YAML(typ="safe", pure=True).load(text)))
    code, report, err = analyze(handle.uri, tmp_path, text)
    assert code == 0, err
    loud = [
        f
        for c in report["collections"]
        for f in c["findings"]
        if f["severity"] in ("error", "warning")
    ] + [f for f in report["findings"] if f["severity"] in ("error", "warning")]
    assert loud == []
