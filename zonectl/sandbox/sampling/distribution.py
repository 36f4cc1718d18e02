"""analyzeShardKey's readDistribution and writeDistribution, computed from the sampled
queries and diffs of a collection for a (live or candidate) shard key.

As src/mongo/db/s/analyze_shard_key_read_write_distribution.cpp computes them, with the
7.0 release's field names (the manual's "readWriteDistribution" output, asserted by
jstests/sharding/analyze_shard_key/read_and_write_distribution.js):
  * each read or write statement is single-shard, multi-shard or scatter-gather by how its
    filter targets the key (targeting.py); a non-upsert replacement update with no key in
    its filter is targeted by its replacement document;
  * numReadsByRange / numWritesByRange: the key space cut into analyzeShardKeyNumRanges
    (100) ranges at split points taken from the data; a statement adds one to every range
    it targets (scatter-gather: all of them);
  * a write whose filter has no shard key equality is a single or multi write "without
    shard key" (multi: `multi: true`, or a delete with `limit: 0`);
  * percentageOfShardKeyUpdates counts the sampled diffs that touch a key field;
  * percentages are n * 100 / total, and with no samples only `sampleSize` is returned.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from bson import Int64

from zonectl.sandbox.keyorder import encode
from zonectl.sandbox.sampling.targeting import Target, target

NUM_RANGES = 100  # analyzeShardKeyNumRanges


class _Counts:
    def __init__(self, names: Sequence[str], ranges: int) -> None:
        self.by_name = dict.fromkeys(names, 0)
        self.kinds = {"single": 0, "multi": 0, "scatter": 0}
        self.ranges = [0] * ranges

    @property
    def total(self) -> int:
        return sum(self.by_name.values())

    def sample_size(self) -> dict[str, Int64]:
        return {"total": Int64(self.total), **{k: Int64(v) for k, v in self.by_name.items()}}


def percentage(n: int, total: int) -> float:
    return n * 100.0 / total if total else 0.0


class Ranges:
    """The split points of the key space: range i is [split[i-1], split[i])."""

    def __init__(self, key: Mapping[str, Any], splits: Sequence[Mapping[str, Any]]) -> None:
        self.fields = list(key)
        self.keys = [encode(tuple(s.get(f) for f in self.fields)) for s in splits]
        self.firsts = [encode(s.get(self.fields[0])) for s in splits]
        self.count = len(splits) + 1

    def hit(self, counts: list[int], where: Target) -> None:
        if where.kind == "scatter":
            for i in range(self.count):
                counts[i] += 1
            return
        if where.point is not None:
            counts[bisect.bisect_right(self.keys, encode(where.point))] += 1
            return
        lo = bisect.bisect_left(self.firsts, encode(where.low))
        hi = bisect.bisect_right(self.firsts, encode(where.high))
        for i in range(max(lo, 0), min(hi + 1, self.count)):
            counts[i] += 1


def read_distribution(
    samples: Iterable[Mapping[str, Any]], key: Mapping[str, Any], ranges: Ranges
) -> dict[str, Any]:
    counts = _Counts(("find", "aggregate", "count", "distinct"), ranges.count)
    for doc in samples:
        name = doc.get("cmdName")
        if name not in counts.by_name:
            continue
        cmd = doc.get("cmd") or {}
        counts.by_name[name] += 1
        where = target(cmd.get("filter") or {}, key, cmd.get("let"))
        counts.kinds[where.kind] += 1
        ranges.hit(counts.ranges, where)
    return _metrics(counts, "Reads")


def write_distribution(
    samples: Iterable[Mapping[str, Any]],
    diffs: Iterable[Mapping[str, Any]],
    key: Mapping[str, Any],
    ranges: Ranges,
) -> dict[str, Any]:
    counts = _Counts(("update", "delete", "findAndModify"), ranges.count)
    single_without = multi_without = 0
    for doc in samples:
        name = doc.get("cmdName")
        if name not in counts.by_name:
            continue
        for query, multi, secondary, let in _write_statements(name, doc.get("cmd") or {}):
            counts.by_name[name] += 1
            where = target(query, key, let)
            if where.kind != "single" and secondary is not None:
                by_doc = target(secondary, key)
                where = by_doc if by_doc.kind == "single" else where
            counts.kinds[where.kind] += 1
            ranges.hit(counts.ranges, where)
            if where.kind != "single":
                if multi:
                    multi_without += 1
                else:
                    single_without += 1
    out = _metrics(counts, "Writes")
    total = counts.total
    if total:
        top = {f.split(".", 1)[0] for f in key}
        updates = sum(1 for d in diffs if _touches(d.get("diff") or {}, top))
        out["percentageOfShardKeyUpdates"] = percentage(updates, total)
        out["percentageOfSingleWritesWithoutShardKey"] = percentage(single_without, total)
        out["percentageOfMultiWritesWithoutShardKey"] = percentage(multi_without, total)
    return out


def _metrics(counts: _Counts, noun: str) -> dict[str, Any]:
    out: dict[str, Any] = {"sampleSize": counts.sample_size()}
    total = counts.total
    if total:
        out[f"percentageOfSingleShard{noun}"] = percentage(counts.kinds["single"], total)
        out[f"percentageOfMultiShard{noun}"] = percentage(counts.kinds["multi"], total)
        out[f"percentageOfScatterGather{noun}"] = percentage(counts.kinds["scatter"], total)
        out[f"num{noun}ByRange"] = [Int64(n) for n in counts.ranges]
    return out


def _write_statements(
    name: str, cmd: Mapping[str, Any]
) -> Iterable[tuple[Mapping[str, Any], bool, Mapping[str, Any] | None, Mapping[str, Any] | None]]:
    let = cmd.get("let") if isinstance(cmd.get("let"), Mapping) else None
    if name == "findAndModify":
        yield cmd.get("query") or {}, False, None, let
    elif name == "update":
        for op in cmd.get("updates") or []:
            u = op.get("u")
            replacement = (
                u
                if isinstance(u, Mapping)
                and not op.get("upsert")
                and not any(str(k).startswith("$") for k in u)
                else None
            )
            yield op.get("q") or {}, bool(op.get("multi")), replacement, let
    else:
        for op in cmd.get("deletes") or []:
            yield op.get("q") or {}, op.get("limit") == 0, None, let


def _touches(diff: Mapping[str, Any], fields: set[str]) -> bool:
    """Whether a $v:2 diff changes a key field: `u`/`i`/`d` name top-level fields, a
    sub-document's diff is the key `s<field>`."""
    for section, changed in diff.items():
        if section in ("u", "i", "d") and isinstance(changed, Mapping):
            if any(str(f) in fields for f in changed):
                return True
        elif section.startswith("s") and section[1:] in fields:
            return True
    return False
