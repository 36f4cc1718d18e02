"""A twin carries query sampling (config.queryAnalyzers, 7.0+): the demo policy plans the
same ops on the twin as on its source, a sampler switched off stays off with its stopTime,
a dump's queryAnalyzers are read; and `-o` naming a directory is refused with nothing
written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pymongo import MongoClient
from test_dump import _write
from twin_util import config_docs, run

from zonectl.sandbox import uri as sandbox_uri

DEMO = str(Path(__file__).resolve().parents[2] / "policies" / "demo")
NOW = "2026-03-02T10:00:00Z"
FIELDS = ("ns", "mode", "samplesPerSecond", "startTime", "stopTime")


def _ops(uri: str) -> list[dict[str, Any]]:
    out = run("plan", DEMO, "--uri", uri, "-f", "json")
    assert out.exit_code in (0, 4), out.output
    return [
        {k: op.get(k) for k in ("kind", "namespace", "args", "command")}
        for op in json.loads(out.stdout)["ops"]
    ]


def _analyzers(uri: str) -> list[dict[str, Any]]:
    with sandbox_uri.start(uri) as handle:
        client: MongoClient[dict[str, Any]] = MongoClient(handle.uri, tz_aware=True)
        docs = [
            {f: d[f] for f in FIELDS if f in d}
            for d in client.config.queryAnalyzers.find({}).sort("ns", 1)
        ]
        client.close()
    return docs


def _source(tmp_path: Path) -> str:
    """The demo at 7.0 with app.users' sampler switched off (configureQueryAnalyzer off
    keeps the document, mode off, with a stopTime)."""
    uri = f"sandbox:?version=7.0&now={NOW}&state={tmp_path / 'real.state'}"
    with sandbox_uri.start(uri) as handle:
        client: MongoClient[dict[str, Any]] = MongoClient(handle.uri)
        client.admin.command("configureQueryAnalyzer", "app.users", mode="off")
        client.close()
    return uri


def test_the_demo_policy_plans_the_same_ops_on_a_twin_of_the_demo(tmp_path: Path) -> None:
    real = _source(tmp_path)
    twin = tmp_path / "demo.twin.yaml"
    out = run("twin", "--uri", real, "-o", str(twin))
    assert out.exit_code == 0, out.output
    want = _analyzers(real)
    assert [(d["ns"], d["mode"]) for d in want] == [
        ("app.events", "full"),
        ("app.sessions", "full"),
        ("app.users", "off"),
    ]
    assert "stopTime" in want[2]
    served = f"sandbox:{twin}?now={NOW}"
    assert _analyzers(served) == want
    planned = _ops(served)
    assert planned == _ops(real)
    # The policy samples app.users at 5/s: its sampler, off on both, is switched on again.
    assert {
        "configureQueryAnalyzer": "app.users",
        "mode": "full",
        "samplesPerSecond": {"$numberDouble": "5.0"},
    } in [op["command"] for op in planned]


def test_an_anonymized_twin_keeps_sampling_under_the_new_names(tmp_path: Path) -> None:
    twin = tmp_path / "a.twin.yaml"
    assert (
        run("twin", "--uri", f"sandbox:?now={NOW}", "-o", str(twin), "--anonymize").exit_code == 0
    )
    got = _analyzers(f"sandbox:{twin}?now={NOW}")
    assert len(got) == 3 and all(d["ns"].startswith("db") for d in got)
    assert {d["samplesPerSecond"] for d in got} == {5.0}


def test_a_twin_from_a_dump_reads_its_query_analyzers(tmp_path: Path) -> None:
    real = _source(tmp_path)
    with sandbox_uri.start(real) as handle:
        docs = config_docs(handle.sandbox)
        docs["queryAnalyzers"] = [
            dict(d) for d in handle.sandbox.cluster.coll("config.queryAnalyzers")
        ]
    _write(tmp_path / "dump" / "config", docs)
    twin = tmp_path / "case.twin.yaml"
    out = run("twin", "--dump", str(tmp_path / "dump"), "-o", str(twin))
    assert out.exit_code == 0, out.output
    assert _analyzers(f"sandbox:{twin}?version=7.0&now={NOW}") == _analyzers(real)

    del docs["queryAnalyzers"]
    _write(tmp_path / "old" / "config", docs)
    out = run("twin", "--dump", str(tmp_path / "old"), "-o", str(tmp_path / "old.twin.yaml"))
    assert out.exit_code == 0, out.output
    assert "no config.queryAnalyzers in the dump: query sampling is not captured" in out.output


@pytest.mark.parametrize("which", ["yaml", "chunks"])
def test_twin_refuses_an_output_that_is_a_directory_and_writes_nothing(
    tmp_path: Path, which: str
) -> None:
    target = tmp_path / "prod"
    (target if which == "yaml" else tmp_path / "prod.chunks.bson").mkdir()
    before = sorted(p.name for p in tmp_path.iterdir())
    out = run("twin", "--uri", f"sandbox:?now={NOW}", "-o", str(target))
    assert out.exit_code == 2, out.output
    if which == "yaml":
        fix = f"e.g. -o {target / 'cluster.twin.yaml'}"
        assert f"-o {target}: is a directory; name the twin's file, {fix}" in out.output
    else:
        assert (
            f"its chunks go to {tmp_path / 'prod.chunks.bson'}, which is a directory" in out.output
        )
    assert "internal error" not in out.output
    assert sorted(p.name for p in tmp_path.iterdir()) == before
