"""Metrics through the CLI against the firehose sandbox over TCP: every documented metric
appears in real output, the values follow the cluster, and `--metrics-file` records runs
(atomically, carrying the last success over a failure, without writing to the cluster)."""

from __future__ import annotations

import contextlib
import datetime as dt
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import child_procs
import pytest
from metrics_kit import names, promtool, samples, value
from rotate_kit import POLICY, Firehose, zonectl

from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease
from zonectl.render.metrics import HELP

AT = "2026-03-02T00:05:00Z"
AT2 = "2026-03-02T00:15:00Z"
DAY3 = dt.datetime(2026, 3, 3, tzinfo=dt.UTC).timestamp()
FORECAST = "zonectl_namespace_compliance_forecast_timestamp_seconds"
RUN = {n for n in HELP if n.startswith("zonectl_run_")}
# Only while a reshardCollection runs (tests/reshard/test_status_and_recover.py).
RESHARDING = {n for n in HELP if n.startswith("zonectl_resharding_")}
# Only when the policy names a balancer setting (tests/balancer_settings/test_status.py).
SETTINGS = {"zonectl_balancer_setting_drift"}
# Only while a shard is being drained (tests/shards_views/test_metrics.py).
DRAINING = {n for n in HELP if n.startswith("zonectl_shard_draining_")}


def _hold_lease_and_leave_a_journal(fh: Firehose, acquired: dt.datetime) -> None:
    """Another run's lease (taken an hour before `acquired` + 1 h) and its open journal
    with a pause never restored, written with zonectl's own store classes."""
    lease = MongoLease(fh.client, "zonectl")
    lease.acquire(
        {
            "token": "other",
            "owner": "cron@ops-3",
            "operation": "apply",
            "acquired": acquired,
            "expires": acquired + dt.timedelta(days=3650),
        },
        now=acquired,
        may_take=lambda _: False,
    )
    journal = MongoJournal(fh.client, "zonectl")
    journal.open({"_id": "a1", "state": "open", "started": acquired, "ops": []})
    journal.event("a1", {"type": "pause", "scope": "collection", "ns": "app.events"})


def test_status_and_the_metrics_file_expose_every_documented_metric(
    make_firehose: Any, tmp_path: Path
) -> None:
    fh = make_firehose("6.0")  # 6.0: config.migrations and $shardedDataDistribution exist
    assert fh.rotate("--at", AT, "--yes").code == 0  # an audit record: a last rotation
    frozen = dt.datetime.now(dt.UTC)
    fh.sandbox.clock.set(frozen)  # frozen: the migrations stay in flight
    fh.sandbox.balancer.run_round()  # migrations off the hot shard start
    # an hour before the cluster's (frozen) clock, which the lease's age is measured by
    _hold_lease_and_leave_a_journal(fh, frozen - dt.timedelta(hours=1))
    prom = tmp_path / "zonectl.prom"
    r = zonectl(
        "status",
        str(POLICY),
        "--uri",
        fh.uri,
        "--format",
        "openmetrics",
        "--metrics-file",
        str(prom),
    )
    assert r.code == 0, r.err
    assert r.out.endswith("# EOF\n")
    assert names(r.out) == set(HELP) - RUN - RESHARDING - SETTINGS - DRAINING
    assert names(prom.read_text()) == set(HELP) - RESHARDING - SETTINGS - DRAINING
    # chunks off the hot window still sit on the hot shard: the balancer will move them later
    assert _ns(r.out, fh, "namespace_compliance_forecast_timestamp_seconds", "app.events") > (
        fh.sandbox.clock.now().timestamp()
    )
    assert _ns(r.out, fh, "namespace_migrations_in_flight", "app.clicks") == 1
    assert value(r.out, "zonectl_lease_held", cluster=_label(fh)) == 1
    age = value(r.out, "zonectl_lease_age_seconds", cluster=_label(fh))
    assert age is not None and 3600 <= age < 3600 + 600
    assert value(r.out, "zonectl_unfinished_journals", cluster=_label(fh)) == 1
    assert value(r.out, "zonectl_unrestored_pauses", cluster=_label(fh)) == 1


def _label(fh: Firehose) -> str:
    return fh.uri.split("://", 1)[1].split("/", 1)[0].split("?", 1)[0]


