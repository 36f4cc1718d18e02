"""Write commands over the catalog: insert, update, delete, findAndModify, create, drop,
dropDatabase.

Per-document failures become `writeErrors` entries ({index, code, errmsg}) and an ordered
batch stops at the first, as mongod's write_ops_exec does; a duplicate `_id` is DuplicateKey
(11000) "E11000 duplicate key error collection: <ns> index: _id_ dup key: { _id: ... }".
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.catalog import doc_sizes, settings_schema
from zonectl.sandbox.catalog.store import Collection
from zonectl.sandbox.catalog.unsharded import create_with_options
from zonectl.sandbox.commands.authz import shell_repr
from zonectl.sandbox.commands.crud import decoded, filtered
from zonectl.sandbox.commands.indexes import forget_indexes
from zonectl.sandbox.commands.nsutil import namespace_of
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.commands.reshard import wait_while_writes_blocked
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.query.matcher import validate
from zonectl.sandbox.query.shape import project, sort_documents, validate_projection, validate_sort
from zonectl.sandbox.query.update import (
    apply_update,
    is_operator_update,
    upsert_seed,
    with_id_first,
)

if TYPE_CHECKING:
    pass


def _documents(request: Request, field: str) -> list[Any]:
    docs = request.body.get(field)
    if not isinstance(docs, list):
        raise CommandError.of(
            "IDLFailedToParse",
            f"BSON field '{request.name}.{field}' is missing but a required field",
        )
    return docs


def _write_error(index: int, exc: CommandError) -> dict[str, Any]:
    entry: dict[str, Any] = {"index": index, "code": exc.code, "errmsg": exc.message}
    entry.update(exc.extra)
    return entry


def _duplicate(namespace: str, _id: Any) -> CommandError:
    return CommandError.of(
        "DuplicateKey",
        f"E11000 duplicate key error collection: {namespace} index: _id_ dup key: "
        f"{shell_repr({'_id': _id})}",
        keyPattern={"_id": 1},
        keyValue={"_id": _id},
    )


Check = Callable[[Mapping[str, Any]], None]


def _validator(request: Request, namespace: str) -> Check:
    """The collection's validator (only config.settings has one: catalog/settings_schema)."""
    sandbox = request.sandbox

    def check(doc: Mapping[str, Any]) -> None:
        settings_schema.check_write(sandbox.catalog, sandbox.version, namespace, doc)

    return check


def _insert_one(coll: Collection, namespace: str, doc: Any, check: Check) -> Mapping[str, Any]:
    if not isinstance(doc, Mapping):
        raise CommandError.of("TypeMismatch", "insert documents must be objects")
    stored: dict[str, Any] = with_id_first(dict(doc))
    if isinstance(stored["_id"], list):
        raise CommandError.of("BadValue", "can't use an array for _id")
    if coll.get(stored["_id"]) is not None:
        raise _duplicate(namespace, stored["_id"])
    check(stored)
    coll.put(stored)
    return stored


def _run_batch(request: Request, field: str, one: Any) -> tuple[int, list[dict[str, Any]]]:
    ordered = request.body.get("ordered", True) is not False
    n = 0
    errors: list[dict[str, Any]] = []
    for index, item in enumerate(_documents(request, field)):
        try:
            n += one(item, index)
        except CommandError as exc:
            errors.append(_write_error(index, exc))
            if ordered:
                break
    return n, errors


def _reply(n: int, errors: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"n": n, **extra}
    if errors:
        out["writeErrors"] = errors
    return out


