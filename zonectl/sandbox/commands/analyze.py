"""`analyzeShardKey` (7.0+): shard-key characteristics from the sandbox's simulated data.

As MongoDB builds it (mongo:src/mongo/s/commands/cluster_analyze_shard_key_cmd.cpp on the
router, src/mongo/db/s/analyze_shard_key_cmd.cpp and analyze_shard_key_cmd_util.cpp on
the shard, output fields from src/mongo/s/analyze_shard_key_cmd.idl and the manual page
"analyzeShardKey", Output):
  * admin only; authorization is the `analyzeShardKey` action on the exact namespace, and a
    refusal reads just "Unauthorized" (doCheckAuthorization's uassert);
  * validateNamespace: admin/config/local -> IllegalOperation "Cannot run against an
    internal collection"; `system.*` -> "Cannot run against a system collection";
  * sampleRate and sampleSize together -> InvalidOptions; keyCharacteristics and
    readWriteDistribution both false -> InvalidOptions;
  * validateCollectionOptions (analyze_shard_key_util.cpp): a time-series collection ->
    IllegalOperation "Operation not supported for a timeseries collection", a view ->
    CommandNotSupportedOnView "Operation not supported for a view", a missing collection
    -> NamespaceNotFound "The namespace does not exist";
  * the key must be a valid shard-key pattern (validateShardKeyPattern), and an index must
    support it (its prefix); without one, keyCharacteristics are left out, or with
    readWriteDistribution false the command fails IllegalOperation;
  * keyCharacteristics = {numDocsTotal, avgDocSizeBytes, numDocsSampled, isUnique,
    numDistinctValues, mostCommonValues: [{value, frequency}] (analyzeShardKeyNumMostCommon
    Values = 5, most frequent first), monotonicity: {recordIdCorrelationCoefficient, type}}
    with type "monotonic" when |coefficient| >= analyzeShardKeyMonotonicityCorrelation
    CoefficientThreshold (0.7); a hashed first field is "not monotonic" with coefficient 0,
    a hashed later field "unknown" without one (calculateMonotonicity). numOrphanDocs and
    `note` appear only when there are orphans, and the sandbox has none;
  * numDocsSampled is min(numDocsTotal, sampleSize or analyzeShardKeyCharacteristics
    DefaultSampleSize = 10,000,000), or sampleRate * numDocsTotal;
  * readDistribution/writeDistribution: no query sampling is configured in the sandbox, so
    only their zero `sampleSize` counters (the manual: "returns the read and write
    distribution metrics as 0 values").
Figures come from the chunk store (counts, sizes) and doc_keys (distinct values, skew,
insert order); an unsharded collection is analyzed from its stored documents.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.bsontypes import type_name
from zonectl.model.keys import sort_key
from zonectl.sandbox import auth, doc_keys
from zonectl.sandbox.commands.writes import index_specs
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.move_rules import typed_namespace
from zonectl.sandbox.registry import Request, command

if TYPE_CHECKING:
    from zonectl.sandbox.chunks import ChunkStore
    from zonectl.sandbox.state import Sandbox

DEFAULT_SAMPLE_SIZE = 10_000_000
MOST_COMMON = 5
MONOTONIC_THRESHOLD = 0.7
_COEFFICIENT = {"ascending": 1.0, "descending": -1.0, "random": 0.0}
_GENERIC = {"$db", "lsid", "$clusterTime", "$readPreference", "readConcern", "comment",
            "maxTimeMS", "$audit", "apiVersion", "apiStrict", "apiDeprecationErrors"}  # fmt: skip
_FIELDS = {"analyzeShardKey", "key", "keyCharacteristics", "readWriteDistribution",
           "sampleRate", "sampleSize"}  # fmt: skip


def _authorize(request: Request) -> bool:
    if not auth.is_allowed(request.session.roles, _ns_for_auth(request), "analyzeShardKey"):
        raise CommandError.of("Unauthorized", "Unauthorized")
    return True


def _ns_for_auth(request: Request) -> str:
    value = request.body.get("analyzeShardKey")
    return value if isinstance(value, str) else ""


@command(
    "analyzeShardKey",
    admin_only=True,
    supports_write_concern=False,
    authorize=_authorize,
    exists_in=lambda version: version.version_array[0] >= 7,
)
def analyze_shard_key(request: Request) -> dict[str, Any]:
    body = request.body
    for name in body:
        if name not in _FIELDS and name not in _GENERIC:
            raise CommandError.of(
                "IDLUnknownField", f"BSON field 'analyzeShardKey.{name}' is an unknown field."
            )
    ns = typed_namespace(request)
    key = _key(body)
    characteristics = _flag(body, "keyCharacteristics")
    distribution = _flag(body, "readWriteDistribution")
    rate, size = _sampling(body)
    if not characteristics and not distribution:
        raise CommandError.of(
            "InvalidOptions",
            "Cannot specify both 'keyCharacteristics' and 'readWriteDistribution' to false",
        )
    db, _, coll = ns.partition(".")
    if db in ("admin", "config", "local"):
        raise CommandError.of("IllegalOperation", "Cannot run against an internal collection")
    if coll.startswith("system."):
        raise CommandError.of("IllegalOperation", "Cannot run against a system collection")
    sandbox = request.sandbox
    kind = doc_keys.kind(sandbox, ns)
    if kind == "timeseries":
        raise CommandError.of(
            "IllegalOperation", "Operation not supported for a timeseries collection"
        )
    if kind == "view":
        raise CommandError(166, "Operation not supported for a view", "CommandNotSupportedOnView")
    if not sandbox.cluster.is_sharded(ns) and sandbox.catalog.get(ns) is None:
        raise CommandError.of("NamespaceNotFound", "The namespace does not exist")
    _validate_pattern(key)
    reply: dict[str, Any] = {}
    if characteristics:
        metrics = _characteristics(sandbox, ns, key, rate, size)
        if metrics is None and not distribution:
            raise CommandError.of(
                "IllegalOperation",
                "Cannot analyze the characteristics of a shard key that does not have a "
                "supporting index",
            )
        if metrics is not None:
            reply["keyCharacteristics"] = metrics
    if distribution:
        zero = Int64(0)
        reply["readDistribution"] = {
            "sampleSize": dict.fromkeys(("total", "find", "aggregate", "count", "distinct"), zero)
        }
        reply["writeDistribution"] = {
            "sampleSize": dict.fromkeys(("total", "update", "delete", "findAndModify"), zero)
        }
    return reply


def _key(body: Mapping[str, Any]) -> dict[str, Any]:
    if "key" not in body:
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'analyzeShardKey.key' is missing but a required field"
        )
    key = body["key"]
    if not isinstance(key, Mapping):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'analyzeShardKey.key' is the wrong type '{type_name(key)}', "
            "expected type 'object'",
        )
    return dict(key)


def _flag(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name, True)
    if not isinstance(value, bool):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'analyzeShardKey.{name}' is the wrong type '{type_name(value)}', "
            "expected type 'bool'",
        )
    return value


def _sampling(body: Mapping[str, Any]) -> tuple[float | None, int | None]:
    rate, size = body.get("sampleRate"), body.get("sampleSize")
    if rate is not None and size is not None:
        raise CommandError.of("InvalidOptions", "Cannot specify both 'sampleRate' and 'sampleSize'")
    if rate is not None and not (isinstance(rate, int | float) and 0 < rate <= 1):
        # IDL validator {gt: 0, lte: 1}; the wording is the IDL's bounds message.
        raise CommandError.of(
            "BadValue", f"BSON field 'sampleRate' value must be > 0 and <= 1, actual value '{rate}'"
        )
    if size is not None and not (isinstance(size, int) and size > 0):
        raise CommandError.of(
            "BadValue", f"BSON field 'sampleSize' value must be > 0, actual value '{size}'"
        )
    return (float(rate) if rate is not None else None), size


def _validate_pattern(key: Mapping[str, Any]) -> None:
    """ShardKeyPattern: ascending fields, or one hashed field (validateShardKeyPattern)."""
    values = list(key.values())
    hashed = sum(v == "hashed" for v in values)
    ascending = all(v == "hashed" or (_is_number(v) and v == 1) for v in values)
    if not key or hashed > 1 or not ascending:
        shown = auth.shell_repr(dict(key))
        raise CommandError.of(
            "BadValue",
            f"Unsupported shard key pattern {shown}. Pattern must either be a single hashed "
            "field, or a list of ascending fields",
        )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _supporting_index(
    sandbox: Sandbox, ns: str, key: Mapping[str, Any]
) -> tuple[dict[str, Any], bool] | None:
    """(index key, unique) of an index whose prefix is `key`, hashed fields matching."""
    candidates: list[tuple[dict[str, Any], bool]] = []
    doc = sandbox.cluster.collection_doc(ns)
    if doc is not None and sandbox.cluster.is_sharded(ns):
        candidates.append((dict(doc["key"]), bool(doc.get("unique", False))))
    for spec in index_specs(sandbox, ns):
        unique = bool(spec.get("unique")) or spec["key"] == {"_id": 1}
        candidates.append((dict(spec["key"]), unique))
    wanted = list(key.items())
    matching = [(i, u) for i, u in candidates if list(i.items())[: len(wanted)] == wanted]
    if not matching:
        return None
    # isUnique: "only true if there is a unique index for the shard key" (the manual).
    unique = any(u and len(i) == len(wanted) for i, u in matching)
    return matching[0][0], unique


def _characteristics(
    sandbox: Sandbox, ns: str, key: Mapping[str, Any], rate: float | None, size: int | None
) -> dict[str, Any] | None:
    found = _supporting_index(sandbox, ns, key)
    if found is None:
        return None
    _index, unique = found
    store = sandbox.cluster.chunks(ns)
    if store is not None:
        sizes, counts = store.sizes()
        total, nbytes = sum(counts), sum(sizes)
    else:
        docs = list(sandbox.catalog.get(ns) or [])
        total, nbytes = len(docs), 0
    if total == 0:
        # Every candidate shard answers CollectionIsEmptyLocally; the router then gives up.
        raise CommandError.of(
            "IllegalOperation",
            "Cannot analyze a shard key for an empty collection: CollectionIsEmptyLocally: "
            "Cannot analyze the characteristics of a shard key for an empty collection",
        )
    if rate is not None:
        sampled = max(1, min(total, math.ceil(rate * total)))
    else:
        sampled = min(total, size if size is not None else DEFAULT_SAMPLE_SIZE)
    if store is None:
        return _from_documents(sandbox, ns, key, unique, sampled)
    keys = doc_keys.doc_keys(sandbox, ns)
    full = dict(doc_keys_key(sandbox, ns))
    distinct = _distinct(keys, key, full, total, store)
    if unique:
        distinct = total
    scale = sampled / total
    # Expected distinct values seen in a uniform sample of `sampled` documents.
    per_value = total / distinct
    seen = distinct * (1 - (1 - scale) ** per_value) if scale < 1 else distinct
    distinct_sampled = max(1, min(sampled, round(seen)))
    top = keys.top_frequency if keys.top_frequency is not None else math.ceil(total / distinct)
    top = max(1, min(top, total - (distinct - 1)))
    return {
        "numDocsTotal": Int64(total),
        "avgDocSizeBytes": Int64(nbytes // total if total else 0),
        "numDocsSampled": Int64(sampled),
        "isUnique": unique,
        "numDistinctValues": Int64(sampled if unique else distinct_sampled),
        "mostCommonValues": _most_common(store, key, total, distinct, top, scale, unique),
        "monotonicity": _monotonicity(key, full, keys),
    }


def doc_keys_key(sandbox: Sandbox, ns: str) -> Mapping[str, Any]:
    return sandbox.cluster.key_pattern(ns) or {}


def _distinct(
    keys: doc_keys.DocKeys,
    key: Mapping[str, Any],
    full: Mapping[str, Any],
    total: int,
    store: ChunkStore,
) -> int:
    whole = keys.distinct if keys.distinct is not None else total
    names = list(key)
    if names == list(full)[: len(names)] and len(names) < len(full):
        named = keys.prefix_distinct.get(",".join(names))
        if named is not None:
            return max(1, min(named, whole))
        # A guess from the metadata: each distinct prefix among chunk bounds is a value.
        seen = {tuple(sort_key(store.min_at(i).get(n)) for n in names) for i in range(len(store))}
        return max(1, min(whole, len(seen)))
    return max(1, min(whole, total))


def _most_common(
    store: ChunkStore,
    key: Mapping[str, Any],
    total: int,
    distinct: int,
    top: int,
    scale: float,
    unique: bool,
) -> list[dict[str, Any]]:
    """Up to five values, most frequent first. Values are the key fields of chunk lower
    bounds (the only key values the sandbox holds); a hashed field shows a synthetic
    number, since the real command looks up an original document the sandbox lacks."""
    wanted = min(MOST_COMMON, distinct)
    rest = (total - top) // max(1, distinct - 1) if distinct > 1 else 0
    freqs = [top] + [max(1, min(top, rest))] * (wanted - 1)
    if unique:
        freqs = [1] * wanted
    order = sorted(range(len(store)), key=lambda i: -store.count_at(i))
    values: list[dict[str, Any]] = []
    seen: set[tuple[Any, ...]] = set()
    for i in order:
        bound = store.min_at(i)
        value: dict[str, Any] = {}
        for pos, (n, kind) in enumerate(key.items()):
            raw = bound.get(n)
            if kind == "hashed" or (pos > 0 and isinstance(raw, MinKey | MaxKey)):
                raw = Int64(len(values))  # no stored document to take the value from
            value[n] = raw
        marker = tuple(sort_key(v) for v in value.values())
        if marker in seen or any(isinstance(v, MinKey | MaxKey) for v in value.values()):
            continue
        seen.add(marker)
        values.append(value)
        if len(values) == wanted:
            break
    return [
        {"value": v, "frequency": Int64(max(1, round(f * scale)))}
        for v, f in zip(values, freqs, strict=False)
    ]


def _monotonicity(
    key: Mapping[str, Any], full: Mapping[str, Any], keys: doc_keys.DocKeys
) -> dict[str, Any]:
    first, kind = next(iter(key.items()))
    if kind == "hashed":
        return {"recordIdCorrelationCoefficient": 0.0, "type": "not monotonic"}
    if "hashed" in key.values():
        return {"type": "unknown"}
    if full and first != next(iter(full)):
        return {"type": "unknown"}  # the sandbox knows insert order only along its key
    coefficient = _COEFFICIENT[keys.inserts or "random"]
    monotonic = abs(coefficient) >= MONOTONIC_THRESHOLD
    return {
        "recordIdCorrelationCoefficient": coefficient,
        "type": "monotonic" if monotonic else "not monotonic",
    }


def _from_documents(
    sandbox: Sandbox, ns: str, key: Mapping[str, Any], unique: bool, sampled: int
) -> dict[str, Any]:
    """An unsharded collection: count its stored documents' key values, in insert order."""
    docs = list(sandbox.catalog.get(ns) or [])[:sampled]
    values = [tuple(d.get(n) for n in key) for d in docs]
    marks = [tuple(sort_key(v) for v in value) for value in values]
    counts = Counter(marks)
    first_of: dict[tuple[Any, ...], tuple[Any, ...]] = {}
    for mark, value in zip(marks, values, strict=True):
        first_of.setdefault(mark, value)
    common = sorted(counts.items(), key=lambda kv: -kv[1])[:MOST_COMMON]
    ranks = {m: r for r, m in enumerate(sorted(counts))}
    coefficient = _pearson([float(i) for i in range(len(marks))], [ranks[m] for m in marks])
    nbytes = sum(len(str(d)) for d in docs)
    return {
        "numDocsTotal": Int64(len(docs)),
        "avgDocSizeBytes": Int64(nbytes // len(docs) if docs else 0),
        "numDocsSampled": Int64(len(docs)),
        "isUnique": unique,
        "numDistinctValues": Int64(len(counts)),
        "mostCommonValues": [
            {"value": dict(zip(key, first_of[m], strict=True)), "frequency": Int64(c)}
            for m, c in common
        ],
        "monotonicity": {
            "recordIdCorrelationCoefficient": round(coefficient, 10),
            "type": "monotonic" if abs(coefficient) >= MONOTONIC_THRESHOLD else "not monotonic",
        },
    }


def _pearson(xs: list[float], ys: list[float]) -> float:
    n = len(xs)
    if n < 2:
        return 0.0
    mx, my = sum(xs) / n, sum(ys) / n
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    return sxy / math.sqrt(sxx * syy) if sxx and syy else 0.0
