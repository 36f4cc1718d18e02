"""The forecast learns the cluster's speed from config.changelog: with history it says it
learned the rate and from what, and forecasts the next change within 15 % of what the
sandbox then does, though the sandbox's costs (fixed steps, per-shard rates) are its own;
with none it says the rate is assumed and how to teach it; --copy-rate overrides; a user
who may not read the changelog gets "assumed" and the missing privilege."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

from six_shards import CLUSTER, POLICY
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.mongo.changelog_read import read_learned
from zonectl.mongo.connect import connect
from zonectl.sandbox import uri as sandbox_uri

if not app.registered_commands:
    register(app)

MIB = 1024 * 1024
# The slow cold shard c2 copies at a third of the others' rate (archive disks).
SLOW = CLUSTER.replace("{name: c2, zones: [cold]}", "{name: c2, zones: [cold], copyRate: 3MiB/s}")
LOG = "config.changelog"
NEXT = POLICY.replace("1300", "2000")  # seven more chunks belong to cold


def run(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _setup(tmp_path: Path, cluster: str = SLOW) -> tuple[str, str, str]:
    (tmp_path / "cluster.yaml").write_text(cluster)
    (tmp_path / "first.yaml").write_text(POLICY)
    (tmp_path / "next.yaml").write_text(NEXT)
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}?state={tmp_path / 'state.json'}"
    return str(tmp_path / "first.yaml"), str(tmp_path / "next.yaml"), uri


def _changelog(uri: str) -> dict[Any, tuple[dt.datetime, str]]:
    with sandbox_uri.start(uri) as handle:
        return {d["_id"]: (d["time"], d["what"]) for d in handle.sandbox.cluster.coll(LOG)}


def _span(entries: list[tuple[dt.datetime, str]]) -> float:
    """Simulated seconds from the first moveChunk.start to the last moveChunk.from."""
    starts = [t for t, what in entries if what == "moveChunk.start"]
    ends = [t for t, what in entries if what == "moveChunk.from"]
    return (max(ends) - min(starts)).total_seconds()


def test_with_history_the_forecast_says_what_it_learned_and_comes_within_15_percent(
    tmp_path: Path,
) -> None:
    first, nxt, uri = _setup(tmp_path)
    assert run("apply", first, "--uri", uri, "--yes", "--migrate").exit_code == 0
    text = run("plan", nxt, "--uri", uri)
    assert "cost: learned from 12 migrations in config.changelog" in text.stdout
    doc = json.loads(run("plan", nxt, "--uri", uri, "-f", "json").stdout)["forecast"]
    cost = doc["cost"]
    assert cost["source"] == "learned" and cost["history"]["migrations"] == 12
    assert cost["shard_rates_bytes_per_s"]["c2"] < 0.5 * cost["shard_rates_bytes_per_s"]["c0"]
    before = _changelog(uri)
    assert run("apply", nxt, "--uri", uri, "--yes", "--migrate").exit_code == 0
    took = _span([v for k, v in _changelog(uri).items() if k not in before])
    assert abs(doc["migrate"]["seconds"] / took - 1) <= 0.15, (doc["migrate"], took)


def test_with_no_history_the_rate_is_assumed_and_the_plan_says_how_to_teach_it(
    tmp_path: Path,
) -> None:
    first, _, uri = _setup(tmp_path)
    text = run("plan", first, "--uri", uri)
    assert "cost: assumed 1.0 s fixed + bytes at 64.0 MiB/s per migration" in text.stdout
    assert "no migrations in config.changelog" in text.stdout
    assert "run `zonectl doctor --probe --teach-rate`" in text.stdout
    assert "a first small `zonectl apply --migrate`" in text.stdout
    md = run("plan", first, "--uri", uri, "-f", "markdown")
    assert "Cost: assumed 1.0 s fixed" in md.stdout
    doc = json.loads(run("plan", first, "--uri", uri, "-f", "json").stdout)["forecast"]
    assert doc["cost"]["source"] == "assumed" and doc["cost"]["history"]["migrations"] == 0


def test_copy_rate_overrides_the_learned_rate_and_keeps_the_learned_fixed_part(
    tmp_path: Path,
) -> None:
    first, nxt, uri = _setup(tmp_path)
    assert run("apply", first, "--uri", uri, "--yes", "--migrate").exit_code == 0
    doc = json.loads(
        run("plan", nxt, "--uri", uri, "-f", "json", "--copy-rate", "100MiB/s").stdout
    )["forecast"]
    assert doc["cost"]["source"] == "--copy-rate"
    assert doc["cost"]["copy_rate_bytes_per_s"] == 100 * MIB
    assert doc["cost"]["shard_rates_bytes_per_s"] == {}
    assert 0 < doc["cost"]["fixed_seconds"] <= 1.0
    text = run("plan", nxt, "--uri", uri, "--copy-rate", "100MiB/s").stdout
    assert "cost: copy rate 100.0 MiB/s per migration (--copy-rate), learned fixed part" in text


def test_bad_changelog_entries_are_ignored_and_counted_in_the_learned_from_line(
    tmp_path: Path,
) -> None:
    first, nxt, uri = _setup(tmp_path)
    assert run("apply", first, "--uri", uri, "--yes", "--migrate").exit_code == 0
    with sandbox_uri.start(uri) as handle:
        cluster = handle.sandbox.cluster
        frm = next(d for d in cluster.coll("config.changelog") if d["what"] == "moveChunk.from")
        for n, details in enumerate(
            [
                {**frm["details"], "note": "aborted"},
                {**frm["details"], "step 4 of 6": -5000},
                {**frm["details"], "step 4 of 6": 90_000_000},  # 25 hours
                {**frm["details"], "step 4 of 6": "slow"},
                {k: v for k, v in frm["details"].items() if k != "from"},
            ]
        ):
            cluster.coll("config.changelog").put({**frm, "_id": f"odd-{n}", "details": details})
        cluster.coll("config.changelog").put({**frm, "_id": "odd-x", "details": "garbage"})
    text = run("plan", nxt, "--uri", uri).stdout
    assert "learned from 12 migrations in config.changelog" in text
    assert "ignored 6 entries (1 aborted, 2 absurd duration or size, 3 missing fields)" in text


def test_a_user_who_may_not_read_the_changelog_gets_assumed_and_the_privilege(
    tmp_path: Path,
) -> None:
    path = tmp_path / "cluster.yaml"
    path.write_text(
        CLUSTER
        + "users:\n  - {user: app, pwd: app-pw, db: admin, roles: [{role: read, db: app}]}\n"
    )
    with sandbox_uri.start(f"sandbox:{path}?auth=true") as handle:
        uri = handle.uri.replace("mongodb://", "mongodb://app:app-pw@")
        with connect(uri) as conn:
            learned = read_learned(conn)
    assert learned.model is None
    assert learned.error == (
        "not allowed to read config.changelog: needs find on config.changelog "
        "(the clusterMonitor role grants it)"
    )


def test_plan_status_and_the_pr_comment_show_the_same_learned_forecast(tmp_path: Path) -> None:
    first, nxt, uri = _setup(tmp_path)
    assert run("apply", first, "--uri", uri, "--yes", "--migrate").exit_code == 0
    assert run("apply", nxt, "--uri", uri, "--yes").exit_code == 0  # ranges only: 7 chunks left
    at = ["--at", "2026-03-02T12:00:00+00:00"]
    plan = json.loads(run("plan", nxt, "--uri", uri, "-f", "json", *at).stdout)["forecast"]
    status = json.loads(run("status", "--uri", uri, "-f", "json").stdout)["forecast"]
    assert plan["cost"]["source"] == status["cost"]["source"] == "learned"
    # The same model (each sandbox: URI run resumes the saved clock, so no skew either).
    for field in ("fixed_seconds", "copy_rate_bytes_per_s", "shard_rates_bytes_per_s"):
        assert plan["cost"][field] == status["cost"][field]
    assert plan["cost"]["history"]["migrations"] == status["cost"]["history"]["migrations"]
    assert plan["migrate"]["seconds"] == status["migrate"]["seconds"] > 0
    comment = run("plan", nxt, "--uri", uri, "-f", "markdown", *at).stdout
    assert "Cost: learned from 12 migrations in config.changelog" in comment


def test_doctor_says_whether_forecasts_learn_or_assume(tmp_path: Path) -> None:
    first, _, uri = _setup(tmp_path)
    fresh = run("doctor", "--uri", uri)
    assert "history     0 usable migrations in config.changelog, 5 needed" in fresh.stdout
    assert run("apply", first, "--uri", uri, "--yes", "--migrate").exit_code == 0
    taught = run("doctor", "--uri", uri)
    assert "forecasts learn from 12 migrations in config.changelog" in taught.stdout
    assert "slower shards: c2 3.0 MiB/s" in taught.stdout
