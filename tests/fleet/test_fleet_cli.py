"""Fleet runs through the CLI against several sandboxes served over TCP at once, one of
them unreachable: per-cluster results, the summary, the exit code, overlays, and no
credential in any output."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fleet_kit import POLICY, seeded, zonectl

PASSWORD = "hunter2-fleet"


@pytest.fixture
def fleet(
    sandbox_server: Callable[..., Any], closed_port: int, write_inventory: Callable[[str], Path]
) -> dict[str, Any]:
    """east and west: reachable sandboxes; dead: a closed port, with a password in its URI."""
    east = sandbox_server(sandbox=seeded())
    west = sandbox_server(sandbox=seeded())
    renamed = sandbox_server(sandbox=seeded("cluster-renamed.yaml"))
    path = write_inventory(
        """\
apiVersion: zonectl/v1
kind: ClusterInventory
clusters:
  - name: east
    uri: {env: FLEET_EAST}
    labels: {env: prod, region: east}
  - name: west
    uri: {env: FLEET_WEST}
    labels: {env: prod, region: west}
  - name: dead
    uri: {env: FLEET_DEAD}
    labels: {env: prod, region: north}
  - name: renamed
    uri: {file: renamed.uri}
    labels: {env: staging}
    overlay:
      shardNames: {shard-a: rs-east-a, shard-b: rs-east-b}
      extraZones: {rs-east-b: [hot]}
