"""Bad fleet input is reported at file:line:col, exit 3, before any cluster is contacted:
a cluster named twice, an unset URI variable, a selector or name that matches nothing, an
overlay renaming a shard the policy lacks, and the other schema mistakes."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from fleet_kit import POLICY, zonectl


def inventory(port: int, extra: str = "") -> str:
    return f"""\
apiVersion: zonectl/v1
kind: ClusterInventory
clusters:
  - name: east
    uri: {{value: "mongodb://127.0.0.1:{port}/?serverSelectionTimeoutMS=2000"}}
    labels: {{env: prod, region: east}}
{extra}"""


def run_plan(path: Path, *selection: str, env: dict[str, str] | None = None) -> tuple[int, str]:
    code, _out, err = zonectl("plan", str(POLICY), "--inventory", str(path), *selection, env=env)
    return code, err


def test_a_cluster_named_twice_is_an_error_at_its_line_naming_the_first(
    tripwire: Callable[[], bool], write_inventory: Callable[[str], Path]
) -> None:
    port = tripwire.port  # type: ignore[attr-defined]
    path = write_inventory(inventory(port, "  - name: east\n    uri: {env: EAST_AGAIN}\n"))
    code, err = run_plan(path, "--all")
    assert code == 3
    assert f'{path}:7:11: error ZI120 cluster "east" is named twice (first at line 4)' in err
    assert not tripwire()


def test_an_unset_uri_variable_is_an_error_at_the_line_of_its_name(
    tripwire: Callable[[], bool], write_inventory: Callable[[str], Path]
) -> None:
    port = tripwire.port  # type: ignore[attr-defined]
    extra = "  - name: west\n    uri: {env: ZONECTL_TEST_WEST_URI}\n    labels: {env: prod}\n"
    path = write_inventory(inventory(port, extra))
    code, err = run_plan(path, "--selector", "env=prod", env={"ZONECTL_TEST_WEST_URI": ""})
    assert code == 3
    assert f"{path}:8:16: error ZI130 cluster west: URI variable ZONECTL_TEST_WEST_URI" in err
    assert not tripwire()  # east was valid, but nothing runs until every URI is known


def test_an_unset_variable_of_an_unchosen_cluster_does_not_matter(
    write_inventory: Callable[[str], Path], closed_port: int
) -> None:
    # A CronJob for one cluster carries only that cluster's secret.
    path = write_inventory(inventory(closed_port, "  - name: west\n    uri: {env: NOPE_UNSET}\n"))
    code, err = run_plan(path, "--cluster", "east")
    assert code == 1  # east is unreachable, but it was tried: its URI was readable
    assert "ZI130" not in err and "cannot reach" in err


@pytest.mark.parametrize(
    ("selection", "message"),
    [
        (("--selector", "env=staging"), "selector env=staging matches no cluster"),
        (("--selector", "team=db"), "selector team=db matches no cluster"),
        (("--cluster", "nowhere"), "no cluster named nowhere in the inventory"),
    ],
)
def test_a_selection_that_matches_nothing_is_an_error_at_the_clusters_line(
    tripwire: Callable[[], bool],
    write_inventory: Callable[[str], Path],
    selection: tuple[str, ...],
    message: str,
) -> None:
    path = write_inventory(inventory(tripwire.port))  # type: ignore[attr-defined]
    code, err = run_plan(path, *selection)
    assert code == 3
    assert f"{path}:3:1: error ZI150 {message}" in err
    assert "hint:" in err
    assert not tripwire()


def test_an_overlay_renaming_a_shard_the_policy_lacks_is_an_error_before_connecting(
    tripwire: Callable[[], bool], write_inventory: Callable[[str], Path]
) -> None:
    extra = "    overlay:\n      shardNames: {shard-q: rs-q}\n"
    path = write_inventory(inventory(tripwire.port, extra))  # type: ignore[attr-defined]
    code, err = run_plan(path, "--all")
    assert code == 3
    assert f"{path}:8:20: error ZI140 cluster east: overlay renames shard shard-q" in err
    assert "policy shards: shard-a, shard-b" in err
    assert not tripwire()


@pytest.mark.parametrize(
    ("text", "where", "expected"),
    [
        ("    uri: {env: A, file: b}\n", "5:10", "ZI133 uri needs exactly one of env, file, value"),
        ("    urls: {env: A}\n", "5:5", 'ZI110 unknown key "urls" in clusters[0]'),
        ("    uri: {env: A}\n    labels: {tier: 1}\n", "6:20", "ZI112 clusters[0].labels.tier"),
        (
            "    uri: {value: 'mongodb://ops:hunter2@db:27017'}\n",
            "5:18",
            "ZI132 cluster x: uri.value",
        ),
    ],
)
def test_schema_mistakes_are_reported_at_their_position(
    write_inventory: Callable[[str], Path], text: str, where: str, expected: str
) -> None:
    head = "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n  - name: x\n"
    path = write_inventory(head + text)
    code, err = run_plan(path, "--all")
    assert code == 3
    assert f"{path}:{where}: error {expected}" in err
    assert "hunter2" not in err
    if "ZI132" in expected:  # its hint whole: "secret: uri:" was starred by the redaction
        assert "write uri: {env: VAR} or uri: {file: PATH}" in err


def test_a_cluster_name_that_is_not_a_dns_label_is_refused(
    write_inventory: Callable[[str], Path],
) -> None:
    path = write_inventory(
        "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
        "  - name: Prod_EU\n    uri: {env: X}\n"
    )
    code, err = run_plan(path, "--all")
    assert code == 3
    assert f'{path}:4:11: error ZI121 cluster name "Prod_EU" is not a DNS label' in err


def test_a_missing_inventory_says_how_to_make_one(tmp_path: Path) -> None:
    code, err = run_plan(tmp_path / "clusters.yaml", "--all")
    assert code == 3
    assert "error ZP100 cannot read" in err
    assert "hint: write a clusters.yaml (docs/fleet.md), or pass --inventory PATH" in err


def test_choosing_clusters_two_ways_or_with_uri_is_a_usage_error(
    write_inventory: Callable[[str], Path], closed_port: int
) -> None:
    path = write_inventory(inventory(closed_port))
    assert run_plan(path, "--all", "--cluster", "east")[0] == 2
    code, _out, err = zonectl(
        "plan", str(POLICY), "--inventory", str(path), "--all", "--uri", "sandbox:"
    )
    assert code == 2
    assert "--uri names one cluster" in err
