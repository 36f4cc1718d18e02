"""Collection defragmentation through pymongo (balancer-settings.md §5).

After jstests/sharding/balancer_defragmentation_merge_chunks.js and
libs/defragmentation_util.js: a fragmented collection ends with a handful of chunks, the
status reports `defragmentingChunks` with the phase and its remaining chunks until then,
the flag and phase are removed at the end, and stopping the balancer or aborting behave
as the jstest's "balancer off" cases.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from zonectl.sandbox.balancer.main_loop import run_rounds_until

MB = 1024 * 1024


def _fragmented(make_cluster: Any, version: str, n: int = 60) -> Any:
    """n small chunks (1 MB each, the default 128 MB chunk size) round robin over 3 shards."""
    c = make_cluster(
        version,
        points=list(range(1, n)),
        placement=[f"shard{i % 3}" for i in range(n)],
        chunk_mb=1,
        docs_per_chunk=100,
        chunksize_mb=None,
    )
    c.sandbox.cluster.coll("config.settings").put({"_id": "automerge", "enabled": False})
    return c


def _status(c: Any) -> dict[str, Any]:
    return c.admin.command("balancerCollectionStatus", "db.c")  # type: ignore[no-any-return]


def _ended(c: Any) -> bool:
    # defragmentation_util.js waitForEndOfDefragmentation
    status = _status(c)
    return bool(status["balancerCompliant"]) or (
        status.get("firstComplianceViolation") != "defragmentingChunks"
    )


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0", "8.3"])
def test_sixty_fragmented_chunks_end_as_a_handful(make_cluster: Any, version: str) -> None:
    c = _fragmented(make_cluster, version)
    assert len(c.chunks()) == 60
    c.admin.command("configureCollectionBalancing", "db.c", defragmentCollection=True)
    status = _status(c)
    assert status["firstComplianceViolation"] == "defragmentingChunks"
    assert status["details"] == {"currentPhase": "none"}  # no round has seen it yet
    ended = run_rounds_until(c.balancer, lambda: _ended(c), limit=dt.timedelta(hours=2))
    assert ended is not None
    assert len(c.chunks()) <= 6
    doc = c.client.config.collections.find_one({"_id": "db.c"})
    assert "defragmentCollection" not in doc and "defragmentationPhase" not in doc
    sizes = c.sandbox.cluster.chunks("db.c").sizes()[0]
    assert sum(sizes) == 60 * MB  # merges and moves lose no data
    assert c.client.config.changelog.count_documents({"what": "moveChunk.commit"}) > 0


def test_the_phases_and_their_progress_are_reported(make_cluster: Any) -> None:
    c = _fragmented(make_cluster, "7.0", n=12)
    c.admin.command("configureCollectionBalancing", "db.c", defragmentCollection=True)
    c.balancer.run_round()  # phase 1 starts: one streaming action (a dataSize) per second
    status = _status(c)
    assert status["balancerCompliant"] is False
    assert status["details"]["currentPhase"] == "mergeAndMeasureChunks"
    assert status["details"]["progress"]["remainingChunksToProcess"] == 11
    doc = c.client.config.collections.find_one({"_id": "db.c"})
    assert doc["defragmentationPhase"] == "mergeAndMeasureChunks"
    seen: list[tuple[str, int]] = []
    for _ in range(100):
        c.sandbox.clock.advance(dt.timedelta(seconds=2))
        c.balancer.complete_migrations()
        c.balancer.run_round()
        if _ended(c):
            break
        details = _status(c)["details"]
        seen.append((details["currentPhase"], details["progress"]["remainingChunksToProcess"]))
    assert _ended(c)
    phases = [phase for phase, _ in seen]
    assert phases == sorted(phases, key=["mergeAndMeasureChunks", "moveAndMergeChunks",
                                         "mergeChunks"].index)  # fmt: skip
    assert "moveAndMergeChunks" in phases
    for phase in set(phases):
        left = [n for p, n in seen if p == phase]
        assert left == sorted(left, reverse=True)  # progress only goes down within a phase


def test_a_stopped_balancer_keeps_the_flag_and_reports_no_phase(make_cluster: Any) -> None:
    c = _fragmented(make_cluster, "7.0", n=12)
    c.admin.command("balancerStop")
    c.admin.command("configureCollectionBalancing", "db.c", defragmentCollection=True)
    c.balancer.run_round()
    assert _status(c)["details"] == {"currentPhase": "none"}
    assert len(c.chunks()) == 12
    # "Begin and end defragmentation with balancer off": the abort waits for the balancer.
    c.admin.command("configureCollectionBalancing", "db.c", defragmentCollection=False)
    assert _status(c)["firstComplianceViolation"] == "defragmentingChunks"
    doc = c.client.config.collections.find_one({"_id": "db.c"})
    assert doc["defragmentCollection"] is True
    c.admin.command("balancerStart")
    c.balancer.run_round()
    assert _ended(c)
    assert len(c.chunks()) == 12  # aborted before any phase ran
    assert "defragmentationPhase" not in c.client.config.collections.find_one({"_id": "db.c"})


def test_defragmentation_keeps_chunks_inside_their_zones(make_cluster: Any) -> None:
    c = _fragmented(make_cluster, "7.0", n=12)
    for shard in ("shard0", "shard1", "shard2"):
        c.zone(shard, "z")
    c.zone_range({"x": 4}, {"x": 8}, "z")
    c.admin.command("configureCollectionBalancing", "db.c", defragmentCollection=True)
    assert run_rounds_until(c.balancer, lambda: _ended(c), limit=dt.timedelta(hours=1))
    bounds = {d["min"]["x"] for d in c.chunks()} | {d["max"]["x"] for d in c.chunks()}
    assert {4, 8} <= bounds  # no merge spans a zone boundary
