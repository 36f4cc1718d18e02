"""Ownership per aspect, through the CLI against the demo sandbox: a `collections:` entry
manages only what it names. app.events has two live zone ranges (archive, hot) there; an
entry that names only sampling, balancing or the key leaves them alone and plan lists them
as unmanaged; `ranges: []` says "no zones" and removes them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\ncollections:\n  app.events:\n"
RANGE_OPS = {"assign_zone_range", "remove_zone_range"}


def zonectl(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def plan_json(tmp_path: Path, entry: str, uri: str = "sandbox:") -> dict[str, Any]:
    policy = tmp_path / "p.yaml"
    policy.write_text(HEAD + entry)
    code, out, err = zonectl("plan", str(policy), "--uri", uri, "--format", "json")
    assert code == 0, err
    doc: dict[str, Any] = json.loads(out)
    return doc


def kinds(doc: dict[str, Any]) -> list[str]:
    return [op["kind"] for op in doc["ops"]]


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("    sampling: {samplesPerSecond: 3}\n", ["set_query_analyzer"]),
        ("    balancing: false\n", ["set_collection_balancing"]),
        ("    key: {ts: 1, _id: 1}\n", []),
        ("    key: {ts: 1, _id: 1, region: 1}\n", ["refine_shard_key"]),
    ],
    ids=["sampling-only", "balancing-only", "key-only", "key-only-refine"],
)
def test_an_entry_without_ranges_plans_no_zone_range_change(
    tmp_path: Path, entry: str, expected: list[str]
) -> None:
    doc = plan_json(tmp_path, entry)
    assert kinds(doc) == expected
    unmanaged = {(u["kind"], u["name"]): u["detail"] for u in doc["unmanaged"]}
    assert unmanaged[("namespace", "app.events")] == (
        "2 ranges in zones archive, hot (its entry names no ranges, pin, firehose or slices)"
    )


def test_explicit_empty_ranges_remove_the_live_ones(tmp_path: Path) -> None:
    doc = plan_json(tmp_path, "    ranges: []\n    sampling: {samplesPerSecond: 5}\n")
    assert kinds(doc) == ["remove_zone_range", "remove_zone_range"]
    assert ("namespace", "app.events") not in {(u["kind"], u["name"]) for u in doc["unmanaged"]}


def test_a_resharding_of_an_entry_without_ranges_is_blocked_while_live_ranges_exist(
    tmp_path: Path,
) -> None:
    """reshardCollection of a zoned collection needs `zones` (else BadValue); zonectl would
    send the entry's, i.e. none: blocked, naming the fix, instead of dropping the zones."""
    doc = plan_json(tmp_path, '    key: {_id: "hashed"}\n    reshard: true\n')
    (op,) = doc["ops"]
    assert op["kind"] == "reshard_collection"
    blocked = op["args"]["blocked"]
    assert "a resharding replaces: list them in the new key under `ranges:`" in blocked


def test_unmanaged_ranges_are_listed_in_text_and_markdown(tmp_path: Path) -> None:
    policy = tmp_path / "p.yaml"
    policy.write_text(HEAD + "    balancing: false\n")
    _, text, _ = zonectl("plan", str(policy), "--uri", "sandbox:")
    _, markdown, _ = zonectl("plan", str(policy), "--uri", "sandbox:", "--format", "markdown")
    assert "  namespace app.events: 2 ranges in zones archive, hot (its entry names" in text
    assert "- namespace `app.events`: 2 ranges in zones archive, hot" in markdown
    assert not any(line.lstrip().startswith("- ") for line in text.splitlines()[:6])


def test_an_exported_policy_plans_empty(tmp_path: Path) -> None:
    uri = f"sandbox:?state={tmp_path / 'state.json'}"
    exported = tmp_path / "mine.yaml"
    assert zonectl("export", "--uri", uri, "-o", str(exported))[0] == 0
    code, out, err = zonectl("plan", str(exported), "--uri", uri, "--detailed-exitcode")
    assert code == 0, out + err
    assert "No changes" in out


def test_empty_ranges_and_no_ranges_are_different_policies(tmp_path: Path) -> None:
    """The policy digest (in every plan, and checked by apply) tells `ranges: []` from no
    `ranges`, as their plans differ."""
    sampling = "    sampling: {samplesPerSecond: 5}\n"
    alone = plan_json(tmp_path, sampling)["policy_digest"]
    empty = plan_json(tmp_path, sampling + "    ranges: []\n")["policy_digest"]
    assert alone != empty
    assert plan_json(tmp_path, sampling)["policy_digest"] == alone


def test_a_balancing_switch_the_entry_does_not_name_is_listed_and_kept(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(
        '{"version": "7.0", "shards": [{"name": "s0"}], "collections": '
        '[{"ns": "app.events", "key": {"ts": 1}, "noBalance": true}]}'
    )
    doc = plan_json(tmp_path, "    key: {ts: 1}\n", uri=f"sandbox:{cluster}")
    assert kinds(doc) == []
    detail = "balancing off (noBalance); its entry names no `balancing`"
    assert {"kind": "balancing", "name": "app.events", "detail": detail} in doc["unmanaged"]