def _ns(text: str, fh: Firehose, name: str, ns: str) -> float | None:
    return value(text, f"zonectl_{name}", cluster=_label(fh), namespace=ns)


class _Span:
    """This host's wall clock before and after a run (`_wall`): a run's own timestamp
    lies within it, whatever --at the run was given."""

    def __init__(self) -> None:
        self.start = self.end = dt.datetime.now(dt.UTC).timestamp()

    def holds(self, stamp: float | None) -> bool:
        return stamp is not None and self.start - 0.001 <= stamp <= self.end + 0.001


@contextlib.contextmanager
def _wall() -> Iterator[_Span]:
    span = _Span()
    yield span
    span.end = dt.datetime.now(dt.UTC).timestamp()


def _run(text: str, fh: Firehose, name: str) -> float | None:
    return value(text, f"zonectl_run_{name}", cluster=_label(fh), command="rotate")


def test_every_metric_has_help_and_type_and_names_carry_their_unit() -> None:
    for name, text in HELP.items():
        assert name.startswith("zonectl_") and text.strip()
        assert not name.endswith("_total"), "every zonectl metric is a gauge"
        if "timestamp" in name:
            assert name.endswith("_timestamp_seconds")
        if name.endswith(("_age_seconds", "_bytes")):
            assert "seconds" in name or "bytes" in name


def test_openmetrics_output_parses_with_the_reference_parser(make_firehose: Any) -> None:
    parser = pytest.importorskip(
        "prometheus_client.openmetrics.parser", reason="prometheus-client (test extra) absent"
    )
    fh = make_firehose()
    r = zonectl("status", str(POLICY), "--uri", fh.uri, "--format", "openmetrics")
    assert r.code == 0, r.err
    families = {f.name: f for f in parser.text_string_to_metric_families(r.out)}
    assert set(families) == names(r.out)
    assert all(f.type == "gauge" for f in families.values())


