"""Namespace patterns under `collections:`: validation, expansion against live namespaces,
overlaps, exact entries winning, and rotate placing collections created since the last run."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from unsharded_kit import home_of, ticking, zonectl

HEAD = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  s0: [hot]
  s1: [logs]
  s2: [logs]
collections:
"""
WRITES = re.compile(
    r"-> \w+: \{\"(insert|update|delete|findAndModify|moveCollection|updateZoneKeyRange|"
    r"addShardToZone|removeShardFromZone|balancerStop|balancerStart)\""
)


def _policy(tmp_path: Path, body: str) -> str:
    path = tmp_path / "policy.yaml"
    path.write_text(HEAD + body)
    return str(path)


@pytest.mark.parametrize(
    ("key", "says"),
    [
        ('"config.*"', "the config database is never managed by a pattern"),
        ('"admin.*"', "the admin database is never managed by a pattern"),
        ('"zonectl.*"', "the zonectl database is never managed by a pattern"),
        ('"logs.[abc"', "is never closed"),
        ('"logs.x[]"', "is never closed"),
        ('"lo/gs*.x"', "contains '/'"),
    ],
)
def test_bad_patterns_are_validation_errors_at_file_line_col(
    tmp_path: Path, key: str, says: str
) -> None:
    code, _, err = zonectl("validate", _policy(tmp_path, f"  {key}: {{pin: logs}}\n"))
    assert code == 3
    assert says in err
    assert "policy.yaml:8:3" in err


def test_a_pattern_naming_zonectls_own_database_from_the_environment_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ZONECTL_DATABASE", "ops")
    code, _, err = zonectl("validate", _policy(tmp_path, '  "ops.*": {pin: logs}\n'))
    assert code == 3 and "the ops database is never managed by a pattern" in err


def test_a_valid_pattern_validates(tmp_path: Path) -> None:
    code, _, err = zonectl("validate", _policy(tmp_path, '  "logs.*": {pin: logs}\n'))
    assert code == 0, err


