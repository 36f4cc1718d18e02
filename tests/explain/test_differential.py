"""explain's port of `BalancerPolicy::balance` against the sandbox's own port, which shares
nothing with it: on generated clusters (zones, draining shards, jumbo chunks, placements),
the first reason explain derives must be what the sandbox's `balancerCollectionStatus`
answers over pymongo. A disagreement is settled by MongoDB's source
(docs/sandbox-fidelity.md, "Jumbo chunks and attemptToBalanceJumboChunks")."""

from __future__ import annotations

import random
from typing import Any

import pytest
from bson.max_key import MaxKey
from bson.min_key import MinKey

from tests.explain.kit import SHARDS, make_kit

KIB = 1024
# explain's code -> balancerCollectionStatus's firstComplianceViolation
SERVER = {"draining": "draining", "zone-violation": "zoneViolation",
          "chunks-imbalance": "chunksImbalance"}  # fmt: skip


def _server_view(doc: dict[str, Any]) -> str | None:
    """What explain's reasons say the server's status is: the first pending reason."""
    for reason in doc["reasons"]:
        if reason["code"] in SERVER:
            return SERVER[reason["code"]]
    return None


@pytest.mark.parametrize("version", ["5.0", "7.0"])
@pytest.mark.parametrize("seed", range(10))
def test_explain_and_the_sandbox_agree_on_the_first_violation(
    sandbox_server: Any, version: str, seed: int
) -> None:
    rng = random.Random(seed)
    kit = make_kit(sandbox_server, version)
    zones = ["hot", "cold"]
    for shard in SHARDS:
        for zone in zones:
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
        lo = rng.choice([0, *points]) + (1 if rng.random() < 0.2 else 0)  # a chunk's middle
        if carried and rng.random() < 0.7:
            hi = rng.choice([p for p in [*points, 100] if p > lo] or [100])
            kit.zone_range(ns, lo, hi, rng.choice(sorted(carried)))
        for i in range(n):
            if rng.random() < 0.15:
                kit.jumbo(ns, i)
        names.append(ns)
    if rng.random() < 0.5:
        kit.cluster.set_shard_field(rng.choice(SHARDS), "draining", True)
    docs_by_ns = {c["ns"]: c for c in kit.explain()["collections"]}
    for ns in names:
        server = kit.admin.command("balancerCollectionStatus", ns)
        expected = server.get("firstComplianceViolation")
        assert _server_view(docs_by_ns[ns]) == expected, (ns, docs_by_ns[ns], server)
