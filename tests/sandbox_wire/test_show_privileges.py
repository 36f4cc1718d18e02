"""connectionStatus with showPrivileges: one entry per resource with the merged actions of
every role (mongo:src/mongo/db/commands/connection_status.cpp), resource documents as the
manual's "Resource Document" page writes them; absent without the flag."""

from __future__ import annotations

from typing import Any

import pytest

from zonectl.sandbox.auth.users import AuthConfig, User

USERS = AuthConfig(
    users=[
        User("ops", "admin", "pw", ("clusterManager", ("readWrite", "zonectl"))),
        User("reader", "admin", "pw", (("read", "config"), ("read", "zonectl"))),
    ],
    iterations_sha256=4096,
    iterations_sha1=4096,
)


@pytest.fixture(scope="module")
def sb(module_sandbox_server: Any) -> Any:
    return module_sandbox_server(auth=USERS)


def privileges(sb: Any, user: str) -> list[dict[str, Any]]:
    client = sb.new_client(username=user, password="pw")
    status = client.admin.command({"connectionStatus": 1, "showPrivileges": True})
    result: list[dict[str, Any]] = status["authInfo"]["authenticatedUserPrivileges"]
    return result


def by_resource(entries: list[dict[str, Any]]) -> dict[str, set[str]]:
    return {repr(sorted(e["resource"].items())): set(e["actions"]) for e in entries}


def test_cluster_manager_lists_enable_sharding_on_the_cluster(sb: Any) -> None:
    entries = by_resource(privileges(sb, "ops"))
    assert "enableSharding" in entries[repr([("cluster", True)])]
    config = entries[repr([("collection", ""), ("db", "config")])]
    assert {"find", "update", "insert", "remove"} <= config
    assert {"find", "insert", "update", "remove"} <= entries[
        repr([("collection", ""), ("db", "zonectl")])
    ]


def test_each_resource_appears_once_with_merged_actions(sb: Any) -> None:
    entries = privileges(sb, "reader")
    resources = [repr(sorted(e["resource"].items())) for e in entries]
    assert len(resources) == len(set(resources))
    assert all(e["actions"] == sorted(e["actions"]) for e in entries)
    assert {"find"} <= set(entries[0]["actions"])
    assert "update" not in {a for e in entries for a in e["actions"]}


def test_privileges_are_absent_without_the_flag_and_empty_without_a_user(sb: Any) -> None:
    client = sb.new_client(username="reader", password="pw")
    info = client.admin.command("connectionStatus")["authInfo"]
    assert "authenticatedUserPrivileges" not in info
    anonymous = sb.client.admin.command({"connectionStatus": 1, "showPrivileges": True})
    assert anonymous["authInfo"] == {
        "authenticatedUsers": [],
        "authenticatedUserRoles": [],
        "authenticatedUserPrivileges": [],
    }
