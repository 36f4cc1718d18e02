"""Plan's cluster rules: ZA201 (a new range strands a jumbo chunk) and ZA202 (a change that
migrates most of a collection), as plan warnings and as GitHub annotations."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from tests.analyze.kit import SHARDS, serve_cluster
from zonectl.cli.app import app

CLUSTER = (
    SHARDS
    + """
collections:
  - ns: app.c
    key: {x: 1}
    chunks: 8
    keys: {type: int, start: 0, step: 1000}
    distribution: all-on-one
    shard: s0
    jumbo: {jumbo}
"""
)
POLICY = """
apiVersion: zonectl/v1
kind: ZonePolicy
shards: {s0: [a], s1: [a], s2: [b]}
collections:
  app.c:
    key: {x: 1}
    ranges:
      - {zone: b, min: {x: {lo}}, max: {x: {hi}}}
"""


def _plan(uri: str, tmp_path: Path, lo: int, hi: int, *extra: str) -> tuple[int, str, str]:
    path = tmp_path / "policy.yaml"
    path.write_text(POLICY.replace("{lo}", str(lo)).replace("{hi}", str(hi)), encoding="utf-8")
    result = CliRunner().invoke(app, ["plan", str(path), "--uri", uri, *extra])
    return result.exit_code, result.stdout, result.stderr


def test_a_range_over_a_jumbo_chunk_outside_its_zone_warns(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER.replace("{jumbo}", "[2]"))
    code, _, err = _plan(handle.uri, tmp_path, 2000, 3000)
    assert code == 0, err
    assert "ZA201 range-strands-jumbo-chunk" in err
    assert "policy.yaml:6:3:" in err  # the collection's place in the policy


def test_a_range_crossing_a_jumbo_chunk_warns(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER.replace("{jumbo}", "[2]"))
    _, _, err = _plan(handle.uri, tmp_path, 2500, 2600)
    assert "ZA201" in err and "crosses the new bound { x: 2500 }" in err


def test_a_range_away_from_jumbo_chunks_raises_no_za201(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER.replace("{jumbo}", "[2]"))
    _, _, err = _plan(handle.uri, tmp_path, 5000, 6000)
    assert "ZA201" not in err


def test_a_range_moving_most_of_a_collection_warns(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER.replace("{jumbo}", "[]"))
    _, _, err = _plan(handle.uri, tmp_path, 0, 7000)
    assert "ZA202 change-moves-most-of-collection" in err
    assert "migrate 7 of app.c's 8 chunks (88%)" in err


def test_a_small_range_raises_no_za202(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER.replace("{jumbo}", "[]"))
    _, _, err = _plan(handle.uri, tmp_path, 1000, 2000)
    assert "ZA202" not in err


def test_github_format_annotates_the_warnings_at_the_policy(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_cluster(sandbox_server, CLUSTER.replace("{jumbo}", "[]"))
    code, out, err = _plan(handle.uri, tmp_path, 0, 7000, "--format", "github")
    assert code == 0, err
    lines = [line for line in out.splitlines() if "ZA202" in line]
    assert len(lines) == 1
    assert lines[0].startswith(
        f"::warning file={tmp_path / 'policy.yaml'},line=6,col=3,title=ZA202::"
    )
    assert "1 to add, 0 to remove" in err  # the plan itself goes to stderr
