"""A cluster whose feature compatibility version (FCV) lags its binary: the sandbox refuses
what MongoDB refuses at that FCV (sandbox/commands/fcv_gates.py), and zonectl reads the FCV
where a mongos keeps it (admin.system.version), so its plan and doctor say why a feature is
off instead of failing half-way through an apply."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from pymongo.errors import OperationFailure
from reshard_kit import code_of, policy, zonectl
from test_key_change_apply import ROUTE

from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox


def test_the_fcv_is_read_from_admin_system_version_not_from_getparameter(
    foo: Callable[..., Any],
) -> None:
    sb = foo("8.0", fcv="7.0")
    doc = sb.client.admin["system.version"].find_one({"_id": "featureCompatibilityVersion"})
    assert doc == {"_id": "featureCompatibilityVersion", "version": "7.0"}
    # A 5.0-8.2 mongos answers getParameter with its own binary's release (SERVER-100224).
    reply = sb.client.admin.command({"getParameter": 1, "featureCompatibilityVersion": 1})
    assert reply["featureCompatibilityVersion"] == {"version": "8.0"}


def test_at_fcv_7_0_an_8_0_cluster_refuses_force_redistribution_and_move_collection(
    foo: Callable[..., Any],
) -> None:
    sb = foo("8.0", fcv="7.0")
    admin = sb.client.admin
    for value in (True, False):  # the server checks that the field is there, not its value
        with pytest.raises(OperationFailure) as exc:
            admin.command(
                "reshardCollection", "db.foo", key={"oldKey": 1}, forceRedistribution=value
            )
        assert code_of(exc.value) == "InvalidOptions"
        assert "Resharding improvements is not enabled" in str(exc.value)
    sb.client.db.loose.insert_one({"x": 1})
    with pytest.raises(OperationFailure) as exc:
        admin.command("moveCollection", "db.loose", toShard="s1")
    assert code_of(exc.value) == "InvalidOptions"
    assert "reject shardDistribution parameter" in str(exc.value)
    # A plain key change is a 5.0 feature: it still runs at FCV 7.0.
    sb.client.db.foo.create_index([("newKey", 1)])
    admin.command("reshardCollection", "db.foo", key={"newKey": 1})
    assert sb.client.config.collections.find_one({"_id": "db.foo"})["key"] == {"newKey": 1}


def test_at_fcv_4_4_a_5_0_cluster_has_no_resharding(foo: Callable[..., Any]) -> None:
    sb = foo("5.0", fcv="4.4")
    for command in ("reshardCollection", "abortReshardCollection", "commitReshardCollection"):
        with pytest.raises(OperationFailure) as exc:
            sb.client.admin.command(command, "db.foo", key={"newKey": 1})
        assert code_of(exc.value) == "CommandNotSupported"
        assert f"{command} command not enabled" in str(exc.value)


def test_a_cluster_file_names_an_fcv_the_binary_cannot_run_at() -> None:
    text = "featureCompatibilityVersion: '6.0'\nshards:\n  - {name: s0}\n"
    sandbox = Sandbox("8.0")
    with pytest.raises(build.SeedError) as exc:
        build.seed(sandbox, load_cluster_file("cluster.yaml", text), "cluster.yaml")
    message = str(exc.value)
    assert "cluster.yaml: field 'featureCompatibilityVersion'" in message
    assert "'8.0' or '7.0'" in message


def test_plan_blocks_the_reshard_route_at_a_lagging_fcv_and_apply_sends_nothing(
    foo: Callable[..., Any], tmp_path: Path
) -> None:
    sb = foo("8.0", fcv="7.0")
    path = policy(tmp_path, ROUTE)
    code, out, _ = zonectl("plan", path, "--uri", sb.uri)
    assert code == 0
    assert "needs MongoDB 7.2 or later, at that feature compatibility version" in out
    assert "the cluster runs 8.0.4 at FCV 7.0" in out
    assert "reshard route: needs 7.2+" in out  # the forecast offers no route it cannot take
    code, out, _ = zonectl("plan", path, "--uri", sb.uri, "--format", "json")
    # ... and its JSON no figures for it: it is named, not forecast
    assert json.loads(out)["forecast"]["reshard"] == [{"ns": "db.foo", "available": False}]
    code, _, err = zonectl("apply", path, "--uri", sb.uri, "--yes")
    assert code == 1 and "nothing was changed" in err
    assert not sb.client.config.changelog.count_documents({"what": {"$regex": "^resharding"}})


def test_doctor_says_the_fcv_lags_the_binary(foo: Callable[..., Any]) -> None:
    sb = foo("8.0", fcv="7.0")
    code, out, _ = zonectl("doctor", "--uri", sb.uri)
    assert code == 0, out  # a warning, not a failure: nothing zonectl needs is off
    assert "MongoDB 8.0.4, FCV 7.0" in out
    assert "the feature compatibility version lags the binary" in out
