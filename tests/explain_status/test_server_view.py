"""status no longer asks balancerCollectionStatus of every collection: it derives the
reply from explain's reasons (zonectl/explain/server_status.py). On generated clusters
(zones, draining shards, jumbo chunks, boundaries inside chunks, a collection's own chunk
size) what `zonectl status --format json` shows for each collection is what the sandbox
answers to balancerCollectionStatus over pymongo, field for field, on 5.0 (no chunkSize),
7.0 (chunkSize in MB, a long) and 8.0 (a double); and the state beside it is explain's."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from bson import json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey
from pymongo import monitoring
from typer.testing import CliRunner

from tests.explain.kit import SHARDS, Kit, make_kit
from zonectl.cli.app import app
from zonectl.mongo.connect import connect
from zonectl.session.explain import UTC_FLAGS
from zonectl.session.status import StatusRequest, read_status_view

KIB = 1024
GOSSIP = {"ok", "$clusterTime", "operationTime"}


def _generated(kit: Kit, rng: random.Random) -> list[str]:
    for shard in SHARDS:
        for zone in ("hot", "cold"):
            if rng.random() < 0.4:
                kit.admin.command("addShardToZone", shard, zone=zone)
    carried = {z for s in kit.cluster.shard_docs() for z in s.get("tags", [])}
    names = []
    for c in range(8):
        ns = f"t.c{c}"
        n = rng.randint(1, 10)
        points = sorted(rng.sample(range(1, 100), n - 1))
        edges = [{"x": MinKey()}, *({"x": p} for p in points), {"x": MaxKey()}]
        placement = [rng.choice(SHARDS[: rng.randint(1, 3)]) for _ in range(n)]
        docs = [rng.choice([10, 100, 400]) for _ in range(n)]
        kit.cluster.create_collection(
            ns, {"x": 1}, bounds=edges, shards=placement,
            sizes=[d * 10 * KIB for d in docs], counts=docs,
        )  # fmt: skip
        lo = rng.choice([0, *points]) + (1 if rng.random() < 0.2 else 0)
        if carried and rng.random() < 0.7:
            hi = rng.choice([p for p in [*points, 100] if p > lo] or [100])
            kit.zone_range(ns, lo, hi, rng.choice(sorted(carried)))
        for i in range(n):
            if rng.random() < 0.15:
                kit.jumbo(ns, i)
        if rng.random() < 0.3 and kit.sandbox.version.has_configure_collection_balancing:
            kit.admin.command("configureCollectionBalancing", ns, chunkSize=rng.choice([1, 3]))
        names.append(ns)
    if rng.random() < 0.5:
        kit.cluster.set_shard_field(rng.choice(SHARDS), "draining", True)
    return names


def _status(kit: Kit) -> dict[str, dict[str, Any]]:
    result = CliRunner().invoke(
        app, ["status", "--uri", kit.handle.uri, "--format", "json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr + result.stdout
    return {n["namespace"]: n for n in json.loads(result.stdout)["namespaces"]}


def _relaxed(reply: dict[str, Any]) -> Any:
    kept = {k: v for k, v in reply.items() if k not in GOSSIP}
    return json.loads(json_util.dumps(kept, json_options=json_util.RELAXED_JSON_OPTIONS))


@pytest.mark.parametrize("version", ["5.0", "7.0", "8.0"])
@pytest.mark.parametrize("seed", range(6))
def test_status_shows_what_the_server_answers_without_asking_it(
    sandbox_server: Any, version: str, seed: int
) -> None:
    kit = make_kit(sandbox_server, version)
    names = _generated(kit, random.Random(seed))
    shown = _status(kit)
    explained = {c["ns"]: c for c in kit.explain()["collections"]}
    for ns in names:
        server = _relaxed(kit.admin.command("balancerCollectionStatus", ns))
        assert shown[ns]["balancerCollectionStatus"] == server, (ns, shown[ns], server)
        assert shown[ns]["balancerCollectionStatusNote"] is None
        first = explained[ns]["reasons"][0] if explained[ns]["reasons"] else None
        want = None if first is None else {"code": first["code"], "message": first["message"]}
        assert shown[ns]["explain"] == {"state": explained[ns]["state"], "reason": want}


def test_a_defragmentation_is_asked_of_the_server_alone_for_its_progress(
    sandbox_server: Any,
) -> None:
    """Its `details` (phase, chunks left) are in no config document: status asks
    balancerCollectionStatus of that collection only and shows the server's reply."""
    kit = make_kit(sandbox_server, "7.0")
    for i in range(3):
        kit.collection(f"t.c{i}", [10, 20], [SHARDS[0], SHARDS[0], SHARDS[1]])
    kit.admin.command("configureCollectionBalancing", "t.c1", defragmentCollection=True)
    kit.rounds(1)  # the balancer starts its first phase
    listener = _Commands()
    with connect(kit.handle.uri, listeners=[listener]) as conn:
        read_status_view(conn, StatusRequest("zonectl", UTC_FLAGS))
    assert listener.asked == ["t.c1"]
    shown = _status(kit)
    server = _relaxed(kit.admin.command("balancerCollectionStatus", "t.c1"))
    assert server["firstComplianceViolation"] == "defragmentingChunks"
    assert "details" in server
    assert shown["t.c1"]["balancerCollectionStatus"] == server
    assert shown["t.c1"]["explain"]["state"] == "waiting"
    assert shown["t.c1"]["explain"]["reason"]["code"] == "defragmenting"
    assert shown["t.c0"]["balancerCollectionStatus"] == _relaxed(
        kit.admin.command("balancerCollectionStatus", "t.c0")
    )


class _Commands(monitoring.CommandListener):
    def __init__(self) -> None:
        self.asked: list[str] = []

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name == "balancerCollectionStatus":
            self.asked.append(str(event.command["balancerCollectionStatus"]))

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass
