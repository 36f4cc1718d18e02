"""The top-level fields a pipeline reads of each input document, as the server's dependency
analysis finds them (Pipeline::getDependencies, DocumentSource*::getDependencies): a
collection's stored documents are decoded with only those fields, never more."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

import bson
import bson.errors

from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.query.shape import projector, validate_projection


class Pushdown(NamedTuple):
    """What a collection scan does for the stages that follow it: decode only the fields
    `keep` names of each stored document (None: all), and, when `project` is set, stand
    for the leading `$project` (no longer in `stages`) by projecting documents that are
    already decoded."""

    keep: frozenset[bytes] | None  # the fields' names, as BSON element names
    stages: list[Any]
    project: Callable[[Mapping[str, Any]], dict[str, Any]] | None


def pushdown(stages: list[Any]) -> Pushdown:
    """The top-level fields `stages` read of each input document: those of the first stage
    that reads any ($limit and $skip only count them), when it is a `$group` or a plain
    inclusion `$project` of top-level fields, whose output is all later stages see. Such a
    `$project` is then done by the decoding itself (its output is exactly the document
    decoded with its fields: the same fields in the same order) and leaves the stages (the
    caller checked the pipeline's length with it)."""
    for at, stage in enumerate(stages):
        if not isinstance(stage, Mapping) or len(stage) != 1:
            break
        ((name, arg),) = stage.items()
        if name in ("$limit", "$skip"):
            continue  # pass documents through unread (their errors are run_pipeline's)
        if name == "$group":
            fields = group_fields(arg)
            keep = None if fields is None else frozenset(f.encode() for f in fields)
            return Pushdown(keep, stages, None)
        if name == "$project":
            parsed = _parsed_projection(arg)
            if parsed is None:
                return Pushdown(None, stages, None)
            keep, project = parsed
            return Pushdown(keep, [*stages[:at], *stages[at + 1 :]], project)
        break
    return Pushdown(None, stages, None)


Parsed = tuple[frozenset[bytes], Callable[[Mapping[str, Any]], dict[str, Any]]]
# A $project's parse by its BSON (what it means depends on nothing else): a batch of
# sub-pipelines of one shape parses it once, as a server's plan cache plans a shape once.
_PARSED: dict[bytes, Parsed | None] = {}
_PARSED_MAX = 256


def _parsed_projection(spec: Any) -> Parsed | None:
    """(kept fields' names, projector) of a plain inclusion `$project` of top-level fields."""
    try:
        key = bson.encode({"": spec}, codec_options=CODEC)
    except (bson.errors.InvalidDocument, TypeError, ValueError, OverflowError):
        key = None
    if key is not None and key in _PARSED:
        return _PARSED[key]
    fields = _top_level_inclusion(spec)
    if fields is None:
        parsed = None
    else:
        parsed = frozenset(f.encode() for f in _kept(fields)), projector(True, fields)
    if key is not None:
        if len(_PARSED) >= _PARSED_MAX:
            _PARSED.clear()
        _PARSED[key] = parsed
    return parsed


def split_projection(spec: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """A `$project`'s (plain inclusions/exclusions, computed fields)."""
    plain = {k: v for k, v in spec.items() if v in (0, 1, True, False)}
    computed = {k: v for k, v in spec.items() if k not in plain}
    return plain, computed


def _kept(fields: dict[str, bool]) -> frozenset[str]:
    """The fields an inclusion projection keeps: all it reads and all it outputs
    (DocumentSourceSingleDocumentTransformation over an inclusion projection)."""
    keep = {field for field, include in fields.items() if include and field != "_id"}
    if fields.get("_id", True):
        keep.add("_id")
    return frozenset(keep)


def _top_level_inclusion(spec: Any) -> dict[str, bool] | None:
    """The validated fields of a `$project` (as its stage parses them) when it is a plain
    inclusion of top-level fields, else None."""
    if not isinstance(spec, Mapping):
        return None
    plain, computed = split_projection(spec)
    if computed:
        return None
    try:
        inclusion, fields = validate_projection(plain)
    except CommandError:
        return None
    if not inclusion or any("." in field for field in fields):
        return None
    return fields


def group_fields(spec: Any) -> frozenset[str] | None:
    """The top-level fields a `$group` stage reads (its _id and accumulator expressions'
    `$paths`), which is all it needs of each document, as the server's dependency analysis
    finds them (DocumentSourceGroup::getDependencies); None when it needs more (`$$ROOT`,
    a variable) or the stage is malformed (its error is run_pipeline's to raise)."""
    if not isinstance(spec, Mapping) or "_id" not in spec:
        return None
    found: set[str] = set()
    exprs = [spec["_id"]]
    for field, acc in spec.items():
        if field != "_id":
            if not isinstance(acc, Mapping):
                return None
            exprs.extend(acc.values())
    while exprs:
        expr = exprs.pop()
        if isinstance(expr, str) and expr.startswith("$$"):
            return None
        if isinstance(expr, str) and expr.startswith("$"):
            found.add(expr[1:].split(".", 1)[0])
        elif isinstance(expr, list):
            exprs.extend(expr)
        elif isinstance(expr, Mapping):
            exprs.extend(expr.values())
    return frozenset(found)
