"""Issue 19 items 3-4 through the CLI: one chunk size for the impact line, the forecast and
status, and a plan whose reads follow the change (config.chunks documents read are the
changed range's, the rest is counted), against a sandbox served over TCP."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from bson import MaxKey, MinKey
from pymongo import monitoring
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo.ingest_read import PERIODS
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

REPO = Path(__file__).resolve().parents[2]
FAST, STD = ("fast-0", "fast-1"), ("std-0", "std-1")
CHUNKS = 2000
MIB = 1024 * 1024


class ChunkReads(monitoring.CommandListener):
    """Documents of config.chunks the client received (find/aggregate/getMore batches; an
    aggregate's $count results are counts, not chunks, and not counted)."""

    def __init__(self) -> None:
        self.documents = 0
        self.cursors: set[int] = set()
        self.active = True  # pymongo keeps a registered listener for the whole session

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if not self.active:
            return
        if event.command_name in ("find", "aggregate") and (
            event.command.get(event.command_name) == "chunks"
        ):
            self.cursors.add(event.request_id)
        if event.command_name == "getMore" and event.command.get("collection") == "chunks":
            self.cursors.add(event.request_id)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        if self.active and event.request_id in self.cursors:
            cursor = event.reply.get("cursor", {})
            batch = cursor.get("firstBatch", cursor.get("nextBatch", []))
            self.documents += sum(1 for d in batch if "min" in d)  # chunks, not counts

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


@pytest.fixture
def chunk_reads() -> Iterator[ChunkReads]:
    listener = ChunkReads()
    monitoring.register(listener)
    yield listener
    listener.active = False  # registered for the session: inert from here on, so later
    listener.cursors.clear()  # tests in this worker (raw chunk batches) never reach it


def cluster(off_zone: int) -> Sandbox:
    """archive [MinKey, 500) on the std shards, hot [1500, MaxKey) on the fast ones, each
    chunk where its range wants it except the first `off_zone` chunks of archive (on
    fast-0); chunks of 10-40 MiB."""
    sb = Sandbox("7.0")
    for shard in (*FAST, *STD):
        sb.cluster.add_shard(
            shard, f"{shard}/{shard}:27018", ("hot",) if shard in FAST else ("archive",)
        )
    owners = [
        "fast-0" if i < off_zone else STD[i % 2] if i < 500 else FAST[i % 2] if i >= 1500
        else (*FAST, *STD)[i % 4]
        for i in range(CHUNKS)
    ]  # fmt: skip
    bounds = [{"x": MinKey()}, *({"x": i} for i in range(1, CHUNKS)), {"x": MaxKey()}]
    sizes = [(10 + i % 31) * MIB for i in range(CHUNKS)]
    sb.cluster.create_collection(
        "app.e", {"x": 1}, bounds=bounds, shards=owners, sizes=sizes, counts=[100] * CHUNKS
    )
    return sb


POLICY = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {fast-0: [hot], fast-1: [hot], std-0: [archive], std-1: [archive]}
collections:
  app.e:
    key: {x: 1}
    ranges:
      - {zone: archive, min: {x: {$minKey: 1}}, max: {x: 500}}
      - {zone: hot, min: {x: 1000}, max: {x: 1010}}
      - {zone: hot, min: {x: 1500}, max: {x: {$maxKey: 1}}}
"""


def served(sandbox_server: Any, off_zone: int) -> Any:
    sb = sandbox_server(sandbox=cluster(off_zone))
    for zone, lo, hi in (("archive", MinKey(), 500), ("hot", 1500, MaxKey())):
        sb.client.admin.command(
            {"updateZoneKeyRange": "app.e", "min": {"x": lo}, "max": {"x": hi}, "zone": zone}
        )
    return sb


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_the_demo_plans_impact_line_and_forecast_show_the_same_bytes() -> None:
    code, out, _ = run(
        "plan",
        str(REPO / "policies" / "demo"),
        "--uri",
        "sandbox:",
        "-f",
        "json",
        "--measure-chunks",
        "100000",
    )
    assert code == 0
    doc = json.loads(out)
    migrating = sum(op["impact"]["bytes"] for op in doc["ops"] if op.get("impact"))
    assert doc["forecast"]["bytes"] == migrating > 0
    assert doc["forecast"]["notes"] == [
        f"chunk sizes: {doc['forecast']['chunks']} measured (dataSize)"
    ]


def test_the_demo_plan_measures_at_most_its_budget_and_says_which_sizes_it_estimated() -> None:
    code, out, _ = run("plan", str(REPO / "policies" / "demo"), "--uri", "sandbox:", "-f", "json")
    assert code == 0
    doc = json.loads(out)
    moving = doc["forecast"]["chunks"]
    stated = doc["server_footprint"]["chunk_sizes"]
    budget = stated["measure_budget"]
    assert moving > budget > 0  # the default budget is small: most sizes are estimates
    assert stated["measured"] == budget
    # besides the chunk sizes, the hot-zone fit (ZA115) sizes app.events' window: its last
    # PERIODS days and the window itself, one dataSize each
    hot_zone = PERIODS + 1
    assert doc["server_footprint"]["commands"]["dataSize"] == budget + hot_zone
    assert stated["measured"] + stated["estimated"] == moving
    # the estimates are spread like the measured sample (a round lasts its largest move)
    assert stated["estimates_spread_like_measured"] == budget
    assert doc["forecast"]["notes"] == [
        f"chunk sizes: {budget} measured (dataSize), {moving - budget} estimated from "
        + " and ".join(stated["estimated_from"])
        + f", spread like the {budget} measured"
    ]


def test_a_one_range_plan_reads_only_that_ranges_chunks_and_counts_the_backlog(
    sandbox_server: Any, chunk_reads: ChunkReads, tmp_path: Path
) -> None:
    sb = served(sandbox_server, off_zone=40)
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    code, out, err = run("plan", str(policy), "--uri", sb.uri, "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    (op,) = doc["ops"]
    on_std = [i for i in range(1000, 1010) if i % 4 >= 2]  # chunk i is [i, i + 1)
    assert op["impact"]["chunks"] == 10 and op["impact"]["migrating"] == len(on_std) == 4
    assert op["impact"]["bytes"] == sum((10 + i % 31) * MIB for i in on_std)  # measured
    # The 40 archive chunks on fast-0 were off their zone before the plan: counted, sized
    # by the estimate, never read; the new range's 4 are read and measured.
    assert doc["forecast"]["chunks"] == 44
    assert chunk_reads.documents <= 4 + 10  # the range's off-zone chunks and a few single reads
    assert doc["forecast"]["notes"] == [
        "chunk sizes: 4 measured (dataSize), 40 estimated from $shardedDataDistribution, "
        "spread like the 4 measured"
    ]


def test_status_out_of_zone_bytes_and_its_forecast_use_one_size(sandbox_server: Any) -> None:
    sb = served(sandbox_server, off_zone=40)
    code, out, err = run("status", "--uri", sb.uri, "-f", "json")
    assert code == 0, err
    doc = json.loads(out)
    (coll,) = [c for c in doc["namespaces"] if c["namespace"] == "app.e"]
    assert coll["compliance"]["bytesOutsideZoneEstimate"] == doc["forecast"]["bytes"] > 0
    assert doc["forecast"]["chunks"] == 40


T0 = 1_599_998_400  # an hour boundary; firehose chunks of six minutes from here
ROTATE_POLICY = """\
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {fast-0: [hot], fast-1: [hot], std-0: [archive], std-1: [archive]}
collections:
  app.e:
    key: {ts: 1}
    firehose: {field: ts, type: epochSeconds, schedule: '0 * * * *', timezone: UTC,
               keep: 1, hot: hot, cold: archive}
"""


def test_rotate_with_a_window_due_reads_only_the_chunks_that_changed_zone(
    sandbox_server: Any, chunk_reads: ChunkReads, tmp_path: Path
) -> None:
    sb = Sandbox("7.0")
    for shard in (*FAST, *STD):
        sb.cluster.add_shard(
            shard, f"{shard}/{shard}:27018", ("hot",) if shard in FAST else ("archive",)
        )
    old = CHUNKS - 100  # the window's boundary one hour (ten chunks) behind
    bounds = [{"ts": MinKey()}, *({"ts": T0 + i * 360} for i in range(1, CHUNKS)), {"ts": MaxKey()}]
    owners = [STD[i % 2] if i < old else FAST[i % 2] for i in range(CHUNKS)]
    sb.cluster.create_collection("app.e", {"ts": 1}, bounds=bounds, shards=owners)
    served = sandbox_server(sandbox=sb)
    for zone, lo, hi in (("archive", MinKey(), T0 + old * 360), ("hot", T0 + old * 360, MaxKey())):
        served.client.admin.command(
            {"updateZoneKeyRange": "app.e", "min": {"ts": lo}, "max": {"ts": hi}, "zone": zone}
        )
    policy = tmp_path / "policy.yaml"
    policy.write_text(ROTATE_POLICY, encoding="utf-8")
    at = dt.datetime.fromtimestamp(T0 + (old + 10) * 360 + 300, dt.UTC).isoformat()
    code, _, err = run("rotate", str(policy), "--uri", served.uri, "--at", at, "--yes")
    assert code == 0, err
    cold = served.client.config.tags.find_one({"ns": "app.e", "tag": "archive"})
    assert cold["max"] == {"ts": T0 + (old + 10) * 360}  # the window moved one tick
    # The ten chunks that left the hot window are read (the impact of the new cold range);
    # the 1,900 below it are counted, not read.
    assert chunk_reads.documents <= 10 + 10