"""
    )
    (path.parent / "renamed.uri").write_text(renamed.uri + "\n", encoding="utf-8")
    env = {
        "FLEET_EAST": east.uri,
        "FLEET_WEST": west.uri,
        "FLEET_DEAD": f"mongodb://ops:{PASSWORD}@127.0.0.1:{closed_port}/"
        "?serverSelectionTimeoutMS=300",
    }
    return {"path": path, "env": env, "east": east, "west": west, "renamed": renamed}


def run(fleet: dict[str, Any], *args: str) -> tuple[int, str, str]:
    command, *rest = args
    extra = ["--inventory", str(fleet["path"])]
    if command in ("plan", "apply", "rotate"):
        extra.insert(0, str(POLICY))
    code, out, err = zonectl(command, *extra, *rest, env=fleet["env"])
    assert PASSWORD not in out and PASSWORD not in err
    return code, out, err


def tags(handle: Any) -> list[tuple[str, Any, str]]:
    return [(t["ns"], t["min"], t["tag"]) for t in handle.client.config.tags.find()]


def test_plan_all_gives_each_cluster_its_result_and_exit_1_when_one_is_unreachable(
    fleet: dict[str, Any],
) -> None:
    code, out, err = run(fleet, "plan", "--selector", "env=prod", "--format", "json")
    assert code == 1
    doc = json.loads(out)
    assert doc["kind"] == "fleet" and doc["command"] == "plan"
    results = {c["cluster"]: c for c in doc["clusters"]}
    assert list(results) == ["east", "west", "dead"]  # inventory order
    for name in ("east", "west"):
        assert results[name]["exit_code"] == 0
        assert [op["kind"] for op in results[name]["output"]["ops"]] == ["assign_zone_range"]
    assert results["dead"]["exit_code"] == 1 and results["dead"]["result"] == "failed"
    assert results["dead"]["output"] is None
    assert "cannot reach mongodb://***@127.0.0.1" in results["dead"]["error"]
    assert "[dead] zonectl: error: cannot reach" in err
    assert "zonectl: fleet plan: 3 cluster(s), 2 ok, 1 failed; exit 1" in err
    table = {line.split()[0]: line.split()[1] for line in err.splitlines() if line[:2] == "  "}
    assert table["east"] == "ok" and table["west"] == "ok" and table["dead"] == "failed"


def test_detailed_exitcode_is_4_when_every_chosen_cluster_has_changes(
    fleet: dict[str, Any],
) -> None:
    code, _, err = run(
        fleet, "plan", "--cluster", "east", "--cluster", "west", "--detailed-exitcode"
    )
    assert code == 4
    assert "2 ok, 0 failed; exit 4" in err


def test_markdown_groups_the_plan_by_cluster_for_the_pr_bot(fleet: dict[str, Any]) -> None:
    code, out, _ = run(fleet, "plan", "--all", "--format", "markdown")
    assert code == 1
    sections = [line for line in out.splitlines() if line.startswith("## cluster ")]
    assert sections == [
        "## cluster east",
        "## cluster west",
        "## cluster dead",
        "## cluster renamed",
    ]
    east = out.split("## cluster east")[1].split("## cluster west")[0]
    assert "### zonectl plan" in east  # each plan's own headings nest one level deeper
    dead = out.split("## cluster dead")[1].split("## cluster renamed")[0]
    assert "**failed** (exit 1): cannot reach" in dead


def test_apply_to_several_clusters_without_yes_is_refused_and_changes_nothing(
    fleet: dict[str, Any],
) -> None:
    code, _, err = run(fleet, "apply", "--cluster", "east", "--cluster", "west")
    assert code == 2
    assert "apply against 2 clusters needs --yes" in err
    assert tags(fleet["east"]) == [] and tags(fleet["west"]) == []
    assert run(fleet, "rotate", "--all")[0] == 2


def test_apply_all_applies_each_reachable_cluster_and_reports_the_unreachable_one(
    fleet: dict[str, Any],
) -> None:
    code, _, err = run(fleet, "apply", "--all", "--yes", "--jobs", "2")
    assert code == 1
    for name in ("east", "west", "renamed"):
        assert [(ns, tag) for ns, _min, tag in tags(fleet[name])] == [("app.audit", "hot")]
        assert f"[{name}] zonectl: applied plan" in err
    again, _, _ = run(fleet, "plan", "--selector", "env=prod", "--detailed-exitcode")
    assert again == 1  # dead still fails; east and west have converged (0, not 4)
    assert run(fleet, "plan", "--cluster", "east", "--detailed-exitcode")[0] == 0


def test_an_overlay_renames_shards_and_adds_zones_before_planning(fleet: dict[str, Any]) -> None:
    code, out, _ = run(fleet, "plan", "--cluster", "renamed", "--format", "json")
    assert code == 0
    (cluster,) = json.loads(out)["clusters"]
    ops = [
        (op["kind"], op["args"].get("shard"), op["args"]["zone"]) for op in cluster["output"]["ops"]
    ]
    assert ops == [("add_shard_to_zone", "rs-east-b", "hot"), ("assign_zone_range", None, "hot")]
    assert run(fleet, "apply", "--cluster", "renamed", "--yes")[0] == 0
    shards = {
        s["_id"]: sorted(s.get("tags", [])) for s in fleet["renamed"].client.config.shards.find()
    }
    assert shards == {"rs-east-a": ["hot"], "rs-east-b": ["archive", "hot"]}
    assert run(fleet, "plan", "--cluster", "renamed", "--detailed-exitcode")[0] == 0


def test_an_overlay_naming_a_shard_the_cluster_lacks_stops_that_cluster_before_any_write(
    sandbox_server: Callable[..., Any], write_inventory: Callable[[str], Path]
) -> None:
    good, bad = sandbox_server(sandbox=seeded()), sandbox_server(sandbox=seeded())
    path = write_inventory(
        f"""\
apiVersion: zonectl/v1
kind: ClusterInventory
clusters:
  - name: good
    uri: {{value: "{good.uri}"}}
  - name: bad
    uri: {{value: "{bad.uri}"}}
    overlay:
      extraZones: {{shard-z: [hot]}}
