"""`-n/--namespace` of plan, apply, status, rotate and analyze: a name that neither the
policy names nor the cluster has is a usage error (exit 2) naming it, with close matches;
a pattern selects, and a pattern that selects nothing is refused the same way. Through the
CLI, against the demo cluster served over TCP."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

ROOT = Path(__file__).resolve().parents[2]
DEMO = str(ROOT / "policies" / "demo")
AT = "2026-07-04T12:00:00Z"  # rotate --at: the windows' boundary never follows today

if not app.registered_commands:
    register(app)


def zonectl(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def demo(sandbox_server: Any) -> Any:
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(None), str(seed.demo_path()))
    return sandbox_server("7.0", sandbox=sandbox)


def snapshot(client: Any) -> dict[str, Any]:
    """What a write would change: zone ranges and memberships, the balancer and collection
    settings, and zonectl's own collections (lease, journal)."""

    def docs(db: str, coll: str) -> list[str]:
        return sorted(repr(sorted(d.items())) for d in client[db][coll].find({}))

    return {
        "tags": docs("config", "tags"),
        "shards": docs("config", "shards"),
        "collections": docs("config", "collections"),
        "settings": docs("config", "settings"),
        "zonectl": sorted(client.zonectl.list_collection_names()),
    }


def one_error_line(err: str) -> str:
    lines = [line for line in err.splitlines() if line.strip()]
    assert len(lines) == 1, err
    assert lines[0].startswith("zonectl: error: "), err
    assert "Traceback" not in err
    return lines[0]


def test_plan_of_an_unknown_namespace_exits_2_naming_it() -> None:
    # The command, verbatim (paths from the repository root).
    code, out, err = zonectl("plan", DEMO, "--uri", "sandbox:", "-n", "no_such_db.no_such_coll")
    assert code == 2, err
    assert out == ""
    line = one_error_line(err)
    assert "--namespace no_such_db.no_such_coll: no such namespace" in line
    assert "did you mean" not in line  # nothing close


def test_a_typo_is_not_a_passing_drift_check_and_the_close_match_is_named(demo: Any) -> None:
    code, out, err = zonectl(
        "plan", DEMO, "--uri", demo.uri, "-n", "app.nope", "--detailed-exitcode"
    )
    assert (code, out) == (2, ""), err
    assert "--namespace app.nope: no such namespace in the policy or on the cluster" in err
    code, _, err = zonectl("plan", DEMO, "--uri", demo.uri, "-n", "app.evnets")
    assert code == 2
    assert "(did you mean app.events?)" in one_error_line(err)


def test_every_unknown_name_is_named_in_the_one_line(demo: Any) -> None:
    code, _, err = zonectl(
        "plan", DEMO, "--uri", demo.uri, "-n", "app.events", "-n", "app.evnets", "-n", "x.*"
    )
    assert code == 2
    line = one_error_line(err)
    assert "--namespace app.evnets:" in line
    assert "--namespace 'x.*' matches no namespace" in line
    assert "app.events:" not in line.replace("app.events?", "")  # the good one is not named


