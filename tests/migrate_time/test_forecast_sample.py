"""The balancer route's forecast with the plan's default `dataSize` sample (issue 31): a
round lasts as long as its largest migration, so chunks of skewed sizes estimated all at
their shard's average made every round too short. Through the CLI against a sandbox over
TCP: the forecast with the default sample lands near the one with every chunk measured."""

from __future__ import annotations

import json
import random
from typing import Any

from bson import MaxKey, MinKey
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

MIB = 1024 * 1024
A, B = ("s0", "s1", "s2", "s3"), ("s4", "s5", "s6", "s7")
CHUNKS = 240  # q = 60: [0, q) moves A -> B, [2q, 3q) moves B -> A; 120 migrations
# 16 chunks say the spread only roughly: over 72 seeds the default sample's forecast was
# within 7 % of the fully measured one (it was 15-26 % short with averages alone).
TOLERANCE = 0.10
MEDIAN_MIB = 64  # a quarter of the chunks at 128 MiB: sizes as a 6.0+ balancer leaves them

POLICY = """\
apiVersion: zonectl/v1
kind: ZonePolicy
balancer: {{enabled: true}}
shards: {{s0: [A], s1: [A], s2: [A], s3: [A], s4: [B], s5: [B], s6: [B], s7: [B]}}
collections:
  t.skew:
    key: {{k: 1}}
    ranges:
      - {{zone: B, min: {{k: {{$minKey: 1}}}}, max: {{k: {q}}}}}
      - {{zone: A, min: {{k: {q}}}, max: {{k: {q3}}}}}
      - {{zone: B, min: {{k: {q3}}}, max: {{k: {{$maxKey: 1}}}}}}
"""


def skewed(seed: int) -> Sandbox:
    """Zones A [MinKey, 2q) on s0-s3 and B [2q, MaxKey) on s4-s7, every chunk in its zone
    today (round robin over the zone's shards); sizes log-normal around MEDIAN_MIB,
    1-128 MiB (the chunk size of 8.0 cuts what is larger), drawn from `seed`."""
    rng = random.Random(seed)
    sb = Sandbox("8.0")
    for shard in (*A, *B):
        sb.cluster.add_shard(shard, f"{shard}/{shard}:27018", ("A",) if shard in A else ("B",))
    half = CHUNKS // 2
    owners = [A[i % 4] if i < half else B[i % 4] for i in range(CHUNKS)]
    sizes = [
        int(min(128 * MIB, max(MIB, MEDIAN_MIB * MIB * rng.lognormvariate(0, 1))))
        for _ in range(CHUNKS)
    ]
    bounds = [{"k": MinKey()}, *({"k": i} for i in range(1, CHUNKS)), {"k": MaxKey()}]
    sb.cluster.create_collection(
        "t.skew", {"k": 1}, bounds=bounds, shards=owners, sizes=sizes, counts=[1000] * CHUNKS
    )
    return sb


def zoned_in_halves(sb: Any) -> None:
    """Zone A over the lower half of t.skew's keys, zone B over the upper half."""
    for zone, lo, hi in (("A", MinKey(), CHUNKS // 2), ("B", CHUNKS // 2, MaxKey())):
        sb.client.admin.command(
            {"updateZoneKeyRange": "t.skew", "min": {"k": lo}, "max": {"k": hi}, "zone": zone}
        )


def plan(uri: str, policy: str, *flags: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        app,
        ["plan", policy, "--uri", uri, "-f", "json", "--copy-rate", "16MiB/s", *flags],
        catch_exceptions=False,
    )
    assert result.exit_code == 0, result.stderr
    doc: dict[str, Any] = json.loads(result.stdout)
    return doc


@settings(
    max_examples=3,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(seed=st.integers(0, 2**16))
def test_the_balancer_forecast_of_skewed_chunks_with_the_default_sample_is_near_the_measured_one(
    module_sandbox_server: Any, tmp_path_factory: Any, seed: int
) -> None:
    sb = module_sandbox_server(sandbox=skewed(seed))
    zoned_in_halves(sb)
    policy = tmp_path_factory.mktemp("sample") / "policy.yaml"
    q = CHUNKS // 4
    policy.write_text(POLICY.format(q=q, q3=3 * q), encoding="utf-8")
    sampled = plan(sb.uri, str(policy))
    full = plan(sb.uri, str(policy), "--measure-chunks", str(CHUNKS))
    stated = sampled["server_footprint"]["chunk_sizes"]
    assert stated["measured"] == stated["measure_budget"] < stated["estimated"]
    assert stated["estimates_spread_like_measured"] == stated["measured"]
    assert full["server_footprint"]["chunk_sizes"]["estimated"] == 0
    assert sampled["forecast"]["chunks"] == full["forecast"]["chunks"] == 2 * q
    # the estimates keep the statistics' bytes; only their split over chunks is drawn
    assert sampled["forecast"]["bytes"] == sum(
        op["impact"]["bytes"] for op in sampled["ops"] if op.get("impact")
    )
    got, want = sampled["forecast"]["balancer"]["seconds"], full["forecast"]["balancer"]["seconds"]
    assert abs(got / want - 1) <= TOLERANCE, (got, want)
