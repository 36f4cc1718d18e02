"""Read commands over the catalog: find, getMore, killCursors, count, distinct, aggregate,
listCollections (listIndexes lives with createIndexes in `indexes`).

Documents stream as raw BSON: a scan's `RawBSONDocument`s go into cursor batches unparsed
(only filtering, sorting or projecting forces a decode), which is what lets `find` on a
million-chunk `config.chunks` keep pace with pymongo. Field checks and messages follow
mongo:src/mongo/db/query/query_request_helper.cpp and the find/getMore command IDL.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

import bson
from bson import Int64
from bson.raw_bson import RawBSONDocument

from zonectl.sandbox.auth.roles import is_allowed
from zonectl.sandbox.catalog import data_distribution
from zonectl.sandbox.catalog.store import Scan
from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.commands import cluster_catalog, current_op
from zonectl.sandbox.commands.authz import command_namespace
from zonectl.sandbox.commands.collection_pipeline import run_on_collection
from zonectl.sandbox.commands.move_collection import CURRENT_OP
from zonectl.sandbox.commands.nsutil import collection_of, namespace_of
from zonectl.sandbox.commands.query_analyzer import (
    LIST_SAMPLED_QUERIES,
    list_sampled_queries,
    sampler_ops,
)
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import equal
from zonectl.sandbox.query.aggregate import KNOWN_STAGES, run_pipeline
from zonectl.sandbox.query.cursors import encode_cursor
from zonectl.sandbox.query.matcher import matches, validate
from zonectl.sandbox.query.paths import MISSING, lookup
from zonectl.sandbox.query.raw_projection import raw_projector
from zonectl.sandbox.query.shape import project, sort_documents, validate_projection, validate_sort

DEFAULT_FIRST_BATCH = 101  # find's and aggregate's default first batch (find_common.h)


def encode(doc: Any) -> bytes:
    if isinstance(doc, bytes):  # already projected from raw bytes
        return doc
    if isinstance(doc, RawBSONDocument):
        raw = doc.raw
        return raw if isinstance(raw, bytes) else bytes(raw)
    return bson.encode(doc, codec_options=CODEC)


def _encoded(docs: Iterable[Any]) -> Iterator[bytes]:
    """Bytes of each document; raw documents pass through without re-encoding."""
    for doc in docs:
        yield encode(doc)


def _raw_bytes(docs: Iterable[Any]) -> Iterator[bytes]:
    """The fast path of an exact scan: raw documents' bytes straight into batches."""
    it = iter(docs)
    for doc in it:
        if type(doc) is RawBSONDocument:
            yield doc.raw  # type: ignore[misc]  # always bytes for a decoded reply
            yield from map(_RAW, it)
        else:
            yield encode(doc)
            yield from _encoded(it)
        return


_RAW = operator.attrgetter("raw")


def decoded(doc: Any) -> Mapping[str, Any]:
    """A matchable view of a document (RawBSONDocument decodes lazily on first access)."""
    if isinstance(doc, RawBSONDocument):
        return bson.decode(doc.raw, CODEC)
    return doc  # type: ignore[no-any-return]


def _non_negative(body: Mapping[str, Any], field: str, label: str) -> int | None:
    value = body.get(field)
    if value is None:
        return None
    if not isinstance(value, int | float) or isinstance(value, bool):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'FindCommandRequest.{field}' is the wrong type "
            f"'{type(value).__name__}', expected types '[long, int, decimal, double]'",
        )
    if value < 0:
        raise CommandError.of(
            "BadValue", f"{label} value must be non-negative, but received: {int(value)}"
        )
    return int(value)


def scan_docs(request: Request, namespace: str, query: Mapping[str, Any]) -> Scan:
    coll = request.sandbox.catalog.get(namespace)
    if coll is None:
        return Scan([], exact=True)
    return coll.scan(query)


def filtered(scan: Scan, query: Mapping[str, Any]) -> Iterator[Any]:
    if scan.exact:
        return iter(scan.docs)
    return (d for d in scan.docs if matches(decoded(d), query))


def cursor_reply(
    request: Request,
    namespace: str,
    docs: Iterator[bytes],
    *,
    batch_size: int | None,
    limit: int | None = None,
    single_batch: bool = False,
) -> dict[str, Any]:
    cursors = request.sandbox.cursors
    owner = request.session.user and f"{request.session.user}@{request.session.user_db}"
    cursor = cursors.open(namespace, docs, remaining=limit, owner=owner)
    batch, done = cursor.next_batch(DEFAULT_FIRST_BATCH if batch_size is None else batch_size)
    if done or single_batch:
        cursors.close(cursor.id)
    cursor_id = 0 if done or single_batch else cursor.id
    return {"cursor": RawBSONDocument(encode_cursor(batch, cursor_id, namespace, first=True))}