def test_known_names_and_patterns_still_plan(demo: Any) -> None:
    code, out, err = zonectl("plan", DEMO, "--uri", demo.uri, "-n", "app.e*", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["namespaces"] == ["app.events"]
    assert {op["args"]["ns"] for op in doc["ops"] if "ns" in op["args"]} == {"app.events"}
    # on the cluster but not in the policy: known, planned as nothing, with the warning
    code, out, err = zonectl("plan", DEMO, "--uri", demo.uri, "-n", "app.sessions")
    assert code == 0, err
    assert "--namespace app.sessions: no policy manages it" in err


def test_apply_refuses_an_unknown_namespace_before_sending_anything(demo: Any) -> None:
    before = snapshot(demo.client)
    code, out, err = zonectl("apply", DEMO, "--uri", demo.uri, "-n", "app.evnets", "--yes")
    assert (code, out) == (2, "")
    assert "--namespace app.evnets: no such namespace" in one_error_line(err)
    assert snapshot(demo.client) == before  # no lease, no journal, no op


def test_apply_of_a_known_namespace_applies_it_only(demo: Any) -> None:
    code, _, err = zonectl("apply", DEMO, "--uri", demo.uri, "-n", "app.users", "--yes")
    assert code == 0, err
    zones = {d["ns"] for d in demo.client.config.tags.find({"ns": {"$ne": "app.events"}})}
    assert "app.users" in zones
    assert "app.audit" not in zones


def test_status_of_an_unknown_namespace_does_not_say_it_complies(demo: Any) -> None:
    code, out, err = zonectl("status", "--uri", demo.uri, "-n", "app.evnets")
    assert (code, out) == (2, "")
    line = one_error_line(err)
    assert "--namespace app.evnets: no such namespace on the cluster" in line
    assert "(did you mean app.events?)" in line
    code, _, err = zonectl("status", DEMO, "--uri", demo.uri, "-n", "no.where")
    assert code == 2
    assert "no such namespace in the policy or on the cluster" in err


def test_status_patterns_select_among_the_sharded_namespaces(demo: Any) -> None:
    code, out, err = zonectl("status", "--uri", demo.uri, "-n", "app.e*", "--format", "json")
    assert code == 0, err
    assert [n["namespace"] for n in json.loads(out)["namespaces"]] == ["app.events"]
    code, _, err = zonectl("status", "--uri", demo.uri, "-n", "app.zz*")
    assert code == 2
    assert "--namespace 'app.zz*' matches no namespace on the cluster" in err


def test_rotate_refuses_an_unknown_namespace_before_sending_anything(demo: Any) -> None:
    before = snapshot(demo.client)
    code, out, err = zonectl(
        "rotate", DEMO, "--uri", demo.uri, "--at", AT, "-n", "app.evnets", "--yes"
    )
    assert (code, out) == (2, "")
    assert "(did you mean app.events?)" in one_error_line(err)
    assert snapshot(demo.client) == before


def test_rotate_of_a_named_namespace_rotates_it(demo: Any) -> None:
    code, out, err = zonectl(
        "rotate", DEMO, "--uri", demo.uri, "--at", AT, "-n", "app.events", "--yes"
    )
    assert code == 0, err
    assert "app.events: window" in out
    hot = demo.client.config.tags.find_one({"ns": "app.events", "tag": "hot"})
    assert hot is not None and hot["min"]["ts"].isoformat() == "2026-07-04T00:00:00"


def test_analyze_refuses_an_unknown_namespace(demo: Any) -> None:
    code, out, err = zonectl("analyze", "--uri", demo.uri, "-n", "app.evnets")
    assert (code, out) == (2, "")
    assert "(did you mean app.events?)" in one_error_line(err)
    code, _, err = zonectl("analyze", "--uri", demo.uri, "-n", "nope.*")
    assert code == 2
    assert "--namespace 'nope.*' matches no namespace on the cluster" in err


def test_analyze_of_a_policy_namespace_missing_on_the_cluster_is_a_finding(
    demo: Any, tmp_path: Path
) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\ncollections:\n  app.future: {balancing: true}\n",
        encoding="utf-8",
    )
    code, out, err = zonectl("analyze", str(policy), "--uri", demo.uri, "-n", "app.future")
    assert code == 0, err
    assert "ZA001" in out


@pytest.mark.parametrize("command", ["plan", "apply", "status", "rotate", "analyze"])
def test_each_help_says_what_unknown_means(command: str) -> None:
    code, out, _ = zonectl(command, "--help")
    assert code == 0
    text = " ".join(out.replace("│", " ").split())
    assert "nor the cluster has" in text
    assert "is refused with exit 2" in text


def test_a_fleet_run_refuses_the_unknown_namespace_on_every_cluster(tmp_path: Path) -> None:
    inventory = tmp_path / "clusters.yaml"
    inventory.write_text(
        "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
        '  - {name: a, uri: {value: "sandbox:"}}\n  - {name: b, uri: {value: "sandbox:"}}\n',
        encoding="utf-8",
    )
    code, _, err = zonectl(
        "plan", DEMO, "--inventory", str(inventory), "--all", "-n", "app.evnets",
        "--detailed-exitcode",
    )  # fmt: skip
    assert code == 2, err
    assert err.count("--namespace app.evnets: no such namespace") >= 2
    assert "2 cluster(s), 0 ok, 0 failed, 2 usage; exit 2" in err
