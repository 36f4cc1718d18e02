"""`zonectl plan` end to end: the CLI against a sandbox served over TCP, read through real
pymongo (`--uri sandbox:CLUSTER_FILE` starts one in-process per run)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.plan.serialize import load_plan

FIXTURES = Path(__file__).resolve().parent / "fixtures"
CLUSTER = FIXTURES / "cluster.yaml"
URI = f"sandbox:{CLUSTER}"
PASSWORD = "s3cr3t-pw"

if not app.registered_commands:
    register(app)


def zonectl(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def plan(case: str, *extra: str) -> tuple[int, str, str]:
    return zonectl("plan", str(FIXTURES / case), "--uri", URI, *extra)


def test_plan_is_empty_when_the_policy_matches_the_cluster() -> None:
    code, out, _ = plan("matching", "--detailed-exitcode")
    assert code == 0
    assert "No changes: the cluster matches the policy." in out


def test_detailed_exitcode_is_4_when_changes_are_pending_and_0_without_the_flag() -> None:
    assert plan("changes", "--detailed-exitcode")[0] == 4
    assert plan("changes")[0] == 0


def test_each_kind_of_change_is_planned_in_order() -> None:
    code, out, _ = plan("changes", "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["format_version"] == 1
    assert [op["kind"] for op in doc["ops"]] == [
        "add_shard_to_zone",  # eu on shard-fast-0, before any eu range
        "remove_zone_range",  # app.audit: the whole-key archive pin goes...
        "assign_zone_range",  # ...replaced by two ranges
        "assign_zone_range",
        "assign_zone_range",  # app.users DE -> eu
        "set_collection_balancing",
    ]
    assert doc["summary"]["impact_known"] is True


def test_unmanaged_zone_is_reported_and_left_alone() -> None:
    _, out, _ = plan("changes")
    assert "zone legacy: shards shard-std-1" in out
    assert "legacy" not in "".join(line for line in out.splitlines() if line[2:3] in "+-~")


def test_markdown_output_is_a_pr_comment_with_rollback() -> None:
    code, out, _ = plan("changes", "--format", "markdown")
    assert code == 0
    assert out.startswith("## zonectl plan")
    assert "### Rollback" in out and "destructive change(s)" in out


def test_plan_time_error_exits_1_and_names_the_problems() -> None:
    code, out, err = plan("unplannable")
    assert code == 1 and out == ""
    assert "unknown shard 'shard-nope-7'" in err
    assert "zone archive would have ranges but no shard" in err


def test_invalid_policy_exits_3() -> None:
    assert plan("invalid")[0] == 3


def test_saved_plan_round_trips_and_matches_the_json_output(tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    code, out, err = plan("changes", "--save-plan", str(saved), "--format", "json")
    assert code == 0 and "saved to" in err
    loaded = load_plan(saved.read_text())
    assert saved.read_text() == out
    assert [op.kind for op in loaded.ops] == [op["kind"] for op in json.loads(out)["ops"]]


def test_credentials_are_never_printed(sandbox_server: Any, tmp_path: Path) -> None:
    from zonectl.sandbox.uri import build_sandbox, parse

    served = sandbox_server(sandbox=build_sandbox(parse(f"{URI}?auth=1")))
    port = served.port
    saved = tmp_path / "plan.json"
    runs = [
        ("--uri", f"mongodb://ops:{PASSWORD}@127.0.0.1:{port}/?authSource=admin"),
        ("--uri", f"mongodb://ops:{PASSWORD}x@127.0.0.1:{port}/?authSource=admin"),
        ("--uri", f"mongodb://ops:{PASSWORD}@127.0.0.1:1/?serverSelectionTimeoutMS=300"),
    ]
    codes, text = [], []
    for args in runs:
        code, out, err = zonectl(
            "plan", str(FIXTURES / "changes"), *args, "--save-plan", str(saved)
        )
        codes.append(code)
        text += [out, err]
    env = {"ZONECTL_URI": f"mongodb://ops:{PASSWORD}@127.0.0.1:1/?serverSelectionTimeoutMS=300"}
    code, out, err = zonectl("plan", str(FIXTURES / "changes"), env=env)
    codes.append(code)
    text += [out, err, saved.read_text()]
    assert codes == [0, 1, 1, 1]
    assert "mongodb://***@127.0.0.1" in "\n".join(text) and "ops:" not in "\n".join(text)
    assert PASSWORD not in "\n".join(text)


def test_at_must_name_its_offset() -> None:
    code, _, err = plan("matching", "--at", "2026-01-10T00:00:00")
    assert code == 2 and "no offset" in err


def test_a_shard_leaving_its_zone_says_what_will_migrate_in_the_summary(tmp_path: Path) -> None:
    """No range op carries the chunks a membership change moves (the shard's chunks of
    that zone go to the zone's other shards), so the summary line, which the PR bot puts
    first, said nothing will migrate; it now says the forecast's figure."""
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        "shards: [{name: s0, zones: [hot]}, {name: s1, zones: [hot]}, {name: s2}]\n"
        "databases: [{name: app, primary: s0}]\n"
        "collections:\n"
        "  - {ns: app.e, key: {k: 1}, chunks: 8, keys: {type: int, start: 0, step: 100},\n"
        "     distribution: listed, placement: [s0, s1, s0, s1, s0, s1, s0, s1]}\n"
        "zones: [{ns: app.e, min: {k: {$minKey: 1}}, max: {k: {$maxKey: 1}}, zone: hot}]\n"
    )
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
        "shards: {s0: [hot], s1: [], s2: []}\n"
        "collections:\n  app.e: {key: {k: 1}, pin: hot}\n"
    )
    uri = f"sandbox:{cluster}?version=7.0&now=2026-03-02T12:00:00Z"
    for fmt in ("markdown", "text"):
        code, out, err = zonectl("plan", str(policy), "--uri", uri, "-f", fmt)
        assert code == 0, err
        assert "1 shard to re-zone; ~4 chunks (~" in out and "will migrate (forecast)" in out
