"""Every sandbox migration leaves the traces a real one leaves in config.changelog (fields as
migration_source_manager.cpp, migration_destination_manager.cpp and move_timing_helper.cpp
write them), and costs what the cluster file says: per-shard copy rates, a per-document
part and seeded jitter (over TCP with real pymongo)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pymongo
import pytest
from bson import MaxKey, MinKey

from zonectl.sandbox import uri as sandbox_uri

MIB = 1024 * 1024
T0 = "2026-03-02T12:00:00Z"


def cluster_file(tmp_path: Path, balancer: str = "{copyRate: 16MiB/s}", slow: str = "") -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        f"""shards:
  - {{name: s0}}
  - {{name: s1}}
  - {{name: s2{", copyRate: " + slow if slow else ""}}}
collections:
  - ns: app.c
    key: {{x: 1}}
    chunks: 6
    keys: {{type: int, start: 0, step: 100}}
    distribution: all-on-one
    shard: s0
    chunkSize: {{bytes: 33554432, docs: 20000}}
balancer: {balancer}
"""
    )
    return path


def move(client: Any, lo: int, to: str) -> None:
    lo_doc = {"x": lo if lo else MinKey()}
    hi_doc = {"x": lo + 100 if lo < 500 else MaxKey()}
    client.admin.command({"moveChunk": "app.c", "bounds": [lo_doc, hi_doc], "to": to})


def entries(client: Any, what: str) -> list[dict[str, Any]]:
    return list(client.config.changelog.find({"what": what}).sort("time", 1))


def total_s(entry: dict[str, Any]) -> float:
    return sum(v for k, v in entry["details"].items() if k.startswith("step ")) / 1000


@pytest.fixture
def started(tmp_path: Path) -> Any:
    handles: list[Any] = []

    def start(path: Path, version: str = "7.0") -> tuple[Any, pymongo.MongoClient[Any]]:
        handle = sandbox_uri.start(f"sandbox:{path}?version={version}")
        handles.append(handle)
        client: pymongo.MongoClient[Any] = pymongo.MongoClient(handle.uri, directConnection=True)
        handles.append(client)
        return handle, client

    yield start
    for h in reversed(handles):
        h.close()


@pytest.mark.parametrize("version", ["5.0", "6.0", "7.0", "8.0"])
def test_a_migration_writes_the_changelog_entries_mongodb_writes(
    started: Any, tmp_path: Path, version: str
) -> None:
    handle, client = started(cluster_file(tmp_path), version)
    t0 = handle.sandbox.clock.now()
    move(client, 100, "s1")
    (start,) = entries(client, "moveChunk.start")
    assert list(start["details"]) == ["min", "max", "from", "to"]
    assert start["shard"] == "s0" and start["details"]["to"] == "s1"
    (to,) = entries(client, "moveChunk.to")
    assert list(to["details"]) == [*(f"step {n} of 8" for n in range(1, 9)),
                                   "min", "max", "to", "from", "note"]  # fmt: skip
    assert to["shard"] == "s1" and to["details"]["note"] == "success"
    (commit,) = entries(client, "moveChunk.commit")
    assert commit["shard"] == "s0"
    assert commit["details"]["counts"] == {
        "cloned": 20000, "clonedBytes": 32 * MIB, "catchup": 0, "steady": 0,
    }  # fmt: skip
    (frm,) = entries(client, "moveChunk.from")
    assert list(frm["details"]) == [*(f"step {n} of 6" for n in range(1, 7)),
                                    "min", "max", "to", "from", "note"]  # fmt: skip
    assert frm["details"]["note"] == "success"
    # The donor's steps add up to the migration's simulated length, start to commit; the
    # clone (step 4) is its bytes at the copy rate, the other steps the fixed part.
    elapsed = (handle.sandbox.clock.now() - t0).total_seconds()
    assert total_s(frm) == pytest.approx(elapsed, abs=0.01)
    assert frm["details"]["step 4 of 6"] / 1000 == pytest.approx(2.0 * 1.02 + 0.05, abs=0.01)
    assert frm["time"] - start["time"] == dt.timedelta(seconds=elapsed)


def test_a_slow_shard_sets_the_pace_of_migrations_to_and_from_it(
    started: Any, tmp_path: Path
) -> None:
    _, client = started(cluster_file(tmp_path, slow="4MiB/s"))
    move(client, 100, "s1")  # 32 MiB at 16 MiB/s
    move(client, 200, "s2")  # 32 MiB at 4 MiB/s: s2 is slower than the donor
    move(client, 200, "s1")  # back from s2 to s1: s2 still sets the pace
    fast, slow_in, slow_out = (e["details"]["step 4 of 6"] / 1000
                               for e in entries(client, "moveChunk.from"))  # fmt: skip
    assert fast == pytest.approx(2.0 * 1.02 + 0.05, abs=0.01)
    assert slow_in == pytest.approx(8.0 * 1.02 + 0.05, abs=0.01) == slow_out


def test_a_per_document_cost_adds_to_the_clone(started: Any, tmp_path: Path) -> None:
    _, client = started(cluster_file(tmp_path, "{copyRate: 16MiB/s, perDocumentMicros: 100}"))
    move(client, 100, "s1")  # 20,000 documents at 100 µs: 2 s more
    (frm,) = entries(client, "moveChunk.from")
    assert frm["details"]["step 4 of 6"] / 1000 == pytest.approx(4.0 * 1.02 + 0.05, abs=0.01)


def _durations(started: Any, path: Path) -> list[float]:
    _, client = started(path)
    for lo in (100, 200, 300):
        move(client, lo, "s1")
    return [total_s(e) for e in entries(client, "moveChunk.from")]


def test_jitter_is_seeded_and_bounded(started: Any, tmp_path: Path) -> None:
    plain = _durations(started, cluster_file(_mk(tmp_path / "p")))
    seeded = "{copyRate: 16MiB/s, jitter: 0.2, jitterSeed: 7}"
    a = _durations(started, cluster_file(_mk(tmp_path / "a"), seeded))
    b = _durations(started, cluster_file(_mk(tmp_path / "b"), seeded))
    other = "{copyRate: 16MiB/s, jitter: 0.2, jitterSeed: 8}"
    c = _durations(started, cluster_file(_mk(tmp_path / "c"), other))
    assert a == b != c  # the same seed replays the same run
    assert len(set(a)) == 3 and len(set(plain)) == 1  # jitter varies equal migrations
    for x in a + c:
        assert plain[0] * 0.8 - 0.01 <= x <= plain[0] * 1.2 + 0.01


def _mk(path: Path) -> Path:
    path.mkdir(exist_ok=True)
    return path
