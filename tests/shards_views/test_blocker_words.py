"""A drain's blockers read the same everywhere: the plan of the shard's removal and
`zonectl status` name each blocker with the same code, message and fix (one source,
zonectl/model/drain_blockers.py), whether the balancer is off, its window closed, a jumbo
chunk stays or a zone has no shard to receive the chunks."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from three_shards import REMOVE_S1
from views_kit import CLUSTER, NOW, cluster_uri, zonectl

POLICY = REMOVE_S1
OFF = CLUSTER + "balancer: {enabled: false}\n"
CLOSED = CLUSTER + 'balancer: {activeWindow: {start: "01:00", stop: "05:00"}}\n'
# s2, the only other shard of zone us, drains too: s1's us chunks have nowhere to go.
STRANDED = CLUSTER.replace(
    "{name: s2, zones: [us]}", "{name: s2, zones: [us], draining: true}"
).replace("{name: s1, zones: [eu], draining: true}", "{name: s1, zones: [eu, us], draining: true}")


def _blockers_of_status(uri: str) -> list[dict[str, Any]]:
    out = zonectl("status", "--uri", uri, "--format", "json", "--balancer-tz", "UTC")
    assert out.exit_code == 0, out.stderr
    drain = next(d for d in json.loads(out.stdout)["drains"] if d["shard"] == "s1")
    return [{k: b[k] for k in ("code", "message", "fix")} for b in drain["blockers"]]


def _blockers_of_plan(uri: str, tmp_path: Path) -> list[dict[str, Any]]:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    out = zonectl("plan", str(policy), "--uri", uri, "--format", "json", "--at", NOW)
    assert out.exit_code == 0, out.stderr
    [removal] = [o for o in json.loads(out.stdout)["ops"] if o["kind"] == "remove_shard"]
    return [
        {k: b[k] for k in ("code", "message", "fix")}
        for b in removal["args"]["blockers"]
        if not b["refuses"]
    ]


@pytest.mark.parametrize(
    ("cluster", "codes"),
    [
        (OFF, ["balancer-off", "jumbo"]),
        (CLOSED, ["outside-window", "jumbo"]),
        (STRANDED, ["jumbo", "no-recipient"]),
    ],
    ids=["balancer-off", "outside-window", "no-recipient"],
)
def test_the_plan_and_status_word_each_blocker_alike(
    cluster: str, codes: list[str], tmp_path: Path
) -> None:
    uri = cluster_uri(tmp_path, cluster)
    status = _blockers_of_status(uri)
    assert [b["code"] for b in status] == codes
    assert _blockers_of_plan(uri, tmp_path) == status
