"""A plan reads small namespaces whole and answers their chunk questions in memory; the
plan must be the one the targeted reads give. Through the CLI against a sandbox over TCP:
small and big namespaces (single, compound and hashed keys), ranges that start inside a
chunk, jumbo chunks, chunks off their zone, ranges already in place (counted, not read);
`plan --format json` with every namespace read by targeted queries (SMALL = 0, the path
every namespace took before) equals the default plan, with fewer sub-pipelines sent."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import pytest
from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo import monitoring
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo import chunk_batch

if not app.registered_commands:
    register(app)

SHARDS = {"fast-0": "hot", "fast-1": "hot", "std-0": "archive", "std-1": "archive"}
AT = "2026-11-23T17:01:00+00:00"
MIB = 1024 * 1024
BIG = chunk_batch.SMALL + 6

POLICY = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {fast-0: [hot], fast-1: [hot], std-0: [archive], std-1: [archive]}
collections:
  app.small:
    key: {x: 1}
    ranges:
      - {zone: archive, min: {x: {$minKey: 1}}, max: {x: 25}}
      - {zone: hot, min: {x: 25}, max: {x: {$maxKey: 1}}}
  app.big:
    key: {x: 1}
    ranges:
      - {zone: hot, min: {x: 15}, max: {x: 45}}
  app.pair:
    key: {a: 1, b: 1}
    pin: archive
  app.hash:
    key: {h: hashed}
    ranges:
      - {zone: hot, min: {h: {$minKey: 1}}, max: {h: {$numberLong: "0"}}}
  app.kept:
    key: {x: 1}
    ranges:
      - {zone: archive, min: {x: {$minKey: 1}}, max: {x: 30}}
  app.kept_big:
    key: {x: 1}
    ranges:
      - {zone: hot, min: {x: 10}, max: {x: {$maxKey: 1}}}
"""


def _cluster(sandbox_server: Any) -> Any:
    sb = sandbox_server("7.0")
    cluster = sb.sandbox.cluster
    for shard, zone in SHARDS.items():
        cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    names = list(SHARDS)

    def make(
        ns: str, key: dict[str, Any], inner: list[dict[str, Any]], jumbo: tuple[int, ...]
    ) -> None:
        fields = list(key)
        bounds = [dict.fromkeys(fields, MinKey()), *inner, dict.fromkeys(fields, MaxKey())]
        n = len(bounds) - 1
        store = cluster.create_collection(
            ns, key, bounds=bounds, shards=[names[(i * 3) % 4] for i in range(n)],
            sizes=[(4 + i % 7) * MIB for i in range(n)], counts=[100] * n,
        )  # fmt: skip
        for i in jumbo:
            store.set_jumbo(i, True)

    make("app.small", {"x": 1}, [{"x": i * 10} for i in range(1, 6)], (0, 5))
    make("app.big", {"x": 1}, [{"x": i} for i in range(1, BIG)], (21, 31))
    pairs = [{"a": a, "b": b} for a in ("p", "q") for b in (MinKey(), 5)]
    make("app.pair", {"a": 1, "b": 1}, pairs, (2,))
    make("app.hash", {"h": "hashed"}, [{"h": Int64(v)} for v in (-(2**62), -7, 0, 2**40)], ())
    make("app.kept", {"x": 1}, [{"x": 30}, {"x": 60}], ())
    make("app.kept_big", {"x": 1}, [{"x": i} for i in range(1, BIG)], (3,))
    for ns, zone, lo, hi in (
        ("app.kept", "archive", MinKey(), 30),
        ("app.kept_big", "hot", 10, MaxKey()),
    ):
        sb.client.admin.command(
            {"updateZoneKeyRange": ns, "min": {"x": lo}, "max": {"x": hi}, "zone": zone}
        )
    return sb


class _SubPipelines(monitoring.CommandListener):
    """$unionWith sub-pipelines of the config.chunks aggregates sent while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.count = 0

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on and event.command_name == "aggregate" and event.command["aggregate"] == "chunks":
            self.count += 1 + _unions(event.command["pipeline"])

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def _unions(pipeline: list[dict[str, Any]]) -> int:
    nested = [s["$unionWith"]["pipeline"] for s in pipeline if "$unionWith" in s]
    return len(nested) + sum(_unions(p) for p in nested)


@pytest.fixture
def sub_pipelines() -> Iterator[_SubPipelines]:
    listener = _SubPipelines()
    monitoring.register(listener)  # registered for the session: off outside this test
    yield listener
    listener.on = False


def _plan(uri: str, policy: str, listener: _SubPipelines) -> tuple[dict[str, Any], int]:
    listener.count, listener.on = 0, True
    try:
        args = ["plan", policy, "--uri", uri, "--at", AT, "-f", "json"]
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    finally:
        listener.on = False
    assert result.exit_code == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    doc.pop("server_footprint")
    return doc, listener.count


def test_a_plan_read_whole_where_small_is_the_plan_of_targeted_reads(
    sandbox_server: Any, tmp_path: Any, monkeypatch: pytest.MonkeyPatch, sub_pipelines: Any
) -> None:
    sb = _cluster(sandbox_server)
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    local, sent = _plan(sb.uri, str(policy), sub_pipelines)
    monkeypatch.setattr(chunk_batch, "SMALL", 0)  # every namespace by targeted reads
    targeted, sent_targeted = _plan(sb.uri, str(policy), sub_pipelines)
    assert local == targeted
    impacts = {op["args"]["ns"]: op["impact"] for op in local["ops"] if op.get("impact")}
    assert impacts["app.big"]["migrating"] > 0 and impacts["app.small"]["migrating"] > 0
    assert local["forecast"]["chunks"] > 0
    stranded = [w for w in local["warnings"] if "ZA201" in w]  # jumbo chunks off the zone
    assert any("app.small" in w for w in stranded) and any("app.big" in w for w in stranded)
    assert sent < sent_targeted