@command("insert")
def insert(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    wait_while_writes_blocked(request, namespace)
    coll = request.sandbox.catalog.ensure(namespace)
    cluster = request.sandbox.cluster
    check = _validator(request, namespace)

    def one(doc: Any, _index: int) -> int:
        doc_sizes.count(cluster, namespace, _insert_one(coll, namespace, doc, check), 1)
        return 1

    return _reply(*_run_batch(request, "documents", one))


def _update_docs(
    request: Request, coll: Collection, namespace: str, spec: Mapping[str, Any], multi: bool
) -> tuple[int, int, Any]:
    """(matched, modified, upserted _id or None) for one update statement."""
    query = spec.get("q", {})
    validate(query)
    update = spec.get("u", {})
    is_ops = is_operator_update(update)
    if multi and not is_ops:
        raise CommandError.of(
            "InvalidOptions", "multi update is not supported for replacement-style update"
        )
    matched = modified = 0
    now = request.sandbox.clock.now()
    check = _validator(request, namespace)
    targets = [dict(decoded(d)) for d in filtered(coll.scan(query), query)]
    for doc in targets[: None if multi else 1]:
        new = apply_update(doc, update, now=now)
        matched += 1
        if new != doc:
            check(new)  # strict validation: every update that changes the document
            coll.put(new)
            modified += 1
    if matched or not spec.get("upsert"):
        return matched, modified, None
    seed = upsert_seed(query) if is_ops else {}
    if not is_ops and "_id" in query and not isinstance(query["_id"], Mapping):
        seed = {"_id": query["_id"]}
    new = apply_update(seed, update, inserting=True, now=now)
    if not is_ops and "_id" in seed:
        new = {"_id": seed["_id"], **new}
    new = with_id_first(new)
    if coll.get(new["_id"]) is not None:
        raise _duplicate(namespace, new["_id"])
    check(new)
    coll.put(new)
    return 0, 0, new["_id"]


@command("update")
def update(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    wait_while_writes_blocked(request, namespace)
    coll = request.sandbox.catalog.ensure(namespace)
    upserted: list[dict[str, Any]] = []
    modified_total = 0

    def one(spec: Any, index: int) -> int:
        nonlocal modified_total
        if not isinstance(spec, Mapping):
            raise CommandError.of("TypeMismatch", "update statements must be objects")
        matched, modified, upserted_id = _update_docs(
            request, coll, namespace, spec, bool(spec.get("multi"))
        )
        modified_total += modified
        if upserted_id is not None:
            upserted.append({"index": index, "_id": upserted_id})
            return 1
        return matched

    n, errors = _run_batch(request, "updates", one)
    extra: dict[str, Any] = {"nModified": modified_total}
    if upserted:
        extra["upserted"] = upserted
    return _reply(n, errors, **extra)


@command("delete")
def delete(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    wait_while_writes_blocked(request, namespace)
    coll = request.sandbox.catalog.get(namespace)

    def one(spec: Any, _index: int) -> int:
        if not isinstance(spec, Mapping) or "q" not in spec:
            raise CommandError.of(
                "IDLFailedToParse", "BSON field 'delete.deletes.q' is missing but a required field"
            )
        query = spec["q"]
        validate(query)
        if coll is None:
            return 0
        limit = spec.get("limit", 0)
        docs = [decoded(d) for d in filtered(coll.scan(query), query)]
        if limit:
            docs = docs[:1]
        removed = [d for d in docs if coll.remove(d["_id"])]
        for d in removed:
            doc_sizes.count(request.sandbox.cluster, namespace, d, -1)
        return len(removed)

    return _reply(*_run_batch(request, "deletes", one))


@command("findAndModify", aliases=("findandmodify",))
def find_and_modify(request: Request) -> dict[str, Any]:
    body = request.body
    namespace = namespace_of(request)
    wait_while_writes_blocked(request, namespace)
    coll = request.sandbox.catalog.ensure(namespace)
    query = body.get("query") or {}
    validate(query)
    remove, update_doc = bool(body.get("remove")), body.get("update")
    if remove == (update_doc is not None):
        raise CommandError.of("FailedToParse", "Either an update or remove=true must be specified")
    docs = [dict(decoded(d)) for d in filtered(coll.scan(query), query)]
    if body.get("sort"):
        docs = sort_documents(docs, validate_sort(body["sort"]))
    target = docs[0] if docs else None
    last_error: dict[str, Any] = {"n": 0}
    value: Any = None
    if remove:
        if target is not None:
            coll.remove(target["_id"])
            last_error, value = {"n": 1}, target
    else:
        spec = {"q": query if target is None else {"_id": target["_id"]}, "u": update_doc,
                "upsert": bool(body.get("upsert"))}  # fmt: skip
        _, _, upserted_id = _update_docs(request, coll, namespace, spec, multi=False)
        after_id = upserted_id if upserted_id is not None else (target or {}).get("_id")
        after = coll.get(after_id) if after_id is not None else None
        last_error = {"n": 1 if (target or upserted_id is not None) else 0,
                      "updatedExisting": target is not None}  # fmt: skip
        if upserted_id is not None:
            last_error["upserted"] = upserted_id
        value = after if body.get("new") else target
    if value is not None and body.get("fields"):
        inclusion, fields = validate_projection(body["fields"])
        value = project(dict(decoded(value)), inclusion, fields)
    return {"lastErrorObject": last_error, "value": value}


@command("create")
def create(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    if request.sandbox.catalog.get(namespace) is not None:
        raise CommandError.of("NamespaceExists", f"Collection {namespace} already exists.")
    create_with_options(request.sandbox.cluster, namespace, request.body)
    return {}


INTERRUPTED = "operation was interrupted"  # an operation killed by markKilled()


@command("drop")
def drop(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    db = request.db
    if db in ("config", "admin"):
        # A mongos refuses to drop the sharding metadata it serves.
        raise CommandError.of("IllegalOperation", f"Cannot drop collection {namespace} via mongos")
    existed = request.sandbox.catalog.drop(namespace)
    # The DDL coordinator stops migrations first (sharding_ddl_util::stopMigrations): a
    # migration of it in flight is aborted, its moveChunk answers Interrupted.
    request.sandbox.balancer.abort(namespace, CommandError.of("Interrupted", INTERRUPTED))
    # A sharded collection's drop also removes its config.collections entry, chunks and
    # zone ranges (reference §1.7; Cluster.drop_collection), documents or not.
    existed = request.sandbox.cluster.drop_collection(namespace) or existed
    forget_indexes(request.sandbox, namespace)
    if not existed and request.sandbox.version.major_minor in ("5.0", "6.0"):
        raise CommandError.of("NamespaceNotFound", "ns not found")
    return {"ns": namespace, "nIndexesWas": 1} if existed else {}


@command("dropDatabase")
def drop_database(request: Request) -> dict[str, Any]:
    db = request.db
    if db in ("config", "admin"):
        # cluster_drop_database_cmd.cpp: "Cannot drop the config database" / admin.
        raise CommandError.of("IllegalOperation", f"Cannot drop the {db} database")
    catalog = request.sandbox.catalog
    dropped = [ns for ns in list(catalog.namespaces()) if ns.split(".", 1)[0] == db]
    for ns in dropped:
        catalog.drop(ns)
    # DropDatabaseCoordinator (mongo:src/mongo/db/s/drop_database_coordinator.cpp): every
    # sharded collection's metadata goes first (entry, chunks, zone ranges), then the
    # config.databases entry (removeDatabaseMetadataFromConfig).
    cluster = request.sandbox.cluster
    sharded = [d["_id"] for d in cluster.coll("config.collections") if _in_db(d["_id"], db)]
    known = cluster.database_doc(db) is not None
    for ns in sharded:
        request.sandbox.balancer.abort(ns, CommandError.of("Interrupted", INTERRUPTED))
        cluster.drop_collection(ns)
    if known:
        cluster.coll("config.databases").remove(db)
    return {"dropped": db} if dropped or sharded or known else {}


def _in_db(namespace: Any, db: str) -> bool:
    return isinstance(namespace, str) and namespace.split(".", 1)[0] == db
