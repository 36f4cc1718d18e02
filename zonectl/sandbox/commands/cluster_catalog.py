"""`$listClusterCatalog` (8.0.10+, 8.1+): one document per collection of one database, or of
every database when run on admin, with its sharding and balancing configuration.

As mongo:src/mongo/db/pipeline/document_source_list_cluster_catalog.cpp builds it (a
`$_internalListCollections` then `$lookup`s on config.collections and config.chunks; see
docs/sandbox-fidelity.md for the commit read and what is guessed):
  * collectionless only (9621301), the spec an object (9621302), IDL-strict with three
    optional booleans `shards`, `balancingConfiguration`, `tracked` (40415 / TypeMismatch);
  * each listCollections entry with `name` replaced by `ns` and `db`, then `sharded`
    (tracked and not `unsplittable`), `tracked` (only when asked), `shardKey` (sharded only),
    `shards` (the chunks' owners when tracked, else the database's primary), and for sharded
    collections `balancingEnabled`, `balancingEnabledReason`, `autoMergingEnabled`, `chunkSize`;
  * databases from config.databases, then admin and config, each taken from the back
    (internal_list_collections_stage.cpp pops its vectors), so the order is not by name.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.catalog.cluster import DATABASES
from zonectl.sandbox.commands.authz import shell_repr
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox
    from zonectl.sandbox.versions import VersionProfile

STAGE = "$listClusterCatalog"
OPTIONS = ("shards", "balancingConfiguration", "tracked")
_MB = 1024 * 1024


def supported(version: VersionProfile) -> bool:
    """New in 8.0.10 (the 8.0 manual) and in 8.1 (the rapid-release manual)."""
    have = tuple(version.version_array[:3])
    return have >= (8, 1, 0) or (have[:2] == (8, 0) and have >= (8, 0, 10))


def privilege(db: str, collectionless: bool) -> tuple[str, str] | None:
    """(resource, action) the stage needs (its LiteParsed): the cluster's
    `listClusterCatalog` on admin, `listCollections` on another database, and nothing on a
    collection (so that it fails with 9621301 rather than Unauthorized)."""
    if db == "admin":
        return "cluster", "listClusterCatalog"
    return (f"{db}.", "listCollections") if collectionless else None


def parse(pipeline: list[Any], collectionless: bool) -> dict[str, bool]:
    """The spec's options, after the server's checks in its order (see module doc)."""
    if not collectionless:
        raise CommandError.assertion(
            9621301, "The $listClusterCatalog stage must run on a database, not a collection."
        )
    spec = pipeline[0][STAGE]
    if not isinstance(spec, Mapping):
        raise CommandError.assertion(
            9621302, f"{STAGE} must take an object but found: {STAGE}: {shell_repr(spec)}"
        )
    options = dict.fromkeys(OPTIONS, False)
    for field, value in spec.items():
        if field not in OPTIONS:
            raise CommandError.of(
                "IDLUnknownField", f"BSON field '{STAGE}.{field}' is an unknown field."
            )
        if not isinstance(value, bool):
            # optionalBool (basic_types.idl): a boolean, nothing else (null included).
            raise CommandError.of(
                "TypeMismatch",
                f"Field '{field}' should be a boolean value, but found: {type_name(value)}",
            )
        options[field] = value
    for stage in pipeline[1:]:
        if isinstance(stage, Mapping) and STAGE in stage:
            raise CommandError.assertion(
                40602, f"{STAGE} is only valid as the first stage in a pipeline."
            )
    return options


def collection_entries(sandbox: Sandbox, db: str, name_only: bool = False) -> list[dict[str, Any]]:
    """What listCollections answers for `db`, by name: the catalog's collections and the
    sharded ones (which exist on their primary shard whether or not they hold documents)."""
    prefix = f"{db}."
    catalog = sandbox.catalog
    names = {ns for ns in catalog.namespaces() if ns.startswith(prefix)}
    names.update(s.ns for s in sandbox.cluster.stores() if s.ns.startswith(prefix))
    entries = []
    for ns in sorted(names):
        meta = getattr(catalog.get(ns), "meta", {})
        entry: dict[str, Any] = {"name": ns[len(prefix) :], "type": meta.get("type", "collection")}
        if not name_only:
            entry.update(
                options=dict(meta.get("options", {})),
                info={"readOnly": False},
                idIndex={"v": 2, "key": {"_id": 1}, "name": "_id_"},
            )
        entries.append(entry)
    return entries


def documents(sandbox: Sandbox, db: str, options: Mapping[str, bool]) -> Iterator[dict[str, Any]]:
    cluster = sandbox.cluster
    registered = [str(d["_id"]) for d in cluster.coll(DATABASES)]
    if db == "admin":
        databases = [*registered, "admin", "config"]
    else:
        databases = [db] if db in registered or db in ("admin", "config") else []
    default_mb = cluster.chunk_size_bytes(None) // _MB
    for name in reversed(databases):
        entry_db = cluster.database_doc(name)
        primary = str(entry_db["primary"]) if entry_db else "config"
        for listed in reversed(collection_entries(sandbox, name)):
            yield _document(sandbox, name, listed, primary, options, default_mb)


def _document(
    sandbox: Sandbox,
    db: str,
    listed: Mapping[str, Any],
    primary: str,
    options: Mapping[str, bool],
    default_mb: int,
) -> dict[str, Any]:
    ns = f"{db}.{listed['name']}"
    doc: dict[str, Any] = {"ns": ns, "db": db}
    doc.update((k, v) for k, v in listed.items() if k != "name")
    entry = sandbox.cluster.collection_doc(ns)
    tracked = entry is not None
    sharded = tracked and entry.get("unsplittable") is not True  # type: ignore[union-attr]
    doc["sharded"] = sharded
    if options["tracked"]:
        doc["tracked"] = tracked
    if sharded:
        doc["shardKey"] = dict(entry["key"])  # type: ignore[index]
    if options["shards"]:
        store = sandbox.cluster.chunks(ns)
        if not tracked:
            doc["shards"] = [primary]
        elif store is not None and len(store):
            # $addToSet's order is unspecified; the sandbox sorts.
            doc["shards"] = sorted(set(store.shards()))
    if options["balancingConfiguration"] and sharded and entry is not None:
        doc.update(_balancing(entry, default_mb))
    return doc


def _balancing(entry: Mapping[str, Any], default_mb: int) -> dict[str, Any]:
    """The $addFields of the source: noBalance and permitMigrations by truthiness, the
    auto-merger on unless `enableAutoMerge` is exactly false, chunkSize a double from
    maxChunkSizeBytes ($divide) or the balancer's default in MB (an int literal)."""
    enable = not _truthy(entry.get("noBalance", False))
    permit = entry.get("permitMigrations", True)
    permit = True if permit is None else permit
    size = entry.get("maxChunkSizeBytes")
    return {
        "balancingEnabled": enable and _truthy(permit),
        "balancingEnabledReason": {"enableBalancing": enable, "allowMigrations": permit},
        "autoMergingEnabled": entry.get("enableAutoMerge") is not False,
        "chunkSize": default_mb if size is None else int(size) / _MB,
    }


def _truthy(value: Any) -> bool:
    """Aggregation truthiness: false, null, undefined and 0 are false."""
    return value is not None and value is not False and value != 0
