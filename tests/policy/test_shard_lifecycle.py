"""`shards:` entries in long form (issue 39): `{zones, state, host}` beside the list form,
and the offline checks of a shard's lifecycle, through `zonectl validate` and `plan`."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

Run = Callable[..., tuple[int, str, str]]

TOP = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
EVENTS = (
    "collections:\n"
    "  app.events:\n"
    "    key: {ts: 1}\n"
    "    ranges:\n"
    "      - {zone: cold, min: {ts: {$minKey: 1}}, max: {ts: 5}}\n"
    "      - {zone: hot, min: {ts: 5}, max: {ts: {$maxKey: 1}}}\n"
)


def validate(workdir: Path, zonectl: Run, shards: str, body: str = EVENTS) -> tuple[int, str]:
    (workdir / "p.yaml").write_text(TOP + "shards:\n" + shards + body)
    code, _, err = zonectl("validate", "p.yaml")
    return code, err


def test_the_long_form_reads_as_the_list_form(workdir: Path, zonectl: Run) -> None:
    short = "  a: [hot]\n  b: [cold]\n"
    long = "  a: {zones: [hot]}\n  b:\n    zones: [cold]\n    state: active\n"
    (workdir / "short.yaml").write_text(TOP + "shards:\n" + short + EVENTS)
    (workdir / "long.yaml").write_text(TOP + "shards:\n" + long + EVENTS)
    code, out, _ = zonectl("validate", "--each", "short.yaml", "long.yaml", "--format", "json")
    assert code == 0, out


def test_a_removed_shard_given_zones_is_warned_and_its_zones_dropped(
    workdir: Path, zonectl: Run
) -> None:
    shards = "  a: [hot, cold]\n  b:\n    zones: [cold]\n    state: removed\n"
    code, err = validate(workdir, zonectl, shards)
    assert code == 0
    assert (
        "p.yaml:6:12: warning ZP304 shard b is removed but given zones (cold): they are dropped"
        in err
    )


def test_a_zone_only_a_removed_shard_carries_is_exit_3_naming_zone_and_fix(
    workdir: Path, zonectl: Run
) -> None:
    shards = "  a: [hot]\n  b: {zones: [cold], state: removed}\n"
    code, err = validate(workdir, zonectl, shards)
    assert code == 3
    assert (
        "p.yaml:10:9: error ZP305 zone cold is used here but its only shard (b) is removed: "
        "once it is gone no shard carries the zone\n"
        "  hint: give zone cold to a shard that stays (under shards:), or drop its uses\n"
    ) in err
    assert "ZP301" not in err  # reported once, as what it is


def test_a_host_that_is_no_seed_list_is_exit_3(workdir: Path, zonectl: Run) -> None:
    shards = '  a: [hot, cold]\n  c: {zones: [hot], host: "db3:27018"}\n'
    code, err = validate(workdir, zonectl, shards)
    assert code == 3
    assert 'error ZP306 shard c: host "db3:27018" is not "replicaSet/host:port,..."' in err


def test_removing_every_shard_is_exit_3(workdir: Path, zonectl: Run) -> None:
    shards = "  a: {state: removed}\n  b: {state: removed}\n"
    code, err = validate(workdir, zonectl, shards, body="")
    assert code == 3
    assert "error ZP307 the policy removes every shard it names" in err


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        ("  a: {zones: [hot], hosts: x}\n", 'unknown key "hosts" in shards.a'),
        ("  a: {zones: [hot], state: gone}\n", "shards.a.state: expected 'active' or"),
        (
            "  a: 5\n",
            "shards.a: expected [...] or {zones: ..., state: ..., host: ..., disk: ...}, got 5",
        ),
    ],
)
def test_a_mistyped_entry_is_one_error_naming_it(
    workdir: Path, zonectl: Run, entry: str, expected: str
) -> None:
    code, err = validate(workdir, zonectl, entry, body="")
    assert code == 3
    assert expected in err
    assert err.count("error ZP") == 1, err


def test_the_schema_offers_both_forms(zonectl: Run) -> None:
    code, out, _ = zonectl("schema")
    assert code == 0
    shard = json.loads(out)["$defs"]["ShardModel"]["properties"]
    assert set(shard) == {"zones", "state", "host", "disk"}
    assert shard["state"]["enum"] == ["active", "removed"]
