"""The namespace a collection command names: `{find: "chunks", $db: "config"}` -> config.chunks.

Messages from mongo:src/mongo/db/commands.cpp `CommandHelpers::parseNsCollectionRequired`.
"""

from __future__ import annotations

from zonectl.sandbox.commands.registry import Request
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.query.types import type_name


def collection_of(request: Request) -> str:
    name = request.arg
    if not isinstance(name, str):
        raise CommandError.of(
            "InvalidNamespace", f"collection name has invalid type {type_name(name)}"
        )
    if not name or "\x00" in name or name.startswith("."):
        raise CommandError.of(
            "InvalidNamespace", f"Invalid namespace specified '{request.db}.{name}'"
        )
    return name


def namespace_of(request: Request) -> str:
    return f"{request.db}.{collection_of(request)}"
