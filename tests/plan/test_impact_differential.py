"""Each range op's impact in `plan --format json` against counting every chunk: hypothesis
draws namespaces (chunk bounds, shards, sizes) and zone ranges that cut chunks or cover
the whole key space, on a sandbox served over TCP (5.0: sizes from collStats, 7.0: from
$shardedDataDistribution). The plan (targeted reads, whole reads of small namespaces, one
estimate per namespace and shard) must say, per op, what `estimate_impact` says over all
of the namespace's chunks with every migrating part sized by a fresh ChunkSizes' estimate
(`--measure-chunks 0`: nothing measured)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterator
from typing import Any

import pytest
from bson import json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey
from hypothesis import given, settings
from hypothesis import strategies as st
from served_kit import Served, served
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.plan.impact import estimate_impact
from zonectl.plan.op_base import RangeChange
from zonectl.plan.ops import Impact

if not app.registered_commands:
    register(app)

SHARDS = {"fast-0": "hot", "fast-1": "hot", "std-0": "archive", "std-1": "archive"}
ZONES = ("hot", "archive")
AT = "2026-11-23T17:01:00+00:00"
MIB = 1024 * 1024
_names = itertools.count()


@pytest.fixture(scope="module")
def servers(module_sandbox_server: Any) -> Iterator[Served]:
    """A served sandbox with zoned shards and an open connection, per version."""
    with served(
        module_sandbox_server, ("5.0", "7.0"), {shard: (zone,) for shard, zone in SHARDS.items()}
    ) as out:
        yield out


# A namespace: its inner chunk bounds, each chunk's shard and size (MB), and its wanted
# ranges as (cut points among -1..31, the zone of each span); no cut: the whole key space.
_namespace = st.tuples(
    st.lists(st.integers(0, 30), min_size=0, max_size=9, unique=True).map(sorted),
    st.lists(st.sampled_from(sorted(SHARDS)), min_size=10, max_size=10),
    st.lists(st.integers(1, 60), min_size=10, max_size=10),
    st.lists(st.integers(-1, 31), min_size=0, max_size=3, unique=True).map(sorted),
    st.lists(st.sampled_from(ZONES), min_size=4, max_size=4),
)


def _bound(v: int) -> Any:
    return MinKey() if v == -1 else MaxKey() if v == 31 else v


def _make(handle: Any, drawn: Any) -> tuple[str, str]:
    """The namespace in the sandbox and its policy entry."""
    inner, shards, sizes, cuts, zones = drawn
    ns = f"diff.c{next(_names)}"
    n = len(inner) + 1
    bounds = [{"x": MinKey()}, *({"x": v} for v in inner), {"x": MaxKey()}]
    handle.sandbox.cluster.create_collection(
        ns, {"x": 1}, bounds=bounds, shards=shards[:n],
        sizes=[s * MIB for s in sizes[:n]], counts=[100] * n,
    )  # fmt: skip
    if not cuts:
        return ns, f"  {ns}: {{key: {{x: 1}}, pin: {zones[0]}}}\n"
    points = [-1, *(c for c in cuts if c not in (-1, 31)), 31]
    ranges = "".join(
        f"      - {{zone: {zones[i]}, min: {{x: {_yaml(lo)}}}, max: {{x: {_yaml(hi)}}}}}\n"
        for i, (lo, hi) in enumerate(itertools.pairwise(points))
        if i % 2 == 0 or len(points) == 2  # every other span: gaps stay unzoned
    )
    return ns, f"  {ns}:\n    key: {{x: 1}}\n    ranges:\n{ranges}"


def _yaml(v: int) -> str:
    return "{$minKey: 1}" if v == -1 else "{$maxKey: 1}" if v == 31 else str(v)


def _expected(conn: Connection, handle: Any, op: dict[str, Any]) -> Impact:
    """The op's impact over every chunk of its namespace, sized by a fresh ChunkSizes."""
    args = json_util.loads(json.dumps(op["args"]))
    ns = args["ns"]
    adds = op["kind"].startswith("assign")
    change = RangeChange(ns, args["zone"], args["min"], args["max"], adds)
    every = list(handle.client.config.chunks.find({"uuid": _uuid(handle, ns)}))
    sizes = ChunkSizes(conn, max_measured=0)
    shards = sorted(SHARDS)

    def size_of(lo: Any, hi: Any, shard: str, share: float) -> int:
        return int(sizes.estimate(ns, shard, shards)[0] * share)

    holders = frozenset(s for s, z in SHARDS.items() if z == change.zone)
    return estimate_impact(change, every, holders, 0, size_of)


def _uuid(handle: Any, ns: str) -> Any:
    return handle.client.config.collections.find_one({"_id": ns})["uuid"]


@settings(max_examples=25, deadline=None)
@given(version=st.sampled_from(["5.0", "7.0"]), drawn=st.lists(_namespace, min_size=1, max_size=3))
def test_plan_impacts_equal_counting_every_chunk(
    servers: dict[str, tuple[Any, Connection]], tmp_path_factory: Any, version: str, drawn: Any
) -> None:
    handle, conn = servers[version]
    made = [_make(handle, d) for d in drawn]
    policy = tmp_path_factory.mktemp("p") / "policy.yaml"
    policy.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
        "shards: {fast-0: [hot], fast-1: [hot], std-0: [archive], std-1: [archive]}\n"
        "collections:\n" + "".join(entry for _, entry in made),
        encoding="utf-8",
    )
    args = ["plan", str(policy), "--uri", handle.uri, "--at", AT, "-f", "json"]
    result = CliRunner().invoke(app, [*args, "--measure-chunks", "0"], catch_exceptions=False)
    assert result.exit_code == 0, result.stderr
    ops = [op for op in json.loads(result.stdout)["ops"] if "impact" in op]
    assert {op["args"]["ns"] for op in ops} <= {ns for ns, _ in made}
    for op in ops:
        assert Impact(**op["impact"]) == _expected(conn, handle, op), op["description"]
