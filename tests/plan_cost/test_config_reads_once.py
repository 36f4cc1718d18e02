"""`plan` reads config.collections and config.settings once per run: the impact lines and
the forecast take the entries and the `chunksize` setting from the state read (not a find
of their own). Through the CLI against a sandbox over TCP: the commands it sends, and a
plan equal to the one the readers make when each asks the server itself (ChunkSizes.know
switched off: the path every plan took before), with per-collection chunk sizes, the
cluster's chunksize setting, big and small namespaces, explicit and pattern policies."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo import monitoring
from typer.testing import CliRunner

from tests.chunk_local.test_plan_same import AT, BIG, MIB, SHARDS
from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo import resolve
from zonectl.mongo.chunk_sizes import ChunkSizes

if not app.registered_commands:
    register(app)


EXPLICIT = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {fast-0: [hot], fast-1: [hot], std-0: [archive], std-1: [archive]}
collections:
  app.small:
    key: {x: 1}
    pin: hot
  app.sized:
    key: {x: 1}
    ranges:
      - {zone: archive, min: {x: {$minKey: 1}}, max: {x: 25}}
      - {zone: hot, min: {x: 25}, max: {x: {$maxKey: 1}}}
  app.big:
    key: {x: 1}
    ranges:
      - {zone: hot, min: {x: 15}, max: {x: 45}}
"""

PATTERN = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {fast-0: [hot], fast-1: [hot], std-0: [archive], std-1: [archive]}
collections:
  "app.*": {key: {x: 1}, pin: archive}
"""


def _cluster(sandbox_server: Any, version: str) -> Any:
    sb = sandbox_server(version)
    cluster = sb.sandbox.cluster
    for shard, zone in SHARDS.items():
        cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    names = list(SHARDS)
    for ns, n in (("app.small", 6), ("app.sized", 8), ("app.big", BIG)):
        bounds = [{"x": MinKey()}, *({"x": i * 5} for i in range(1, n)), {"x": MaxKey()}]
        cluster.create_collection(
            ns, {"x": 1}, bounds=bounds, shards=[names[(i * 3) % 4] for i in range(n)],
            sizes=[(20 + 9 * (i % 7)) * MIB for i in range(n)], counts=[100] * n,
        )  # fmt: skip
    # the cluster's chunk size, and one collection's own (6.0+: configureCollectionBalancing)
    sb.client.config.settings.update_one({"_id": "chunksize"}, {"$set": {"value": 32}}, True)
    if version != "5.0":
        sb.client.admin.command({"configureCollectionBalancing": "app.sized", "chunkSize": 16})
    return sb


class _Finds(monitoring.CommandListener):
    """The collections each `find` sent while `on` asked."""

    def __init__(self) -> None:
        self.on = False
        self.seen: Counter[str] = Counter()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on and event.command_name == "find" and event.database_name == "config":
            self.seen[str(event.command["find"])] += 1

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@pytest.fixture
def finds() -> Iterator[_Finds]:
    listener = _Finds()
    monitoring.register(listener)  # registered for the session: off outside this test
    yield listener
    listener.on = False


def _plan(uri: str, policy: str, finds: _Finds) -> tuple[dict[str, Any], Counter[str]]:
    finds.seen, finds.on = Counter(), True
    try:
        args = ["plan", policy, "--uri", uri, "--at", AT, "-f", "json"]
        result = CliRunner().invoke(app, args, catch_exceptions=False)
    finally:
        finds.on = False
    assert result.exit_code == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    doc.pop("server_footprint")
    return doc, finds.seen


@pytest.mark.parametrize("version", ["5.0", "7.0"])
@pytest.mark.parametrize("text", [EXPLICIT, PATTERN], ids=["explicit", "pattern"])
def test_plan_reads_collections_and_settings_once_and_plans_the_same(
    sandbox_server: Any,
    tmp_path: Any,
    monkeypatch: pytest.MonkeyPatch,
    finds: _Finds,
    version: str,
    text: str,
) -> None:
    sb = _cluster(sandbox_server, version)
    policy = tmp_path / "policy.yaml"
    policy.write_text(text, encoding="utf-8")
    shared, seen = _plan(sb.uri, str(policy), finds)
    # a pattern policy's listing of the live namespaces (unsharded_read) too takes them
    assert seen["collections"] == 1 and seen["settings"] == 1, seen
    monkeypatch.setattr(ChunkSizes, "know", lambda self, read: None)  # each reader asks
    alone = resolve.read_listing
    monkeypatch.setattr(resolve, "read_listing", lambda conn, desired, _=None: alone(conn, desired))
    asked, seen_asked = _plan(sb.uri, str(policy), finds)
    assert seen_asked["collections"] > seen["collections"], seen_asked
    assert seen_asked["settings"] > seen["settings"], seen_asked
    assert shared == asked
    # the case has what the shared entries decide: impacts, migrations capped at the chunk
    # size in the forecast
    impacts = {op["args"]["ns"]: op["impact"] for op in shared["ops"] if op.get("impact")}
    assert all(impacts[ns]["migrating"] > 0 for ns in ("app.small", "app.sized", "app.big"))
    assert shared["forecast"]["chunks"] > 0
