"""`connectionStatus` with `showPrivileges: true`: the authenticated user's privileges as
`{resource: {...}, actions: [...]}` documents, one per resource, built from auth.py's roles.

Shape: mongo:src/mongo/db/commands/connection_status.cpp (`expandPrivileges` merges the
actions of every role per resource, so each resource appears once) and the resource
documents of the manual's "Resource Document" page: `{cluster: true}`, `{anyResource: true}`,
`{db: "", collection: ""}` (every normal resource: not config/local, not system.*, per
mongo:src/mongo/db/auth/resource_pattern_search_list.h), `{db: "d", collection: ""}`.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox import auth


def _every_action() -> frozenset[str]:
    actions: set[str] = set()
    for group in (
        auth.READ, auth.WRITE, auth.MONITOR_CLUSTER, auth.MANAGER_CLUSTER, auth.MANAGER_ANY_DB,
    ):  # fmt: skip
        actions |= group
    for need in auth.COMMAND_PRIVILEGES.values():
        actions |= {action for alternative in need for _, action in alternative}
    return frozenset(actions)


def _resource(pattern: str) -> dict[str, Any]:
    if pattern == "cluster":
        return {"cluster": True}
    if pattern == "any":
        return {"anyResource": True}
    if pattern == "anyNormal":
        return {"db": "", "collection": ""}
    return {"db": pattern.removeprefix("db:"), "collection": ""}


def privilege_documents(roles: tuple[str, ...]) -> list[dict[str, Any]]:
    """Merged privileges of `roles` ("role@db"). The sandbox models root as every action on
    any resource (auth.py lets root run anything); real root lists the privileges of the
    roles it inherits instead, which grant zonectl the same actions."""
    merged: dict[str, set[str]] = {}
    for spec in roles:
        role, _, db = spec.partition("@")
        for pattern, actions in auth.role_privileges(role, db):
            expanded = _every_action() if "*" in actions else actions
            merged.setdefault(pattern, set()).update(expanded)
    return [
        {"resource": _resource(pattern), "actions": sorted(actions)}
        for pattern, actions in sorted(merged.items())
    ]