"""
    )
    code, _, err = zonectl("apply", str(POLICY), "--inventory", str(path), "--all", "--yes")
    assert code == 3
    assert f"[bad] {path}:9:20: error ZI142 cluster bad: overlay names shard shard-z" in err
    assert "its shards: shard-a, shard-b" in err
    assert tags(bad) == [] and tags(good) != []
    assert "zonectl" not in bad.client.list_database_names()  # not even the lease


def test_status_and_export_run_per_cluster(fleet: dict[str, Any], tmp_path: Path) -> None:
    code, out, _ = run(fleet, "status", "--selector", "region=west", "--format", "json")
    assert code == 0
    (west,) = json.loads(out)["clusters"]
    assert west["cluster"] == "west" and west["output"]["format_version"] >= 1
    out_dir = tmp_path / "exported"
    code, out, _err = run(
        fleet, "export", "--cluster", "east", "--cluster", "renamed", "-o", str(out_dir)
    )
    assert code == 0
    assert out == ""  # the policies are in the files: no empty `# cluster:` headers
    assert sorted(p.name for p in out_dir.iterdir()) == ["east.yaml", "renamed.yaml"]
    assert "rs-east-a" in (out_dir / "renamed.yaml").read_text(encoding="utf-8")


def test_o_in_a_fleet_run_writes_each_clusters_artifact_in_its_format(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    pages, reports = tmp_path / "pages", tmp_path / "reports"
    args = ("--cluster", "east", "--cluster", "west")
    code, out, _ = run(fleet, "status", *args, "--format", "html", "-o", str(pages))
    assert code == 0 and out == ""
    assert sorted(p.name for p in pages.iterdir()) == ["east.html", "west.html"]
    assert all(p.read_text(encoding="utf-8").startswith("<!DOCTYPE html>") for p in pages.iterdir())
    code, out, _ = run(fleet, "status", *args, "--format", "json", "-o", str(reports))
    assert code == 0 and out == ""
    doc = json.loads((reports / "west.json").read_text(encoding="utf-8"))
    assert doc["format_version"] >= 1


def test_plan_o_without_format_is_refused_once_before_any_cluster(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    plans = tmp_path / "plans"
    code, out, err = run(fleet, "plan", "--cluster", "east", "--cluster", "west", "-o", str(plans))
    assert code == 2 and out == ""
    assert err.count("zonectl: error: plan -o FILE writes what --format names") == 1
    assert "--save-plan" in err and not plans.exists()


def test_html_over_several_clusters_is_one_page_with_a_section_each(
    fleet: dict[str, Any],
) -> None:
    code, out, _ = run(fleet, "status", "--selector", "env=prod", "--format", "html")
    assert code == 1  # dead is unreachable
    assert out.count("<!DOCTYPE html>") == 1 and out.count("</html>") == 1
    sections = out.split('<h1 id="cluster-')[1:]
    assert [s.split('data-cluster="', 1)[1].split('"', 1)[0] for s in sections] == [
        "east",
        "west",
        "dead",
    ]
    assert all('<svg class="strip"' in s for s in sections[:2])  # each cluster's pictures
    assert "exit 1:" in sections[2] and '<svg class="strip"' not in sections[2]
    assert PASSWORD not in out


def test_a_plan_saved_per_cluster_applies_to_that_cluster_with_its_overlay(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    plans = tmp_path / "plans"
    code, _, err = run(
        fleet, "plan", "--cluster", "east", "--cluster", "renamed", "--save-plan", str(plans)
    )
    assert code == 0
    assert sorted(p.name for p in plans.iterdir()) == ["east.json", "renamed.json"]
    code, _, err = zonectl(
        "apply",
        "--plan",
        str(plans / "renamed.json"),
        "--inventory",
        str(fleet["path"]),
        "--cluster",
        "renamed",
        "--yes",
        env=fleet["env"],
    )
    assert code == 0, err  # the overlaid policy digest matches the saved one: not stale
    assert [tag for _ns, _min, tag in tags(fleet["renamed"])] == ["hot"]
    code, _, err = run(fleet, "apply", "--plan", str(plans / "east.json"), "--all", "--yes")
    assert code == 2 and "a saved plan (--plan) belongs to one cluster" in err


def test_an_unreadable_uri_file_is_an_error_at_its_line(fleet: dict[str, Any]) -> None:
    (fleet["path"].parent / "renamed.uri").unlink()
    code, _, err = run(fleet, "status", "--cluster", "renamed")
    assert code == 3
    assert f"{fleet['path']}:14:17: error ZI131 cluster renamed: cannot read URI file" in err


def test_metrics_file_of_a_fleet_run_is_one_textfile_per_cluster_labelled_by_its_name(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    out_dir = tmp_path / "textfiles"
    code, _, _ = run(
        fleet, "status", "--cluster", "east", "--cluster", "west", "--metrics-file", str(out_dir)
    )
    assert code == 0
    assert sorted(p.name for p in out_dir.iterdir()) == ["east.prom", "west.prom"]
    for name in ("east", "west"):
        text = (out_dir / f"{name}.prom").read_text(encoding="utf-8")
        assert f'zonectl_run_exit_code{{cluster="{name}",command="status"}} 0' in text
        other = "west" if name == "east" else "east"
        assert f'cluster="{other}"' not in text


def test_one_cluster_given_a_prom_path_writes_that_file_as_each_cronjob_runs(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    """`fleet cronjobs` runs `--cluster NAME --metrics-file .../zonectl-rotate-NAME.prom`:
    that path was made a directory holding NAME.prom, which node-exporter's textfile
    collector never reads (it reads *.prom files at its directory's top)."""
    textfiles = tmp_path / "textfile"
    textfiles.mkdir()
    prom = textfiles / "zonectl-status-east.prom"
    code, _, err = run(fleet, "status", "--cluster", "east", "--metrics-file", str(prom))
    assert code == 0, err
    assert prom.is_file()
    text = prom.read_text(encoding="utf-8")
    assert 'zonectl_run_exit_code{cluster="east",command="status"} 0' in text
    assert [p.name for p in textfiles.iterdir()] == ["zonectl-status-east.prom"]


def test_a_run_failing_before_any_cluster_still_records_it_in_each_metrics_file(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    """A CronJob whose URI variable is unset (ZI130) or whose policy is invalid failed
    without a textfile: no series, so no alert (ZonectlRotateNeverSucceeded) ever fired.
    The run series are written, the previous last success carried over."""
    prom = tmp_path / "zonectl-status-east.prom"
    assert run(fleet, "status", "--cluster", "east", "--metrics-file", str(prom))[0] == 0
    labels = 'cluster="east",command="status"'
    success = [ln for ln in prom.read_text().splitlines() if ln.startswith("zonectl_run_last_s")]
    del fleet["env"]["FLEET_EAST"]
    code, _, err = run(fleet, "status", "--cluster", "east", "--metrics-file", str(prom))
    assert code == 3 and "ZI130" in err
    text = prom.read_text(encoding="utf-8")
    assert f"zonectl_run_exit_code{{{labels}}} 3" in text
    assert [ln for ln in text.splitlines() if ln.startswith("zonectl_run_last_s")] == success
    assert "zonectl_read_timestamp_seconds{" not in text  # the cluster was not read
    fresh = tmp_path / "textfile"
    code, _, _ = run(fleet, "status", "--cluster", "east", "--cluster", "west",
                     "--metrics-file", str(fresh))  # fmt: skip
    assert code == 3
    for name in ("east", "west"):
        shown = (fresh / f"{name}.prom").read_text(encoding="utf-8")
        assert f'zonectl_run_exit_code{{cluster="{name}",command="status"}} 3' in shown


def test_openmetrics_of_several_clusters_on_stdout_is_refused_one_is_not(
    fleet: dict[str, Any], tmp_path: Path
) -> None:
    """Several expositions between === headers parse as none (the stream's first header
    is not a metric name); one cluster's is a valid exposition, and -o DIR one per file."""
    both = ("--cluster", "east", "--cluster", "west", "--format", "openmetrics")
    code, out, err = run(fleet, "status", *both)
    assert (code, out) == (2, "")
    assert "--format openmetrics of several clusters cannot share stdout" in err
    code, out, err = run(fleet, "status", "--cluster", "east", "--format", "openmetrics")
    assert code == 0, err
    assert out.endswith("# EOF\n") and "===" not in out
    code, _, err = run(fleet, "status", *both, "-o", str(tmp_path / "om"))
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "om").iterdir()) == ["east.txt", "west.txt"]


def test_doctor_runs_per_cluster_and_fails_only_for_the_unreachable_one(
    fleet: dict[str, Any],
) -> None:
    code, out, err = run(fleet, "doctor", "--all", "--format", "json")
    assert code == 1
    results = {c["cluster"]: c for c in json.loads(out)["clusters"]}
    assert sorted(results) == ["dead", "east", "renamed", "west"]
    assert results["east"]["exit_code"] == 0 and results["west"]["exit_code"] == 0
    assert results["dead"]["exit_code"] == 1
    assert "dead" in err
