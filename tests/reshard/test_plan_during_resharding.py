"""`plan` while a resharding runs on the server says so and plans no second one (nor range
updates that would conflict with it), whether the resharding changes the key or is the
reshard route (same key, forceRedistribution); and a reshard route is not counted as a
shard key to change."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from reshard_kit import Background, policy, zonectl

GIB = 1024**3
ROUTE = (
    "    key: {oldKey: 1}\n"
    "    migrate: reshard\n"
    "    ranges:\n"
    "      - {zone: eu, min: {oldKey: 100}, max: {oldKey: {$maxKey: 1}}}\n"
)
NEW_KEY = (
    "    key: {newKey: 1}\n"
    "    reshard: true\n"
    "    ranges:\n"
    "      - {zone: eu, min: {newKey: 250}, max: {newKey: {$maxKey: 1}}}\n"
)


def _big(handle: Any) -> Any:
    """Chunks of a TiB each: the resharding runs for simulated hours, so it is in flight."""
    store = handle.sandbox.cluster.chunks("db.foo")
    for i in range(len(store)):
        store.set_size(i, 1024 * GIB, store.count_at(i))
    return handle


@pytest.mark.parametrize(
    ("body", "command", "key"),
    [
        (ROUTE, {"key": {"oldKey": 1}, "forceRedistribution": True}, "{ oldKey: 1 }"),
        (NEW_KEY, {"key": {"newKey": 1}}, "{ newKey: 1 }"),
    ],
    ids=["reshard-route", "new-key"],
)
def test_plan_during_a_resharding_says_it_is_in_progress_and_plans_no_second(
    foo: Callable[..., Any], tmp_path: Path, body: str, command: dict[str, Any], key: str
) -> None:
    sb = _big(foo())
    path = policy(tmp_path, body)
    before, _, _ = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
    assert before == 4  # without the running resharding, the plan has its op
    running = Background(sb, {"reshardCollection": "db.foo", **command})
    try:
        code, out, err = zonectl("plan", path, "--uri", sb.uri, "--detailed-exitcode")
        assert code == 0, err
        assert f"db.foo: a resharding to {key} is in progress on the server (state " in out
        assert "No changes to make now: a resharding is in progress (see notes)." in out
        assert "~ reshard" not in out and "matches the policy" not in out
        code, out, _ = zonectl("plan", path, "--uri", sb.uri, "-f", "json")
        assert code == 0 and json.loads(out)["ops"] == []
    finally:
        sb.client.admin.command("abortReshardCollection", "db.foo")
        running.join()


def test_a_reshard_route_is_counted_as_a_resharding_not_as_a_key_change(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo()
    code, out, err = zonectl("plan", policy(tmp_path, ROUTE), "--uri", sb.uri)
    assert code == 0, err
    assert "reshard to the same key { oldKey: 1 }" in out
    assert "1 collection to reshard to the same key" in out
    assert "shard key to change" not in out
    code, out, _ = zonectl("plan", policy(tmp_path, NEW_KEY), "--uri", sb.uri)
    assert "1 shard key to change" in out and "to reshard to the same key" not in out
