"""A resharding in flight, started by another client: status and the metrics show it from
the server's own figures, the next apply starts no second one, recover aborts it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from reshard_kit import Background, policy, zonectl
from test_long_resharding import OPTED, big

TO_NEW = {"reshardCollection": "db.foo", "key": {"newKey": 1}}


def test_status_and_metrics_show_a_resharding_in_flight(foo: Callable[..., Any]) -> None:
    sb = big(foo(), 1024)
    running = Background(sb, dict(TO_NEW))
    code, out, _ = zonectl("status", "--uri", sb.uri)
    assert code == 0 and "resharding db.foo: cloning" in out
    code, out, _ = zonectl("status", "--uri", sb.uri, "--format", "openmetrics")
    assert code == 0 and "zonectl_resharding_in_progress{" in out
    assert 'namespace="db.foo"' in out and "zonectl_resharding_remaining_seconds{" in out
    sb.client.admin.command({"abortReshardCollection": "db.foo"})
    running.join()


def test_a_second_resharding_is_never_started_while_another_client_runs_one(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = big(foo(), 1024)
    sb.client.admin.command("shardCollection", "db.other", key={"k": 1})
    running = Background(sb, {"reshardCollection": "db.other", "key": {"j": 1}})
    code, out, _ = zonectl("plan", policy(tmp_path, OPTED), "--uri", sb.uri)
    assert code == 0 and "a resharding of db.other is running" in out
    code, _, err = zonectl("apply", policy(tmp_path, OPTED), "--uri", sb.uri, "--yes")
    assert code == 1 and "nothing was changed" in err
    assert sb.client.config.reshardingOperations.count_documents({"ns": "db.foo"}) == 0
    sb.client.admin.command({"abortReshardCollection": "db.other"})
    running.join()


def test_recover_aborts_a_resharding_left_running(foo: Callable[..., Any]) -> None:
    sb = big(foo(), 1024)
    running = Background(sb, dict(TO_NEW))
    code, _, err = zonectl("recover", "--uri", sb.uri, "--resharding", "abort")
    assert code == 0 and "resharding of db.foo aborted" in err
    # The key as plan and status print keys, not as a Python dict.
    assert "a resharding of db.foo to the key { newKey: 1 } is running" in err
    assert "{'newKey': 1}" not in err
    running.join()
    assert running.error is not None and running.error.code == 341
    config = sb.client.config
    assert config.reshardingOperations.count_documents({}) == 0
    assert config.collections.find_one({"_id": "db.foo"})["key"] == {"oldKey": 1}


def test_recover_fails_clearly_when_the_abort_fails(foo: Callable[..., Any]) -> None:
    sb = big(foo(), 1024)
    running = Background(sb, dict(TO_NEW))
    sb.client.admin.command(
        "configureFailPoint",
        "failCommand",
        mode={"times": 1},
        data={"failCommands": ["abortReshardCollection"], "errorCode": 340},
    )
    code, _, err = zonectl("recover", "--uri", sb.uri, "--resharding", "abort")
    assert code == 1 and "abortReshardCollection db.foo failed" in err
    assert sb.client.zonectl.locks.find_one({"_id": "apply"}) is None
    sb.client.admin.command({"abortReshardCollection": "db.foo"})
    running.join()
