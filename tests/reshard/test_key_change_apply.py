"""A policy key change through the CLI on the 8.0 sandbox: plan -> apply -> an empty plan,
for a refine and for a resharding; without the opt-in nothing reshards."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from bson.min_key import MinKey
from reshard_kit import policy, zonectl

RESHARD = (
    "    key: {newKey: 1}\n"
    "    ranges:\n"
    "      - {zone: eu, min: {newKey: 250}, max: {newKey: {$maxKey: 1}}}\n"
)


def test_refine_plans_applies_and_then_plans_nothing(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    sb.client.db.foo.create_index([("oldKey", 1), ("tenant", 1)])
    path = policy(tmp_path, "    key: {oldKey: 1, tenant: 1}\n")
    code, out, _ = zonectl("plan", path, "--uri", sb.uri)
    assert code == 0 and "(refine, no data moves)" in out and "BLOCKED" not in out
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {
        "oldKey": 1,
        "tenant": 1,
    }
    code, out, _ = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0 and "No changes" in out


def test_refine_without_an_index_is_blocked_and_names_the_index(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    path = policy(tmp_path, "    key: {oldKey: 1, tenant: 1}\n")
    code, out, _ = zonectl("plan", path, "--uri", sb.uri)
    assert "createIndex({ oldKey: 1, tenant: 1 })" in out and "BLOCKED" in out
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 1 and "nothing was changed" in err
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"oldKey": 1}


def test_resharding_without_the_opt_in_is_blocked_and_nothing_reshards(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    path = policy(tmp_path, RESHARD)
    code, out, _ = zonectl("plan", path, "--uri", sb.uri)
    assert code == 0 and "BLOCKED: resharding needs the opt-in: add `reshard: true`" in out
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 1 and "nothing was changed" in err
    entry = sb.client.config.collections.find_one({"_id": "db.foo"})
    assert entry["key"] == {"oldKey": 1}
    assert not list(sb.client.config.changelog.find({"what": {"$regex": "^resharding"}}))


def test_resharding_plans_applies_with_the_opt_in_and_then_plans_nothing(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    path = policy(tmp_path, RESHARD + "    reshard: true\n")
    code, out, _ = zonectl("plan", path, "--uri", sb.uri, "--format", "json")
    assert code == 0 and '"kind": "reshard_collection"' in out
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, err
    entry = sb.client.config.collections.find_one({"_id": "db.foo"})
    assert entry["key"] == {"newKey": 1}
    tags = list(sb.client.config.tags.find({"ns": "db.foo"}))
    assert [(t["tag"], t["min"]) for t in tags] == [("eu", {"newKey": 250})]
    code, out, _ = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert code == 0 and "No changes" in out


ROUTE = (
    "    migrate: reshard\n    ranges:\n      - {zone: eu, min: {oldKey: 0}, max: {oldKey: 200}}\n"
)


def test_reshard_route_makes_a_big_zone_change_in_one_resharding_on_8_0(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo("8.0")
    path = policy(tmp_path, ROUTE)
    moves_before = sb.client.config.changelog.count_documents({"what": "moveChunk.commit"})
    code, out, _ = zonectl("plan", path, "--uri", sb.uri)
    assert code == 0 and "forceRedistribution" in out and "BLOCKED" not in out
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 0, err
    config = sb.client.config
    entry = config.collections.find_one({"_id": "db.foo"})
    assert entry["key"] == {"oldKey": 1}
    assert (
        config.changelog.count_documents(
            {"what": "resharding.coordinator.transition", "details.newState": "committing"}
        )
        == 1
    )
    assert config.changelog.count_documents({"what": "moveChunk.commit"}) == moves_before
    chunks = list(config.chunks.find({"uuid": entry["uuid"]}))
    zoned = [c for c in chunks if c["min"]["oldKey"] != MinKey() and 0 <= c["min"]["oldKey"] < 200]
    assert zoned and {c["shard"] for c in zoned} == {"s2"}
    code, out, _ = zonectl("plan", path, "--uri", sb.uri)
    assert code == 0 and "No changes" in out


def test_reshard_route_is_blocked_before_7_2(foo: Callable[..., Any], tmp_path: Path) -> None:
    sb = foo("7.0")
    code, out, _ = zonectl("plan", policy(tmp_path, ROUTE), "--uri", sb.uri)
    assert code == 0 and "needs MongoDB 7.2 or later" in out


def test_forecast_shows_the_reshard_route_beside_the_other_two(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo("8.0")
    body = "    ranges:\n      - {zone: eu, min: {oldKey: 0}, max: {oldKey: 200}}\n"
    code, out, _ = zonectl("plan", policy(tmp_path, body), "--uri", sb.uri)
    assert code == 0
    assert "reshard route (migrate: reshard)" in out and "fastest:" in out
    assert "free storage of about 1.2x" in out


def test_markdown_plan_and_pr_comment_call_out_a_blocked_resharding(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    code, out, _ = zonectl("plan", policy(tmp_path, RESHARD), "--uri", sb.uri, "-f", "markdown")
    assert code == 0
    assert "`db.foo` is resharded" in out and "**blocked**: resharding needs the opt-in" in out
    assert "shard key { oldKey: 1 } -> { newKey: 1 } by resharding" in out


def test_rotate_leaves_a_key_change_of_a_pattern_namespace_to_apply(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    # A cron job's rotate places new collections a pattern matches; it must neither start
    # an hours-long resharding nor stop the rotation over a blocked key change.
    sb = foo()
    path = tmp_path / "policy.yaml"
    path.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: []\n  s1: []\n  s2: [eu]\n"
        'collections:\n  "db.f*":\n' + RESHARD + "    reshard: true\n"
    )
    code, out, err = zonectl("rotate", str(path), "--uri", sb.uri, "--yes")
    assert code == 0, err
    assert "reshard" not in out.lower()
    assert "1 change(s) of pattern-matched namespaces are left for `zonectl apply`" in err
    assert "~ reshard db.foo" in err, err
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"oldKey": 1}
    assert sb.client.config.reshardingOperations.count_documents({}) == 0
