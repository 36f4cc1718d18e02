"""Index commands: createIndexes and listIndexes over the catalog's collections.

The sandbox keeps no index data, only the specs a client created, so `listIndexes` answers
what `createIndexes` was given (plus the `_id_` index every collection has).
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.commands.crud import cursor_reply, encode
from zonectl.sandbox.commands.nsutil import namespace_of
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

_INDEXES: weakref.WeakKeyDictionary[Sandbox, dict[str, list[dict[str, Any]]]] = (
    weakref.WeakKeyDictionary()
)
_ID_INDEX = {"v": 2, "key": {"_id": 1}, "name": "_id_"}


def index_specs(sandbox: Sandbox, namespace: str) -> list[dict[str, Any]]:
    return [_ID_INDEX, *_INDEXES.get(sandbox, {}).get(namespace, [])]


def forget_indexes(sandbox: Sandbox, namespace: str) -> None:
    """The collection was dropped: its indexes go with it."""
    _INDEXES.get(sandbox, {}).pop(namespace, None)


@command("createIndexes")
def create_indexes(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    catalog = request.sandbox.catalog
    created = catalog.get(namespace) is None
    catalog.ensure(namespace)
    specs = request.body.get("indexes")
    if not isinstance(specs, list) or not specs:
        raise CommandError.of("BadValue", "Must specify at least one index to create")
    existing = _INDEXES.setdefault(request.sandbox, {}).setdefault(namespace, [])
    before = 1 + len(existing)
    for spec in specs:
        if not isinstance(spec, Mapping) or "key" not in spec or "name" not in spec:
            raise CommandError.of("FailedToParse", "Index spec must have 'key' and 'name'")
        if spec["name"] != "_id_" and all(s["name"] != spec["name"] for s in existing):
            existing.append({"v": 2, **dict(spec)})
    return {
        "createdCollectionAutomatically": created,
        "numIndexesBefore": before,
        "numIndexesAfter": 1 + len(existing),
    }


@command("listIndexes")
def list_indexes(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    if request.sandbox.catalog.get(namespace) is None:
        raise CommandError.of("NamespaceNotFound", f"ns does not exist: {namespace}")
    specs = index_specs(request.sandbox, namespace)
    return cursor_reply(request, namespace, (encode(s) for s in specs), batch_size=None)