@command("find")
def find(request: Request) -> dict[str, Any]:
    body = request.body
    namespace = namespace_of(request)
    query = body.get("filter", {})
    validate(query)
    skip = _non_negative(body, "skip", "Skip") or 0
    limit = _non_negative(body, "limit", "Limit") or None
    batch_size = _non_negative(body, "batchSize", "BatchSize")
    if body.get("tailable"):
        raise CommandError.of(
            "BadValue", "error processing query: tailable cursor requested on non capped collection"
        )
    sort = validate_sort(body["sort"]) if body.get("sort") else []
    projection = validate_projection(body["projection"]) if body.get("projection") else None
    scan = scan_docs(request, namespace, query)
    docs: Iterable[Any] = filtered(scan, query)
    plain = scan.exact and not sort and not skip and projection is None
    if len(sort) == 1 and sort[0][0] == "$natural":
        # {$natural: 1 | -1}: a collection scan in insertion order or its reverse (how tools
        # read a capped collection such as config.changelog newest first, stopping at the
        # limit instead of sorting it all).
        coll = request.sandbox.catalog.get(namespace)
        rows = [d for d in (coll or ()) if matches(decoded(d), query)]
        docs = reversed(rows) if sort[0][1] < 0 else iter(rows)
        sort, plain = [], False
    ordered = tuple(scan.ordered_by[: len(sort)])
    if sort and tuple(sort) == tuple((f, -d) for f, d in ordered) and scan.backward is not None:
        # The index walked backwards, as a server does for the reverse of an index order.
        docs = filtered(Scan(scan.backward, scan.exact), query)
    elif sort and tuple(sort) != ordered:
        docs = sort_documents((decoded(d) for d in docs), sort)
    if skip:
        docs = itertools.islice(docs, skip, None)
    if projection is not None:
        inclusion, fields = projection
        docs = _projected(docs, inclusion, fields)
    single = bool(body.get("singleBatch"))
    if limit is not None and batch_size is None:
        batch_size = min(limit, DEFAULT_FIRST_BATCH)
    return cursor_reply(
        request,
        namespace,
        _raw_bytes(scan.docs) if plain else _encoded(docs),
        batch_size=batch_size,
        limit=limit,
        single_batch=single,
    )


def _projected(docs: Iterable[Any], inclusion: bool, fields: dict[str, bool]) -> Iterator[Any]:
    """Projected documents; raw ones keep raw bytes when whole top-level fields are kept."""
    fast = raw_projector(inclusion, fields)
    for doc in docs:
        if fast is not None and isinstance(doc, RawBSONDocument):
            yield fast(bytes(doc.raw))
        else:
            yield project(decoded(doc), inclusion, fields)


@command("getMore")
def get_more(request: Request) -> dict[str, Any]:
    cursor_id = request.arg
    if not isinstance(cursor_id, int) or isinstance(cursor_id, bool):
        raise CommandError.of(
            "TypeMismatch", "BSON field 'getMore.getMore' is the wrong type, expected type 'long'"
        )
    collection = request.body.get("collection")
    if not isinstance(collection, str):
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'getMore.collection' is missing but a required field"
        )
    cursors = request.sandbox.cursors
    cursor = cursors.get(int(cursor_id))
    if cursor is None:
        raise CommandError.of("CursorNotFound", f"cursor id {cursor_id} not found")
    namespace = f"{request.db}.{collection}"
    if cursor.namespace != namespace:
        raise CommandError.of(
            "Unauthorized",
            f"Requested getMore on namespace '{namespace}', but cursor belongs to a "
            f"different namespace {cursor.namespace}",
        )
    owner = request.session.user and f"{request.session.user}@{request.session.user_db}"
    if cursor.owner is not None and cursor.owner != owner:
        raise CommandError.of(
            "Unauthorized", f"cursor id {cursor_id} was not created by the authenticated user"
        )
    batch_size = _non_negative(request.body, "batchSize", "BatchSize") or None
    batch, done = cursor.next_batch(batch_size)
    if done:
        cursors.close(cursor.id)
    cursor_id = 0 if done else cursor.id
    return {"cursor": RawBSONDocument(encode_cursor(batch, cursor_id, namespace, first=False))}


@command("killCursors")
def kill_cursors(request: Request) -> dict[str, Any]:
    ids = request.body.get("cursors")
    if not isinstance(ids, list):
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'killCursors.cursors' is missing but a required field"
        )
    namespace = namespace_of(request)
    killed, not_found = [], []
    for cursor_id in ids:
        cursor = request.sandbox.cursors.get(int(cursor_id))
        if cursor is not None and cursor.namespace == namespace:
            request.sandbox.cursors.close(cursor.id)
            killed.append(Int64(cursor_id))
        else:
            not_found.append(Int64(cursor_id))
    return {
        "cursorsKilled": killed,
        "cursorsNotFound": not_found,
        "cursorsAlive": [],
        "cursorsUnknown": [],
    }


