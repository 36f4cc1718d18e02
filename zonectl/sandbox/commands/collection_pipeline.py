"""An aggregation pipeline on one collection, its leading $match planned on the collection's
indexes as a server plans it: the pipeline of `aggregate` and each `$unionWith` sub-pipeline
(document_source_union_with.cpp builds every sub-pipeline through the query planner)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeGuard

import bson
from bson.raw_bson import RawBSONDocument

from zonectl.sandbox.catalog.store import Scan
from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.query.aggregate import PIPELINE_LENGTH_LIMIT, run_pipeline
from zonectl.sandbox.query.dependencies import pushdown
from zonectl.sandbox.query.matcher import validate
from zonectl.sandbox.query.raw_projection import project_top_level
from zonectl.sandbox.query.shape import validate_sort

Document = dict[str, Any]
ScanOf = Callable[[str, Mapping[str, Any]], Scan]  # (namespace, filter) -> candidates


def _decoded(
    doc: Any,
    keep: frozenset[bytes] | None = None,
    project: Callable[[Mapping[str, Any]], Document] | None = None,
) -> Mapping[str, Any]:
    """The document decoded; with `keep`, only those top-level fields (what the stages
    read), so a `$group` over every chunk does not decode each chunk's history. With
    `project` (the $project `keep` comes from), a document already decoded is projected."""
    if isinstance(doc, RawBSONDocument):
        raw = doc.raw if keep is None else project_top_level(bytes(doc.raw), keep)
        return bson.decode(raw, CODEC)
    return doc if project is None else project(doc)


def _is_mapping(value: Any) -> TypeGuard[Mapping[str, Any]]:
    return type(value) is dict or isinstance(value, Mapping)


def _only(stage: Mapping[str, Any], name: str) -> bool:
    """A stage of this one name (list(stage) == [name])."""
    return len(stage) == 1 and name in stage


def _counts_by(stage: Mapping[str, Any], groups: Any) -> bool:
    """`{$group: {_id: "$<field>", <name>: {$sum: 1}, ...}}` by the field of `groups`."""
    if groups is None or not _only(stage, "$group") or type(stage["$group"]) is not dict:
        return False
    spec = stage["$group"]
    if type(spec.get("_id")) is not str or spec["_id"] != f"${groups[0]}":
        return False
    return all(
        k == "_id"
        or (type(v) is dict and list(v) == ["$sum"] and type(v["$sum"]) is int and v["$sum"] == 1)
        for k, v in spec.items()
    )


def run_on_collection(scan_of: ScanOf, namespace: str, pipeline: list[Any]) -> Iterator[Document]:
    """`pipeline` over `namespace`. Index use, as the server's: a leading {$match, $count}
    answered from an exact index scan's size (COUNT_SCAN, nothing fetched), a {$match,
    $group} counting by the scan's leading field from its counts per value; a $sort in the
    index order (or its reverse) after the $match walks the index that way, so a $limit
    stops the walk instead of sorting every match. The length limit counts every stage,
    those the index answers too: checked first, as the server checks it before planning."""
    if len(pipeline) > PIPELINE_LENGTH_LIMIT:
        return run_pipeline([], pipeline, lambda coll: [])  # refused whole
    first = pipeline[0] if pipeline and _is_mapping(pipeline[0]) else {}
    query = first.get("$match") if _only(first, "$match") else None
    scan = scan_of(namespace, query if _is_mapping(query) else {})
    rest = pipeline
    source: Iterable[Any] = scan.docs
    second = pipeline[1] if len(pipeline) > 1 and _is_mapping(pipeline[1]) else {}
    if query is not None and _only(second, "$count") and scan.exact and scan.size is not None:
        # The count stage validates its name, then counts what the index says.
        counted = run_pipeline([{}] * min(scan.size, 1), [second], lambda coll: [])
        rest, source = pipeline[2:], ({**d, **{second["$count"]: scan.size}} for d in counted)
    elif query is not None and scan.exact and _counts_by(second, scan.groups):
        # A $group counting by the field the index walk is grouped by: each group's count
        # from the index, its value from one of its documents (decoded as the stage reads
        # it), in scan order, as the stage would output them walking the documents.
        assert scan.groups is not None
        validate(query)
        field, groups = scan.groups
        counts = [k for k in second["$group"] if k != "_id"]
        wanted = frozenset((field.encode(),))
        rest = pipeline[2:]
        source = [
            {"_id": _decoded(RawBSONDocument(one()), wanted).get(field), **dict.fromkeys(counts, n)}
            for one, n in groups
            if n
        ]
    elif query is not None and _only(second, "$sort"):
        sort = tuple(validate_sort(second["$sort"]))
        ordered = tuple(scan.ordered_by[: len(sort)])
        if sort and sort == tuple((f, -d) for f, d in ordered) and scan.backward is not None:
            source, rest = scan.backward, [pipeline[0], *pipeline[2:]]
        elif sort and sort == ordered:
            rest = [pipeline[0], *pipeline[2:]]
    if query is not None and scan.exact and rest and rest[0] is first:
        # An exact index scan yields only matching documents: the $match has nothing left
        # to filter (checked for MongoDB's parse errors all the same).
        validate(query)
        rest = rest[1:]
    # Decode only what the stages read; a leading plain $project is the decoding itself.
    keep, rest, project = pushdown(rest)
    docs = (_decoded(d, keep, project) for d in source)

    def resolve(coll: str) -> Iterable[Mapping[str, Any]]:
        db = namespace.split(".", 1)[0]
        return [_decoded(d) for d in scan_of(f"{db}.{coll}", {}).docs]

    def union(coll: str, sub: list[Any]) -> Iterator[Document]:
        return run_on_collection(scan_of, f"{namespace.split('.', 1)[0]}.{coll}", sub)

    return run_pipeline(docs, rest, resolve, union)
