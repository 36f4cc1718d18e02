"""`zonectl analyze` reads the workload (7.0+): figures of the read/write distribution, the
rules ZA121-ZA124 each triggered and silent, and `--candidate`; through the CLI against a
sandbox whose cluster file runs a query mix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.analyze.kit import SHARDS, analyze, rules
from tests.sampling.kit import serve_with_workload, step


def _cluster(shapes: str, *, sampled: bool = True, chunks: int = 100) -> str:
    analyzer = "    queryAnalyzer: {samplesPerSecond: 20}\n" if sampled else ""
    return (
        SHARDS
        + f"""
collections:
  - ns: app.s
    key: {{userId: 1}}
    chunks: {chunks}
    keys: {{type: int, start: 0, step: 1000}}
{analyzer}    workload:
"""
        + "".join(f"      - {s}\n" for s in shapes.strip().splitlines())
        + ("" if shapes.strip() else "      []\n")
        + "workload: {warmup: 5m}\n"
    )


OFF_KEY = """
{match: field, field: sessionId, rate: 30}
{match: key, rate: 10}
"""
ON_KEY = """
{match: key, rate: 30}
{match: field, field: sessionId, rate: 5}
"""


def _figures(report: dict[str, Any], ns: str = "app.s") -> dict[str, str]:
    coll = next(c for c in report["collections"] if c["namespace"] == ns)
    return {f["name"]: f["value"] for f in coll["figures"]}


def test_mostly_off_key_reads_fire_the_scatter_gather_rule(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_with_workload(sandbox_server, _cluster(OFF_KEY))
    code, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    assert code == 0 and "ZA121" in rules(report)
    reads = _figures(report)["reads"]
    assert "scatter-gather 7" in reads and "single-shard 2" in reads  # 75% / 25% of the mix
    assert "since" in reads and "(window 5m" in reads


def test_mostly_on_key_reads_are_silent(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_with_workload(sandbox_server, _cluster(ON_KEY))
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    assert not {"ZA121", "ZA122", "ZA123", "ZA124"} & rules(report)


def test_writes_that_change_the_key_fire_their_rule(sandbox_server: Any, tmp_path: Path) -> None:
    mix = ON_KEY + "{match: key, command: update, rate: 5, changesKey: true}\n"
    handle = serve_with_workload(sandbox_server, _cluster(mix))
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    assert "ZA122" in rules(report)
    assert "shard-key updates 100.0%" in _figures(report)["writes"]
    plain = ON_KEY + "{match: key, command: update, rate: 5}\n"
    handle = serve_with_workload(sandbox_server, _cluster(plain))
    assert "ZA122" not in rules(analyze(handle.uri, tmp_path, None, "-n", "app.s")[1])


def _read_users(handle: Any, values: list[int]) -> None:
    """Reads of these userIds, ten a second of sandbox time (all within the 20/s rate)."""
    for i in range(0, len(values), 10):
        step(handle, 1)
        for value in values[i : i + 10]:
            handle.client.app.s.find_one({"userId": value})
    step(handle, 90)  # the writer flushes


def test_reads_on_a_few_values_fire_the_hot_range_rule(sandbox_server: Any, tmp_path: Path) -> None:
    spread = [(i * 7919) % 100_000 for i in range(200)]
    handle = serve_with_workload(sandbox_server, _cluster(""))
    _read_users(handle, spread)
    assert "ZA123" not in rules(analyze(handle.uri, tmp_path, None, "-n", "app.s")[1])
    _read_users(handle, [4242] * 400)
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    assert "ZA123" in rules(report)


def test_sampling_off_is_an_info_with_the_policy_line(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_with_workload(sandbox_server, _cluster(ON_KEY, sampled=False))
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    coll = report["collections"][0]
    info = next(f for f in coll["findings"] if f["rule"] == "ZA124")
    assert "`sampling: {samplesPerSecond: 5}` under `collections: app.s:`" in info["fix"]
    assert "reads" not in _figures(report)


def test_no_samples_yet_names_the_instant_sampling_started(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_with_workload(sandbox_server, _cluster(ON_KEY, sampled=False))
    handle.client.admin.command(
        {"configureQueryAnalyzer": "app.s", "mode": "full", "samplesPerSecond": 5}
    )
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    assert _figures(report)["reads"].startswith("no samples since 20")
    assert not {"ZA121", "ZA123", "ZA124"} & rules(report)


def test_a_candidate_key_makes_the_off_key_reads_single_shard(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve_with_workload(sandbox_server, _cluster(OFF_KEY))
    code, report, _ = analyze(
        handle.uri, tmp_path, None, "-n", "app.s", "--candidate", "{sessionId: 1}"
    )
    assert code == 0
    coll = report["collections"][0]
    live, candidate = coll["candidates"]
    assert live["live"] and live["key"] == "{userId: 1}"
    figures = {f["name"]: f["value"] for f in candidate["figures"]}
    assert "no index supports this key" in figures["characteristics"]
    assert "single-shard 7" in figures["reads"]
    assert coll["best_key"] == "key: {sessionId: 1}"


def test_a_candidate_with_bad_syntax_is_a_usage_error(tmp_path: Path) -> None:
    for bad in ("{sessionId: ", "{sessionId: -1}", "[a]"):
        code, _, err = analyze("sandbox:", tmp_path, None, "-n", "app.s", "--candidate", bad)
        assert code == 2 and "--candidate" in err
    code, _, err = analyze("sandbox:", tmp_path, None, "--candidate", "{a: 1}")
    assert code == 2 and "--namespace" in err


def test_before_7_0_there_is_no_workload_section(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve_with_workload(sandbox_server, _cluster(OFF_KEY), version="6.0")
    _, report, _ = analyze(handle.uri, tmp_path, None, "-n", "app.s")
    assert not {"ZA121", "ZA124"} & rules(report)
    assert "query sampling" not in _figures(report)


def test_without_analyze_shard_key_analyze_degrades_to_what_it_may_read(
    sandbox_server: Any, tmp_path: Path
) -> None:
    from zonectl.sandbox.auth.users import AuthConfig, User
    from zonectl.sandbox.seed import workload
    from zonectl.sandbox.seed.build import seed
    from zonectl.sandbox.seed.schema import load_cluster_file
    from zonectl.sandbox.state import Sandbox

    auth = AuthConfig(users=[User("monitor", "admin", "pw", ("clusterMonitor",))])
    sandbox = Sandbox("7.0", auth=auth)
    spec = load_cluster_file("cluster.yaml", _cluster(OFF_KEY))
    seed(sandbox, spec, "cluster.yaml")
    workload.attach(sandbox, spec, seeded=True, source="cluster.yaml")
    handle = sandbox_server(
        "7.0", sandbox=sandbox, client_options={"username": "monitor", "password": "pw"}
    )
    uri = handle.uri.replace("mongodb://", "mongodb://monitor:pw@")
    code, report, _ = analyze(uri, tmp_path, None, "-n", "app.s")
    assert code == 0 and "ZA004" in rules(report)
    figures = _figures(report)
    assert figures["query sampling"].startswith("on at 20 samples/s") and "reads" not in figures
