"""SCRAM authentication and role-based authorization, end to end through pymongo."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure

from zonectl.sandbox.auth.users import AuthConfig, User

USERS = AuthConfig(
    users=[
        User("admin", "admin", "s3cret", ("root",)),
        User("ops", "admin", "pw", ("clusterManager",)),
        User("reader", "admin", "pw", (("read", "config"),)),
        User("anyreader", "admin", "pw", ("readAnyDatabase",)),
    ],
    iterations_sha256=4096,
    iterations_sha1=4096,
)


@pytest.fixture(scope="module")
def sb(module_sandbox_server: Any) -> Any:
    return module_sandbox_server(auth=USERS)


def login(sb: Any, user: str, password: str, mechanism: str = "SCRAM-SHA-256") -> Any:
    return sb.new_client(username=user, password=password, authMechanism=mechanism)


def test_scram_sha256_and_sha1_logins_succeed(sb: Any) -> None:
    status = login(sb, "admin", "s3cret").admin.command("connectionStatus")
    assert status["authInfo"]["authenticatedUsers"] == [{"user": "admin", "db": "admin"}]
    status = login(sb, "admin", "s3cret", "SCRAM-SHA-1").admin.command("connectionStatus")
    assert status["authInfo"]["authenticatedUsers"] == [{"user": "admin", "db": "admin"}]
    default = sb.new_client(username="ops", password="pw")  # speculative auth path
    assert default.admin.command("ping")["ok"] == 1.0


def test_wrong_password_is_authentication_failed(sb: Any) -> None:
    with pytest.raises(OperationFailure) as info:
        login(sb, "admin", "nope").admin.command("ping")
    assert info.value.code == 18
    assert "Authentication failed." in str(info.value)


def test_unauthenticated_commands_require_authentication(sb: Any) -> None:
    assert sb.client.admin.command("ping")["ok"] == 1.0  # ping needs no auth
    with pytest.raises(OperationFailure) as info:
        sb.client.config.shards.find_one()
    assert info.value.code == 13
    assert "command find requires authentication" in str(info.value)


def test_read_role_reads_config_but_cannot_write_it(sb: Any) -> None:
    client = login(sb, "reader", "pw")
    client.config.settings.find_one()
    with pytest.raises(OperationFailure) as info:
        client.config.settings.update_one({"_id": "balancer"}, {"$set": {"stopped": True}})
    assert info.value.code == 13
    assert str(info.value).startswith("not authorized on config to execute command { update:")


def test_read_any_database_does_not_cover_config(sb: Any) -> None:
    client = login(sb, "anyreader", "pw")
    client.app.data.find_one()
    with pytest.raises(OperationFailure) as info:
        client.config.settings.find_one()
    assert info.value.code == 13


def test_cluster_manager_may_write_config_settings(sb: Any) -> None:
    client = login(sb, "ops", "pw")
    client.config.settings.update_one({"_id": "balancer"}, {"$set": {"stopped": True}}, upsert=True)
    assert client.config.settings.find_one({"_id": "balancer"})["stopped"] is True
