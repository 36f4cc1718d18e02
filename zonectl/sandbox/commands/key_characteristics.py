"""analyzeShardKey's keyCharacteristics computed from the sandbox's simulated data: the
chunk store's counts and sizes plus doc_keys (distinct values, skew, insert order) for a
sharded collection, the stored documents for an unsharded one. The command, its parsing
and its errors are in commands/analyze.py, which cites the MongoDB sources both follow.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.catalog import doc_keys
from zonectl.sandbox.commands.indexes import index_specs
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import encode

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.chunks import ChunkStore
    from zonectl.sandbox.state import Sandbox

DEFAULT_SAMPLE_SIZE = 10_000_000  # analyzeShardKeyCharacteristicsDefaultSampleSize
MOST_COMMON = 5  # analyzeShardKeyNumMostCommonValues
MONOTONIC_THRESHOLD = 0.7  # analyzeShardKeyMonotonicityCorrelationCoefficientThreshold
_COEFFICIENT = {"ascending": 1.0, "descending": -1.0, "random": 0.0}


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


def characteristics(
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
    keys = doc_keys.doc_keys(sandbox.catalog, ns)
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
        seen = {tuple(encode(store.min_at(i).get(n)) for n in names) for i in range(len(store))}
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
        marker = tuple(encode(v) for v in value.values())
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
    marks = [tuple(encode(v) for v in value) for value in values]
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