def test_promtool_accepts_the_textfile(make_firehose: Any, tmp_path: Path) -> None:
    tool = promtool()
    if tool is None:
        pytest.skip("promtool absent (.ci/run extracts it from Debian's prometheus package)")

    fh = make_firehose()
    prom = tmp_path / "zonectl.prom"
    assert fh.rotate("--at", AT, "--yes", "--metrics-file", str(prom)).code == 0
    done = child_procs.run(
        [tool, "check", "metrics"], input=prom.read_bytes(), capture_output=True, timeout=60
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.strip() == b"", done.stdout  # no lint remarks either


def test_rotate_writes_the_run_and_the_windows_it_left_in_place(
    make_firehose: Any, tmp_path: Path
) -> None:
    fh = make_firehose()
    prom = tmp_path / "zonectl.prom"
    with _wall() as ran:
        r = fh.rotate("--at", AT, "--yes", "--metrics-file", str(prom))
    assert r.code == 0, r.err
    text = prom.read_text()
    cl = _label(fh)
    assert _run(text, fh, "exit_code") == 0
    # the run's own time, not --at's: Prometheus ages it against its time()
    assert ran.holds(_run(text, fh, "last_success_timestamp_seconds"))
    assert ran.holds(_run(text, fh, "last_timestamp_seconds"))
    # read now, whatever instant its figures are at: ZonectlMetricsStale ages it
    assert ran.holds(value(text, "zonectl_read_timestamp_seconds", cluster=_label(fh)))
    for ns in ("app.events", "app.clicks"):
        assert _ns(text, fh, "window_pending_ops", ns) == 0
        assert _ns(text, fh, "window_next_due_timestamp_seconds", ns) == DAY3
        moved = _ns(text, fh, "window_last_rotation_timestamp_seconds", ns)
        audit = fh.client.zonectl.audit.find_one({"operation": "rotate"})
        assert moved == pytest.approx(audit["ended"].timestamp(), abs=0.001)
    assert _ns(text, fh, "namespace_chunks", "app.events") == 29
    assert value(text, "zonectl_pending_ops", cluster=cl) == 0
    assert not [p.name for p in tmp_path.iterdir() if p.name != "zonectl.prom"]  # no temp left
    assert prom.stat().st_mode & 0o777 == 0o644


def test_a_rotate_with_nothing_due_sends_no_write_and_still_records_its_success(
    make_firehose: Any, tmp_path: Path
) -> None:
    fh = make_firehose()
    prom = tmp_path / "zonectl.prom"
    assert fh.rotate("--at", AT, "--yes", "--metrics-file", str(prom)).code == 0
    fh.sent.clear()
    with _wall() as ran:
        r = fh.rotate("--at", AT2, "--yes", "--metrics-file", str(prom))
    assert (r.code, r.out) == (0, "")
    assert fh.writes() == []
    assert ran.holds(_run(prom.read_text(), fh, "last_success_timestamp_seconds"))


def test_a_failed_rotate_records_its_exit_code_and_keeps_the_previous_success(
    make_firehose: Any, tmp_path: Path
) -> None:
    fh = make_firehose()
    prom = tmp_path / "zonectl.prom"
    with _wall() as succeeded:
        assert fh.rotate("--at", AT, "--yes", "--metrics-file", str(prom)).code == 0
    now = dt.datetime.now(dt.UTC)
    MongoLease(fh.client, "zonectl").acquire(
        {
            "token": "other",
            "owner": "x@y",
            "operation": "apply",
            "acquired": now,
            "expires": now + dt.timedelta(days=3650),
        },
        now=now,
        may_take=lambda _: False,
    )
    with _wall() as failed:
        r = fh.rotate("--at", "2026-03-03T00:05:00Z", "--yes", "--metrics-file", str(prom))
    assert r.code == 1 and "lease held" in r.err
    text = prom.read_text()
    assert _run(text, fh, "exit_code") == 1
    assert failed.holds(_run(text, fh, "last_timestamp_seconds"))
    # the cluster was not read: no read time for ZonectlMetricsStale to take as fresh
    assert value(text, "zonectl_read_timestamp_seconds", cluster=_label(fh)) is None
    assert succeeded.holds(_run(text, fh, "last_success_timestamp_seconds"))


def test_status_counts_drift_only_when_given_a_policy(make_firehose: Any) -> None:
    fh = make_firehose()
    r = zonectl("status", "--uri", fh.uri, "--format", "openmetrics")
    assert r.code == 0, r.err
    assert not {n for n in names(r.out) if "pending" in n or n.startswith("zonectl_window_")}
    plan = zonectl("plan", str(POLICY), "--uri", fh.uri, "--format", "json")
    import json

    ops = json.loads(plan.out)["ops"]
    r = zonectl("status", str(POLICY), "--uri", fh.uri, "--format", "openmetrics")
    drift = {k: v for k, v in samples(r.out).items() if k[0] == "zonectl_pending_ops"}
    assert sum(drift.values()) == len(ops)


def test_the_cluster_label_comes_from_zonectl_cluster_else_the_uri_hosts(
    make_firehose: Any,
) -> None:
    fh = make_firehose()
    r = zonectl("status", "--uri", fh.uri, "--format", "openmetrics")
    assert {dict(k[1]).get("cluster") for k in samples(r.out)} == {_label(fh)}
    os.environ["ZONECTL_CLUSTER"] = "eu-prod"
    try:
        r = zonectl("status", "--uri", fh.uri, "--format", "openmetrics")
    finally:
        del os.environ["ZONECTL_CLUSTER"]
    assert {dict(k[1]).get("cluster") for k in samples(r.out)} == {"eu-prod"}


def test_an_unknown_config_server_time_zone_is_a_usage_error(make_firehose: Any) -> None:
    fh = make_firehose()
    os.environ["ZONECTL_CONFIG_TIMEZONE"] = "Mars/Olympus"
    try:
        r = zonectl("status", "--uri", fh.uri, "--format", "openmetrics")
    finally:
        del os.environ["ZONECTL_CONFIG_TIMEZONE"]
    assert r.code == 2 and "Mars/Olympus" in r.err and r.out == ""


@pytest.mark.parametrize("version", ["7.0", "8.0"])
def test_from_7_0_migrations_in_flight_come_from_current_op(
    make_firehose: Any, version: str
) -> None:
    # 7.0 keeps no config.migrations: the donors' _shardsvrMoveRange ops say what moves.
    fh = make_firehose(version)
    assert fh.rotate("--at", AT, "--yes").code == 0
    idle = zonectl("status", "--uri", fh.uri, "--format", "openmetrics")
    assert _ns(idle.out, fh, "namespace_migrations_in_flight", "app.clicks") == 0
    fh.sandbox.clock.set(dt.datetime.now(dt.UTC))  # frozen: the migrations stay in flight
    fh.sandbox.balancer.run_round()
    assert fh.client.config.migrations.count_documents({}) == 0
    donors = list(
        fh.client.admin.aggregate(
            [{"$currentOp": {"allUsers": True}}, {"$match": {"desc": "MoveChunk"}}]
        )
    )
    assert [op["msg"] for op in donors] == ["step 3 of 6"]
    r = zonectl("status", "--uri", fh.uri, "--format", "openmetrics")
    assert r.code == 0, r.err
    assert _ns(r.out, fh, "namespace_migrations_in_flight", "app.clicks") == 1


def test_an_unwritable_metrics_file_is_a_warning_not_a_failure(
    make_firehose: Any, tmp_path: Path
) -> None:
    fh = make_firehose()
    target = tmp_path / "missing-dir" / "zonectl.prom"
    r = fh.rotate("--at", AT, "--yes", "--metrics-file", str(target))
    assert r.code == 0
    assert "metrics file" in r.err and "not written" in r.err


def test_apply_writes_its_run_and_the_drift_it_left(make_firehose: Any, tmp_path: Path) -> None:
    fh = make_firehose()
    prom = tmp_path / "apply.prom"
    r = zonectl("apply", str(POLICY), "--uri", fh.uri, "--yes", "--metrics-file", str(prom))
    assert r.code == 0, r.err
    text = prom.read_text()
    labels = {"cluster": _label(fh), "command": "apply"}
    assert value(text, "zonectl_run_exit_code", **labels) == 0
    assert value(text, "zonectl_run_last_success_timestamp_seconds", **labels) is not None
    assert {"zonectl_pending_ops", "zonectl_window_pending_ops"} <= names(text)


def test_an_invalid_policy_is_recorded_as_exit_3(make_firehose: Any, tmp_path: Path) -> None:
    fh = make_firehose()
    bad = tmp_path / "bad.yaml"
    bad.write_text(POLICY.read_text().replace("keep: 1", "keep: nope", 1))
    prom = tmp_path / "zonectl.prom"
    r = zonectl("status", str(bad), "--uri", fh.uri, "--metrics-file", str(prom))
    assert r.code == 3
    text = prom.read_text()
    labels = {"cluster": _label(fh), "command": "status"}
    assert value(text, "zonectl_run_exit_code", **labels) == 3
    assert value(text, "zonectl_run_last_success_timestamp_seconds", **labels) is None


@pytest.mark.parametrize("version", ["6.0", "7.0"])
def test_a_monitoring_user_gets_the_metrics_and_no_credential_appears(
    sandbox_server: Any, tmp_path: Path, version: str
) -> None:
    from zonectl.sandbox.seed import build as seed
    from zonectl.sandbox.state import Sandbox

    cluster = Path(__file__).resolve().parents[1] / "apply" / "fixtures" / "cluster.yaml"
    spec = seed.load(cluster)
    sb = Sandbox(version, auth=seed.auth_config(spec))
    seed.seed(sb, spec, str(cluster))
    handle = sandbox_server(sandbox=sb, client_options={"username": "ops", "password": "s3cr3t-pw"})
    uri = handle.uri.replace("mongodb://", "mongodb://viewer:v13w3r-pw@")  # clusterMonitor
    prom = tmp_path / "zonectl.prom"
    r = zonectl("status", "--uri", uri, "--format", "openmetrics", "--metrics-file", str(prom))
    assert r.code == 0, r.err
    for text in (r.out, r.err, prom.read_text()):
        assert "v13w3r-pw" not in text and "viewer" not in text
    assert "zonectl_namespace_out_of_zone_chunks" in names(r.out)
    # config.migrations (6.0) or $currentOp with allUsers, whose `inprog` it has (7.0)
    assert "zonectl_namespace_migrations_in_flight" in names(r.out)
    # clusterMonitor may not read zonectl's database: the lease is unknown, not "free"
    assert not {"zonectl_lease_held", "zonectl_unfinished_journals"} & names(r.out)
