"""A twin of a sandbox whose copy rate zonectl is not told (its migrations are in
config.changelog) plans the same ops and rehearses `apply --migrate` within 20 % of the real
run's simulated time; capture leaves every config document as it was."""

from __future__ import annotations

from pathlib import Path

from twin_util import NEXT, POLICY, SLOW, config_docs, forecast, ops, run

from zonectl.sandbox import uri as sandbox_uri


def _span(sandbox_uri_text: str, before: set[object]) -> float:
    with sandbox_uri.start(sandbox_uri_text) as handle:
        log = [d for d in handle.sandbox.cluster.coll("config.changelog") if d["_id"] not in before]
    starts = [d["time"] for d in log if d["what"] == "moveChunk.start"]
    ends = [d["time"] for d in log if d["what"] == "moveChunk.from"]
    return (max(ends) - min(starts)).total_seconds()


def _ids(uri: str) -> set[object]:
    with sandbox_uri.start(uri) as handle:
        return {d["_id"] for d in handle.sandbox.cluster.coll("config.changelog")}


def test_a_twin_plans_the_same_and_rehearses_within_20_percent(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(SLOW)
    (tmp_path / "first.yaml").write_text(POLICY)
    (tmp_path / "next.yaml").write_text(NEXT)
    real = f"sandbox:{tmp_path / 'cluster.yaml'}?state={tmp_path / 'real.state'}"
    assert (
        run("apply", str(tmp_path / "first.yaml"), "--uri", real, "--yes", "--migrate").exit_code
        == 0
    )
    twin = tmp_path / "prod.twin.yaml"
    with sandbox_uri.start(real) as handle:
        before = config_docs(handle.sandbox)
        out = run("twin", "--uri", handle.uri, "-o", str(twin))
        assert out.exit_code == 0, out.output
        assert config_docs(handle.sandbox) == before  # read-only
    text = twin.read_text()
    assert "learned from 12 migrations in config.changelog" in text
    side = (tmp_path / "prod.twin.chunks.bson").read_bytes()
    with sandbox_uri.start(real) as handle:  # what a host looks like in this cluster
        hosts = [str(s["host"]) for s in handle.sandbox.cluster.shard_docs()]
        servers = {str(d.get("server")) for d in handle.sandbox.cluster.coll("config.changelog")}
    for host in [*hosts, *servers]:
        assert host not in text and host.encode() not in side  # no hosts
    twin_uri = f"sandbox:{twin}?state={tmp_path / 'twin.state'}"
    nxt = str(tmp_path / "next.yaml")
    assert ops(nxt, twin_uri) == ops(nxt, real)
    # The twin carries the migrations its costs came from: its forecast learns the same.
    fore = {name: forecast(nxt, uri) for name, uri in (("real", real), ("twin", twin_uri))}
    assert fore["twin"]["cost"]["source"] == fore["real"]["cost"]["source"] == "learned"
    assert fore["twin"]["cost"]["history"]["migrations"] == 12
    # Sizes are estimated from $shardedDataDistribution (avgObjSize x documents): the same
    # to a ten-thousandth, not to the byte (`--measure` reads each chunk's dataSize).
    want = fore["real"]["migrate"]["seconds"]
    assert want > 0 and abs(fore["twin"]["migrate"]["seconds"] / want - 1) < 1e-4
    took = {}
    for name, uri in (("real", real), ("twin", twin_uri)):
        seen = _ids(uri)
        assert run("apply", nxt, "--uri", uri, "--yes", "--migrate").exit_code == 0
        took[name] = _span(uri, seen)
    assert took["real"] > 0
    assert abs(took["twin"] / took["real"] - 1) <= 0.20, took
