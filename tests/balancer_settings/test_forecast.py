"""The forecast takes the chunk size into account and says how (issue 30 part 5): since
6.0.3 a balancer migration cuts about one chunk size off a larger chunk, so a smaller chunk
size in the plan means more migrations; secondaryThrottle is named with what is assumed."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, serve_cluster
from tests.balancer_settings.kit import cli, policy

BIG_CHUNKS = (
    SHARDS
    + """
collections:
  - {ns: app.big, key: {k: 1}, chunks: 4, keys: {type: int, start: 0, step: 1000},
     distribution: all-on-one, shard: s0, chunkSize: {bytes: 268435456, docs: 1000}}
"""
)
RANGES = (
    "shards: {s0: [a], s1: [a], s2: [b]}\ncollections:\n  app.big:\n    ranges:\n"
    "      - {zone: b, min: {k: {$minKey: 1}}, max: {k: {$maxKey: 1}}}\n"
)


def _forecast(handle: Any, path: str) -> dict[str, Any]:
    code, out, err = cli("plan", path, "--uri", handle.uri, "--format", "json")
    assert code == 0, err
    return dict(json.loads(out)["forecast"])


def test_a_smaller_chunk_size_means_more_migrations_and_the_forecast_says_so(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, BIG_CHUNKS, "7.0")
    as_is = _forecast(handle, policy(tmp_path, RANGES, "a.yaml"))
    smaller = _forecast(
        handle, policy(tmp_path, "balancer:\n  chunkSizeMB: 16\n" + RANGES, "b.yaml")
    )
    assert any("at most the chunk size (128 MB)" in n for n in as_is["notes"]), as_is["notes"]
    assert any("after this plan (16 MB)" in n for n in smaller["notes"]), smaller["notes"]
    assert smaller["balancer"]["seconds"] > as_is["balancer"]["seconds"]
    throttled = "balancer:\n  secondaryThrottle: true\n" + RANGES
    notes = _forecast(handle, policy(tmp_path, throttled, "c.yaml"))["notes"]
    assert any(n.startswith("secondaryThrottle on (this plan changes it from unset") for n in notes)
