"""`connectionStatus` with `showPrivileges: true`: the authenticated user's privileges as
`{resource: {...}, actions: [...]}` documents, one per resource, built from auth/roles.py.

Shape: mongo:src/mongo/db/commands/connection_status.cpp (`expandPrivileges` merges the
actions of every role per resource, so each resource appears once) and the resource
documents of the manual's "Resource Document" page: `{cluster: true}`, `{anyResource: true}`,
`{db: "", collection: ""}` (every normal resource: not config/local, not system.*, per
mongo:src/mongo/db/auth/resource_pattern_search_list.h), `{db: "d", collection: ""}`.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.auth import roles as auth


def _role_privileges(role: str, db: str) -> auth.Privileges:
    """auth.role_privileges, except root: auth.py lets root run anything ("*" on any
    resource), but connectionStatus lists what addRootRolePrivileges grants
    (mongo:src/mongo/db/auth/builtin_roles.cpp, 6.0): clusterAdmin, readWriteAnyDatabase, and
    validate on any resource; of its other roles (userAdminAnyDatabase, dbAdminAnyDatabase,
    backup, restore) the sandbox models none, and zonectl needs none."""
    if role == "root" and db == "admin":
        return (
            *auth.role_privileges("clusterAdmin", "admin"),
            *auth.role_privileges("readWriteAnyDatabase", "admin"),
            ("any", frozenset({"validate"})),
        )
    return auth.role_privileges(role, db)


def _resource(pattern: str) -> dict[str, Any]:
    if pattern == "cluster":
        return {"cluster": True}
    if pattern == "any":
        return {"anyResource": True}
    if pattern == "anyNormal":
        return {"db": "", "collection": ""}
    return {"db": pattern.removeprefix("db:"), "collection": ""}


def privilege_documents(roles: tuple[str, ...]) -> list[dict[str, Any]]:
    """Merged privileges of `roles` ("role@db"), one entry per resource."""
    merged: dict[str, set[str]] = {}
    for spec in roles:
        role, _, db = spec.partition("@")
        for pattern, actions in _role_privileges(role, db):
            merged.setdefault(pattern, set()).update(actions)
    return [
        {"resource": _resource(pattern), "actions": sorted(actions)}
        for pattern, actions in sorted(merged.items())
    ]
