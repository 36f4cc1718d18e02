"""Aggregation pipelines over decoded documents: the stages and expressions clients send to
config collections (mongosh's sh.status(), countDocuments, zonectl's own reads).

Stage and operator semantics follow mongo:src/mongo/db/pipeline/ (document_source_*.cpp,
accumulator_*.cpp, expression.cpp). Unsupported stages fail with the code MongoDB uses for
an unknown stage name (40324) so callers see a clear error, not a wrong answer.
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import compare, encode, equal
from zonectl.sandbox.query.dependencies import split_projection
from zonectl.sandbox.query.matcher import matches, validate
from zonectl.sandbox.query.paths import MISSING, get_first, lookup
from zonectl.sandbox.query.shape import (
    project,
    projector,
    sort_documents,
    validate_projection,
    validate_sort,
)

Document = dict[str, Any]
Resolver = Callable[[str], Iterable[Mapping[str, Any]]]  # "coll" -> documents, for $lookup
# ("coll", sub-pipeline) -> its output, for $unionWith (the caller plans its first $match
# on the collection's indexes, as a server plans every sub-pipeline on its own)
Union = Callable[[str, list[Any]], Iterable[Mapping[str, Any]]]
PIPELINE_LENGTH_LIMIT = 1000  # internalPipelineLengthLimit of release builds
MATERIALIZE_EVERY = 200  # stages per chain of generators in a long pipeline
# Every stage name the sandbox parses (here, or as a first stage in commands/crud.py).
KNOWN_STAGES = frozenset(
    {
        "$match", "$sort", "$limit", "$skip", "$project", "$addFields", "$set", "$unset",
        "$group", "$count", "$unwind", "$lookup", "$replaceRoot", "$unionWith",
        "$shardedDataDistribution", "$currentOp", "$listSampledQueries",
    }
)  # fmt: skip


def run_pipeline(
    docs: Iterable[Any], pipeline: Any, resolve: Resolver, union: Union | None = None
) -> Iterator[Document]:
    if not isinstance(pipeline, list):
        raise CommandError.of("TypeMismatch", "'pipeline' option must be specified as an array")
    if len(pipeline) > PIPELINE_LENGTH_LIMIT:
        # pipeline.cpp validateCommon, for each pipeline and each sub-pipeline on its own
        # (jstests/sharding/query/pipeline_length_limit.js); 7.1+ checks before parsing too.
        raise CommandError.of(
            "FailedToParse",
            f"Pipeline length must be no longer than {PIPELINE_LENGTH_LIMIT} stages",
        )
    stream: Iterable[Any] = docs
    for depth, stage in enumerate(pipeline, 1):
        if depth % MATERIALIZE_EVERY == 0:
            stream = list(stream)  # bound the generator nesting (Python's recursion limit)
        if not (type(stage) is dict or isinstance(stage, Mapping)) or len(stage) != 1:
            raise CommandError.assertion(
                40323, "A pipeline stage specification object must contain exactly one field."
            )
        name, arg = next(iter(stage.items()))
        if name == "$unionWith":
            stream = _union_with(stream, arg, union)
            continue
        stream = _stage(stream, name, arg, resolve)
    return (dict(d) for d in stream)


def union_spec(arg: Any) -> tuple[str, list[Any]]:
    """(collection, sub-pipeline) of a `$unionWith` stage (4.4+): a collection name, or
    {coll, pipeline} (document_source_union_with.cpp createFromBson, its IDL UnionWithSpec)."""
    if isinstance(arg, str):
        return arg, []
    if not (type(arg) is dict or isinstance(arg, Mapping)):
        kind = "array" if isinstance(arg, list) else type(arg).__name__
        raise CommandError.of(
            "FailedToParse",
            f"the $unionWith stage specification must be an object or string, but found {kind}",
        )
    for field in arg:
        if field not in ("coll", "pipeline"):
            raise CommandError.assertion(
                40415, f"BSON field '$unionWith.{field}' is an unknown field."
            )
    coll, pipeline = arg.get("coll"), arg.get("pipeline", [])
    if not isinstance(coll, str):
        # Only a pipeline starting with $documents may omit coll (6.0+); the sandbox has none.
        raise CommandError.of(
            "FailedToParse",
            "$unionWith stage without explicit collection must have a pipeline with "
            "$documents as first stage",
        )
    if not isinstance(pipeline, list):
        raise CommandError.of(
            "TypeMismatch",
            "BSON field '$unionWith.pipeline' is the wrong type, expected type 'array'",
        )
    return coll, pipeline


class _Chain:
    """The input, then each $unionWith's output in turn: consecutive $unionWith stages
    extend one chain rather than nest, so a document passes one generator, not hundreds."""

    def __init__(self, head: Iterable[Any]) -> None:
        self.head = head
        self.tails: list[Callable[[], Iterable[Any]]] = []

    def __iter__(self) -> Iterator[Any]:
        yield from self.head
        for tail in self.tails:
            yield from tail()


def _union_with(docs: Iterable[Any], arg: Any, union: Union | None) -> _Chain:
    """The input, then the sub-pipeline's output on the other collection (same database),
    run when the stream reaches it."""
    coll, pipeline = union_spec(arg)
    if union is None:
        raise CommandError.assertion(40324, "Unrecognized pipeline stage name: '$unionWith'")
    chain = docs if isinstance(docs, _Chain) else _Chain(docs)
    chain.tails.append(lambda: union(coll, pipeline))
    return chain


def _stage(docs: Iterable[Any], name: str, arg: Any, resolve: Resolver) -> Iterable[Any]:
    if name == "$match":
        validate(arg)
        return (d for d in docs if matches(d, arg))
    if name == "$sort":
        return sort_documents(docs, validate_sort(arg))
    if name in ("$limit", "$skip"):
        if not isinstance(arg, int) or isinstance(arg, bool) or arg < 0:
            raise CommandError.of("BadValue", f"invalid argument to {name} stage")
        # Lazy, as the server's stages pull: a $limit after an index-ordered source stops
        # the scan (document_source_limit.cpp).
        if name == "$limit":
            return itertools.islice(docs, arg)
        return itertools.islice(docs, arg, None)
    if name == "$project":
        return _project(docs, arg)
    if name in ("$addFields", "$set"):
        return ({**d, **{k: evaluate(d, v) for k, v in arg.items()}} for d in docs)
    if name == "$unset":
        fields = [arg] if isinstance(arg, str) else list(arg)
        return (project(d, False, dict.fromkeys(fields, False)) for d in docs)
    if name == "$group":
        return _group(docs, arg)
    if name == "$count":
        if not isinstance(arg, str) or not arg or arg.startswith("$") or "." in arg:
            raise CommandError.assertion(40156, "the count field must be a non-empty string")
        total = sum(1 for _ in docs)
        return [{arg: total}] if total else []
    if name == "$unwind":
        return _unwind(docs, arg)
    if name == "$lookup":
        return _lookup(docs, arg, resolve)
    if name == "$replaceRoot":
        return (evaluate(d, arg["newRoot"]) for d in docs)
    raise CommandError.assertion(40324, f"Unrecognized pipeline stage name: '{name}'")


def _project(docs: Iterable[Any], spec: Mapping[str, Any]) -> Iterator[Document]:
    plain, computed = split_projection(spec)
    if not computed:
        inclusion, fields = validate_projection(plain)
        return map(projector(inclusion, fields), docs)
    if plain.get("_id", True):
        base = projector(True, plain or {"_id": True})
    else:
        base = projector(True, {**plain, "_id": False})

    def one(doc: Mapping[str, Any]) -> Document:
        out = base(doc)
        for key, expr in computed.items():
            value = evaluate(doc, expr)
            if value is not MISSING:
                out[key] = value
        return out

    return map(one, docs)


def _group(docs: Iterable[Any], spec: Mapping[str, Any]) -> list[Document]:
    if "_id" not in spec:
        raise CommandError.assertion(15955, "a group specification must include an _id")
    groups: dict[Any, Document] = {}
    state: dict[Any, list[list[Any]]] = {}  # each group's values, an accumulator's a list
    by = spec["_id"]
    exprs = [next(iter(acc.values())) for field, acc in spec.items() if field != "_id"]
    # A constant _id (null, a number, a plain string) is every document's: evaluated once.
    constant = by is None or type(by) in _LITERALS or (type(by) is str and not by.startswith("$"))
    constant_key = encode(by) if constant else b""
    evaluators = [_evaluator(expr) for expr in exprs]
    for doc in docs:
        if constant:
            key_value, key = by, constant_key
        else:
            key_value = evaluate(doc, by)
            key_value = None if key_value is MISSING else key_value
            key = encode(key_value)
        values = state.get(key)
        if values is None:
            groups[key] = {"_id": key_value}
            values = state[key] = [[] for _ in exprs]
        for found, value_of in zip(values, evaluators, strict=True):
            found.append(value_of(doc))
    for key, out in groups.items():
        collected = iter(state[key])
        for field, acc in spec.items():
            if field != "_id":
                out[field] = _accumulate(next(iter(acc)), next(collected))
    return list(groups.values())


def _evaluator(expr: Any) -> Callable[[Mapping[str, Any]], Any]:
    """`evaluate(doc, expr)` as a function of the document, the commonest forms without
    the call: a literal number, bool or null, and `$$ROOT` / `$$CURRENT`."""
    if expr is None or type(expr) in _LITERALS:
        return lambda doc: expr
    if type(expr) is str and expr in ("$$ROOT", "$$CURRENT"):
        return lambda doc: doc
    return lambda doc: evaluate(doc, expr)


def _accumulate(op: str, values: list[Any]) -> Any:
    present = [v for v in values if v is not MISSING]
    if op == "$sum":
        return sum((v for v in present if _number(v)), 0)
    if op == "$avg":
        nums = [v for v in present if _number(v)]
        return sum(nums) / len(nums) if nums else None
    if op == "$first":
        return None if not values or values[0] is MISSING else values[0]
    if op == "$last":
        return None if not values or values[-1] is MISSING else values[-1]
    if op in ("$min", "$max"):
        real = [v for v in present if v is not None]
        if not real:
            return None
        pick = min if op == "$min" else max
        return pick(real, key=encode)
    if op == "$push":
        return present
    if op == "$addToSet":
        out: list[Any] = []
        for v in present:
            if not any(equal(v, o) for o in out):
                out.append(v)
        return out
    raise CommandError.assertion(15952, f"unknown group operator '{op}'")


def _unwind(docs: Iterable[Any], spec: Any) -> Iterator[Document]:
    opts = spec if isinstance(spec, Mapping) else {"path": spec}
    path = opts.get("path")
    if not isinstance(path, str) or not path.startswith("$"):
        raise CommandError.assertion(
            28818, "path option to $unwind stage should be prefixed with a '$'"
        )
    field = path[1:]
    keep = bool(opts.get("preserveNullAndEmptyArrays"))
    index_field = opts.get("includeArrayIndex")
    for doc in docs:
        value = get_first(doc, field)
        if isinstance(value, list) and value:
            for i, item in enumerate(value):
                out = _with(doc, field, item)
                if index_field:
                    out[index_field] = i
                yield out
        elif isinstance(value, list) or value is MISSING or value is None:
            if keep:
                out = copy.deepcopy(dict(doc))
                if index_field:
                    out[index_field] = None
                yield out
        else:
            yield dict(doc)


def _with(doc: Mapping[str, Any], path: str, value: Any) -> Document:
    out = copy.deepcopy(dict(doc))
    node = out
    parts = path.split(".")
    for part in parts[:-1]:
        node = node[part]
    node[parts[-1]] = value
    return out


def _lookup(docs: Iterable[Any], spec: Mapping[str, Any], resolve: Resolver) -> Iterator[Document]:
    foreign = list(resolve(str(spec.get("from"))))
    local, remote, alias = spec.get("localField"), spec.get("foreignField"), spec.get("as")
    if not isinstance(local, str) or not isinstance(remote, str) or not isinstance(alias, str):
        raise CommandError.of("FailedToParse", "$lookup needs from, localField, foreignField, as")
    for doc in docs:
        keys = [v for v in lookup(doc, local) if v is not MISSING] or [None]
        flat = [e for v in keys for e in (v if isinstance(v, list) else [v])]
        hits = [dict(f) for f in foreign if any(_lookup_eq(fv, flat) for fv in lookup(f, remote))]
        yield {**dict(doc), alias: hits}


def _lookup_eq(value: Any, keys: list[Any]) -> bool:
    value = None if value is MISSING else value
    candidates = value if isinstance(value, list) else [value]
    return any(equal(c, k) for c in candidates for k in keys)


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


_LITERALS = frozenset({int, float, bool})  # what evaluate returns as given


def evaluate(doc: Mapping[str, Any], expr: Any) -> Any:
    """An aggregation expression: "$field" paths, literals, objects, and a few operators."""
    if isinstance(expr, str) and expr.startswith("$$"):
        return doc if expr in ("$$ROOT", "$$CURRENT") else MISSING
    if isinstance(expr, str) and expr.startswith("$"):
        path = expr[1:]
        if type(doc) is dict and "." not in path:  # lookup's one value of a top-level field
            return doc.get(path, MISSING)
        values = lookup(doc, path)
        if len(values) == 1:
            return values[0]
        return [v for v in values if v is not MISSING]
    if expr is None or type(expr) in _LITERALS:
        return expr
    if isinstance(expr, list):
        return [evaluate(doc, e) for e in expr]
    if (type(expr) is dict or isinstance(expr, Mapping)) and expr:
        first = next(iter(expr))
        if first.startswith("$"):
            return _operator(doc, first, expr[first])
        return {
            k: v for k, v in ((k, evaluate(doc, e)) for k, e in expr.items()) if v is not MISSING
        }
    return expr


_COMPARISONS: dict[str, Callable[[int], Any]] = {
    "$eq": lambda c: c == 0, "$ne": lambda c: c != 0, "$gt": lambda c: c > 0,
    "$gte": lambda c: c >= 0, "$lt": lambda c: c < 0, "$lte": lambda c: c <= 0,
    "$cmp": lambda c: c,
}  # fmt: skip


def _args(doc: Mapping[str, Any], arg: Any) -> list[Any]:
    items = arg if isinstance(arg, list) else [arg]
    return [evaluate(doc, a) for a in items]


def _operator(doc: Mapping[str, Any], op: str, arg: Any) -> Any:
    if op == "$literal":
        return arg
    args = _args(doc, arg)
    if op == "$ifNull":
        for value in args[:-1]:
            if value is not MISSING and value is not None:
                return value
        return args[-1]
    if op == "$concat":
        if any(a is MISSING or a is None for a in args):
            return None
        return "".join(str(a) for a in args)
    if op == "$cond":
        if type(arg) is not list and isinstance(arg, Mapping):
            args = [evaluate(doc, arg.get(k)) for k in ("if", "then", "else")]
        return args[1] if args[0] not in (False, None, 0, MISSING) else args[2]
    if op in ("$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$cmp"):
        a, b = (None if v is MISSING else v for v in args)
        return _COMPARISONS[op](compare(a, b))
    if op == "$size":
        if not isinstance(args[0], list):
            raise CommandError.assertion(17124, "The argument to $size must be an array")
        return len(args[0])
    if op == "$add":
        return sum(a for a in args if _number(a))
    if op == "$subtract":
        return args[0] - args[1]
    if op == "$not":
        return args[0] in (False, None, 0, MISSING)
    if op == "$and":
        return all(a not in (False, None, 0, MISSING) for a in args)
    if op == "$or":
        return any(a not in (False, None, 0, MISSING) for a in args)
    if op == "$arrayElemAt":
        array, index = args
        return (
            array[index]
            if isinstance(array, list) and -len(array) <= index < len(array)
            else MISSING
        )
    if op == "$toString":
        return None if args[0] in (None, MISSING) else str(args[0])
    raise CommandError.assertion(31325, f"Unknown expression {op}")