@command("count")
def count(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    query = request.body.get("query") or {}
    validate(query)
    skip = _non_negative(request.body, "skip", "Skip") or 0
    limit = request.body.get("limit") or 0
    scan = scan_docs(request, namespace, query)
    # An exact scan's size is what the index says: a real server's COUNT_SCAN decodes nothing.
    known = scan.size if scan.exact else None
    n = known if known is not None else sum(1 for _ in filtered(scan, query))
    n = max(0, n - skip)
    if limit:
        n = min(n, abs(int(limit)))
    return {"n": n}


@command("distinct")
def distinct(request: Request) -> dict[str, Any]:
    namespace = namespace_of(request)
    key = request.body.get("key")
    if not isinstance(key, str):
        raise CommandError.of(
            "TypeMismatch", "BSON field 'distinct.key' is the wrong type, expected type 'string'"
        )
    query = request.body.get("query") or {}
    validate(query)
    values: list[Any] = []
    for doc in filtered(scan_docs(request, namespace, query), query):
        for value in lookup(decoded(doc), key):
            items = value if isinstance(value, list) else [value]
            for item in items:
                if item is not MISSING and not any(equal(item, v) for v in values):
                    values.append(item)
    return {"values": values}


def _authorize_aggregate(request: Request) -> bool:
    """`find` on the namespace (the table's rule for aggregate), except that a collectionless
    `$shardedDataDistribution` needs only its own cluster action (LiteParsed privileges)."""
    roles = request.session.roles
    if _starts_with_data_distribution(request.body.get("pipeline")):
        return is_allowed(roles, "cluster", "shardedDataDistribution")
    first = _first_stage(request.body.get("pipeline"))
    if request.db == "admin" and CURRENT_OP in first:
        # DocumentSourceCurrentOp::LiteParsed: `inprog` on the cluster with allUsers: true.
        options = first[CURRENT_OP] if isinstance(first[CURRENT_OP], Mapping) else {}
        return not options.get("allUsers") or is_allowed(roles, "cluster", "inprog")
    if list(first) == [LIST_SAMPLED_QUERIES]:
        return is_allowed(roles, "cluster", "listSampledQueries")
    if list(first) == [cluster_catalog.STAGE] and _has_catalog_stage(request):
        needed = cluster_catalog.privilege(request.db, request.arg == 1)
        return needed is None or is_allowed(roles, *needed)
    # $unionWith needs find on each collection it reads (LiteParsed::requiredPrivileges).
    unions = [f"{request.db}.{coll}" for coll in _union_collections(request.body.get("pipeline"))]
    return all(is_allowed(roles, ns, "find") for ns in [command_namespace(request), *unions])


def _union_collections(pipeline: Any) -> Iterator[str]:
    for stage in pipeline if isinstance(pipeline, list) else ():
        spec = stage.get("$unionWith") if isinstance(stage, Mapping) else None
        if isinstance(spec, str):
            yield spec
        elif isinstance(spec, Mapping) and isinstance(spec.get("coll"), str):
            yield spec["coll"]
            yield from _union_collections(spec.get("pipeline"))


def _has_catalog_stage(request: Request) -> bool:
    return cluster_catalog.supported(request.sandbox.version)


def _first_stage(pipeline: Any) -> Mapping[str, Any]:
    first = pipeline[0] if isinstance(pipeline, list) and pipeline else None
    return first if isinstance(first, Mapping) else {}


def _starts_with_data_distribution(pipeline: Any) -> bool:
    first = pipeline[0] if isinstance(pipeline, list) and pipeline else None
    return isinstance(first, Mapping) and list(first) == [data_distribution.STAGE]


@command("aggregate", authorize=_authorize_aggregate)
def aggregate(request: Request) -> dict[str, Any]:
    body = request.body
    if "cursor" not in body and not body.get("explain"):
        raise CommandError.of(
            "FailedToParse",
            "The 'cursor' option is required, except for aggregate with the explain argument",
        )
    cursor_opts = body.get("cursor") or {}
    if not isinstance(cursor_opts, Mapping):
        raise CommandError.of("TypeMismatch", "cursor field must be missing or an object")
    pipeline = body.get("pipeline")
    first = pipeline[0] if isinstance(pipeline, list) and pipeline else {}
    if _starts_with_data_distribution(pipeline):
        # mongosh's sh.status() runs it (see data_distribution.py for the server's rules);
        # before 6.0.3 the stage does not exist and parsing the pipeline fails first.
        if not data_distribution.supported(request.sandbox.version):
            raise CommandError.assertion(
                40324, f"Unrecognized pipeline stage name: '{data_distribution.STAGE}'"
            )
        data_distribution.validate(first[data_distribution.STAGE], request.db, request.arg == 1)
        docs = data_distribution.documents(request.sandbox.cluster)
        rest = pipeline[1:] if isinstance(pipeline, list) else []
        results = list(run_pipeline(docs, rest, lambda coll: []))
        batch = _non_negative(cursor_opts, "batchSize", "BatchSize")
        return cursor_reply(
            request, "admin.$cmd.aggregate", (encode(d) for d in results), batch_size=batch
        )
    first_stage = list(first) if isinstance(first, Mapping) else []
    if request.arg == 1 and request.db == "admin" and first_stage == [CURRENT_OP]:
        # Only chunk migrations and moveCollection in flight (current_op.py).
        rest = pipeline[1:] if isinstance(pipeline, list) else []
        options = first[CURRENT_OP] if isinstance(first[CURRENT_OP], Mapping) else {}
        # localOps: the mongos's own operations (its query sampler), else the shards'.
        if options.get("localOps"):
            in_progress = sampler_ops(request, options)
        else:
            in_progress = current_op.documents(request, options)
        ops = list(run_pipeline(in_progress, rest, lambda coll: []))
        encoded = (encode(d) for d in ops)
        return cursor_reply(request, "admin.$cmd.aggregate", encoded, batch_size=None)
    if first_stage == [LIST_SAMPLED_QUERIES]:
        rest = pipeline[1:] if isinstance(pipeline, list) else []
        samples = list_sampled_queries(request, first[LIST_SAMPLED_QUERIES])
        found = list(run_pipeline(samples, rest, lambda coll: []))
        batch = _non_negative(cursor_opts, "batchSize", "BatchSize")
        return cursor_reply(
            request, "admin.$cmd.aggregate", (encode(d) for d in found), batch_size=batch
        )
    if first_stage == [cluster_catalog.STAGE] and _has_catalog_stage(request):
        return _list_cluster_catalog(request, list(pipeline or ()), cursor_opts)
    if request.arg == 1:
        name = first_stage[0] if first_stage else None
        if name is not None and name not in KNOWN_STAGES:
            # Parsing comes first: a stage the server lacks fails as the server fails it.
            raise CommandError.assertion(40324, f"Unrecognized pipeline stage name: '{name}'")
        what = f"{name}" if name else "{aggregate: 1}"
        raise CommandError.of("InvalidNamespace", f"{what} is not supported by the sandbox")
    namespace = namespace_of(request)
    if not isinstance(pipeline, list):
        raise CommandError.of("TypeMismatch", "'pipeline' option must be specified as an array")
    results = list(
        run_on_collection(lambda ns, q: scan_docs(request, ns, q), namespace, list(pipeline))
    )
    batch_size = _non_negative(cursor_opts, "batchSize", "BatchSize")
    return cursor_reply(request, namespace, (encode(d) for d in results), batch_size=batch_size)


def _list_cluster_catalog(
    request: Request, pipeline: list[Any], cursor_opts: Mapping[str, Any]
) -> dict[str, Any]:
    """$listClusterCatalog (cluster_catalog.py), then the rest of the pipeline on its output."""
    options = cluster_catalog.parse(pipeline, request.arg == 1)
    docs = cluster_catalog.documents(request.sandbox, request.db, options)
    results = list(run_pipeline(docs, pipeline[1:], lambda coll: []))
    batch = _non_negative(cursor_opts, "batchSize", "BatchSize")
    return cursor_reply(
        request, f"{request.db}.$cmd.aggregate", (encode(d) for d in results), batch_size=batch
    )


@command("listCollections")
def list_collections(request: Request) -> dict[str, Any]:
    query = request.body.get("filter") or {}
    validate(query)
    name_only = bool(request.body.get("nameOnly"))
    entries = cluster_catalog.collection_entries(request.sandbox, request.db, name_only)
    found = [e for e in entries if matches(e, query)]
    # `cursor.batchSize` sizes the first batch, as for aggregate (the drivers' enumerate-
    # collections spec, mongodb/specifications source/enumerate-collections.md).
    cursor_opts = request.body.get("cursor") or {}
    batch = _non_negative(cursor_opts, "batchSize", "BatchSize")
    return cursor_reply(
        request, f"{request.db}.$cmd.listCollections", (encode(e) for e in found), batch_size=batch
    )


__all__ = ["collection_of", "cursor_reply", "decoded", "encode", "filtered", "scan_docs"]