def test_overlapping_patterns_are_refused_naming_the_namespace_and_both_positions(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    body = '  "shop.*": {pin: logs}\n  "shop.o*": {pin: hot}\n'
    code, _, err = zonectl("plan", _policy(tmp_path, body), "--uri", sb.uri)
    assert code == 1
    assert "shop.orders matches pattern 'shop.*' at" in err
    assert "policy.yaml:8:3" in err and "policy.yaml:9:3" in err


def test_an_exact_entry_wins_over_a_pattern(served: Any, tmp_path: Path) -> None:
    sb = served("8.0")
    body = '  "shop.*": {pin: logs}\n  "shop.o*": {pin: hot}\n  shop.orders: {pin: hot}\n'
    code, out, err = zonectl("plan", _policy(tmp_path, body), "--uri", sb.uri, "-f", "json")
    assert code == 0, err
    plan = json.loads(out)
    assert "shop.orders" not in plan["origins"]
    assert plan["origins"]["shop.carts"] == "shop.*"
    moved = {op["namespace"] for op in plan["ops"] if op["kind"] == "move_collection"}
    assert "shop.orders" not in moved and "shop.carts" in moved


def test_a_pattern_matching_nothing_is_fine_and_the_plan_says_so(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    code, out, _ = zonectl(
        "plan", _policy(tmp_path, '  "nothing_*.x": {pin: logs}\n'), "--uri", sb.uri
    )
    assert code == 0
    assert "pattern 'nothing_*.x' (" in out and "matches no namespace yet" in out


def test_wildcards_never_match_internal_databases_views_or_system_collections(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    sb.client.zonectl.lease.insert_one({"_id": "x"})
    code, out, err = zonectl(
        "plan", _policy(tmp_path, '  "*.*": {pin: hot}\n'), "--uri", sb.uri, "-f", "json"
    )
    assert code == 0, err
    origins = json.loads(out)["origins"]
    assert origins, "the pattern matched shop's and logs' collections"
    for ns in origins:
        db, coll = ns.split(".", 1)
        assert db not in {"admin", "config", "local", "zonectl"}
        assert not coll.startswith("system.")
    assert "shop.report_view" not in origins and "shop.metrics" not in origins


def test_rotate_places_a_collection_created_after_apply_and_then_sends_no_write(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    sb.client.logs.audit_2026_10.insert_one({"a": 1})
    policy = _policy(tmp_path, '  "logs.*": {pin: logs}\n')
    with ticking(sb.sandbox):
        code, _, err = zonectl("apply", policy, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert home_of(sb.client, "logs.audit_2026_10") in {"s1", "s2"}
    sb.client.logs.audit_2026_11.insert_one({"a": 1})  # created after apply, on s0
    assert home_of(sb.client, "logs.audit_2026_11") == "s0"
    # The sandbox's clock is frozen days behind this host's: rotate runs as of its instant.
    at = ("--at", f"{sb.sandbox.clock.now():%Y-%m-%dT%H:%M:%SZ}")
    with ticking(sb.sandbox):
        code, out, err = zonectl("rotate", policy, "--uri", sb.uri, "--yes", *at)
    assert code == 0, err
    assert "logs.audit_2026_11 (from pattern 'logs.*'): move collection" in out
    assert home_of(sb.client, "logs.audit_2026_11") in {"s1", "s2"}
    code, out, err = zonectl("rotate", policy, "--uri", sb.uri, "--yes", "-v", *at)
    assert code == 0 and out == ""
    assert "listCollections" in err  # it looked
    assert not WRITES.search(err), err


def test_plan_and_status_show_which_pattern_a_namespace_came_from(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path, '  "shop.c*": {pin: logs}\n')
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri)
    assert code == 0 and "shop.carts  (from pattern shop.c*)" in out
    code, out, _ = zonectl("status", str(policy), "--uri", sb.uri)
    assert code == 0 and "shop.carts: from pattern 'shop.c*'" in out


def test_a_pattern_window_applies_to_every_sharded_collection_it_matches(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    for tenant in ("tenant_a", "tenant_b"):
        sb.client.admin.command("shardCollection", f"{tenant}.events", key={"ts": 1, "_id": 1})
    body = (
        '  "tenant_*.events":\n'
        "    key: {ts: 1, _id: 1}\n"
        '    firehose: {field: ts, type: date, schedule: "0 0 * * *", hot: hot, cold: logs}\n'
    )
    at = "2026-11-22T12:00:00Z"
    code, out, err = zonectl("plan", _policy(tmp_path, body), "--uri", sb.uri, "--at", at)
    assert code == 0, err
    for tenant in ("tenant_a", "tenant_b"):
        assert f"{tenant}.events  (from pattern tenant_*.events)" in out
    assert out.count("zone hot") == 2 and out.count("zone logs") == 2


def test_before_8_0_a_pattern_gets_one_note_for_all_the_collections_no_zone_can_reach(
    served: Any, tmp_path: Path
) -> None:
    sb = served("7.0")
    policy = _policy(tmp_path, '  "shop.*": {pin: logs}\n')
    code, out, err = zonectl("plan", policy, "--uri", sb.uri, "-f", "json")
    assert code == 0, err
    notes = json.loads(out)["notes"]
    stuck = [n for n in notes if "no zone can reach" in n]
    assert len(stuck) == 1
    assert "from pattern 'shop.*' live outside zone logs" in stuck[0]
    assert "shop.orders" in stuck[0] and "shop.carts" in stuck[0]


TENANTS = Path(__file__).resolve().parents[2] / "policies/examples/collection-per-tenant.yaml"
TENANT_CLUSTER = """
shards:
  - {name: shard-tenant-dedicated-0, zones: [tenant-dedicated]}
  - {name: shard-tenant-pool-0, zones: [tenant-pool]}
  - {name: shard-tenant-pool-1, zones: [tenant-pool]}
databases:
  - {name: tenant_ent_acme, primary: shard-tenant-pool-0}
  - {name: tenant_ent_trial, primary: shard-tenant-dedicated-0}
  - {name: tenant_42, primary: shard-tenant-dedicated-0}
unsharded:
  - {ns: tenant_ent_acme.orders}
  - {ns: tenant_ent_trial.orders}
  - {ns: tenant_ent_trial.users}
  - {ns: tenant_42.orders}
"""


def test_the_shipped_collection_per_tenant_example_places_every_tenant(served: Any) -> None:
    sb = served("8.0", TENANT_CLUSTER)
    with ticking(sb.sandbox):
        code, _, err = zonectl("apply", str(TENANTS), "--uri", sb.uri, "--yes")
    assert code == 0, err
    pool = {"shard-tenant-pool-0", "shard-tenant-pool-1"}
    assert home_of(sb.client, "tenant_ent_acme.orders") == "shard-tenant-dedicated-0"
    assert home_of(sb.client, "tenant_ent_trial.users") == "shard-tenant-dedicated-0"
    assert home_of(sb.client, "tenant_ent_trial.orders") in pool  # the exact entry wins
    assert home_of(sb.client, "tenant_42.orders") in pool
    code, _, _ = zonectl("plan", str(TENANTS), "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0


def test_the_drift_metric_counts_what_plan_would_send_for_a_pattern_matched_namespace(
    served: Any, tmp_path: Path
) -> None:
    sb = served("8.0")
    policy = _policy(tmp_path, '  "shop.c*": {pin: logs}\n')
    code, out, _ = zonectl("plan", policy, "--uri", sb.uri, "--format", "json")
    assert code == 0
    planned = [op for op in json.loads(out)["ops"] if op.get("namespace") == "shop.carts"]
    assert planned, "the demo's shop.carts lives outside zone logs"
    code, out, _ = zonectl("status", policy, "--uri", sb.uri, "--format", "openmetrics")
    assert code == 0
    line = r'^zonectl_pending_ops\{[^}]*namespace="shop\.carts"[^}]*\} (\d+)$'
    drift = re.search(line, out, re.M)
    assert drift is not None and int(drift.group(1)) == len(planned)


def test_apply_moves_each_collection_where_the_plan_said(tmp_path: Path) -> None:
    """The shipped collection-per-day example on its own cluster file: apply sends each
    moveCollection to the shard the plan named. Its lease and journal, written in zonectl's
    own database on one shard before it re-plans, made every slice go to the other."""
    examples = TENANTS.parent
    policy = str(examples / "collection-per-day.yaml")
    cluster = examples / "clusters" / "collection-per-day.yaml"
    uri = f"sandbox:{cluster}?now=2026-11-23T17:01:00Z&state={tmp_path / 'state.json'}"
    code, out, err = zonectl("plan", policy, "--uri", uri, "--format", "json")
    assert code == 0, err
    planned = {
        op["namespace"]: op["command"]["toShard"]
        for op in json.loads(out)["ops"]
        if op["kind"] == "move_collection"
    }
    assert len(set(planned.values())) == 2  # both shards of the zone take slices
    code, out, err = zonectl("apply", policy, "--uri", uri, "--yes")
    assert code == 0, err
    moved = dict(re.findall(r"done\s+move collection (\S+) from \S+ to (\S+)", out + err))
    assert moved == planned
