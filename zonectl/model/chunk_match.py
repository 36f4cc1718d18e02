"""One small namespace's chunks held in memory, and the counts and finds zonectl's readers
ask of config.chunks answered from them exactly as the server answers. Only the shapes the
readers send are understood (equality, $in and $nin on shard; $gt, $gte, $lt, $lte on min
and max with document operands; jumbo equality; sort on min; a limit; an inclusion
projection); any other is no query here (None) and goes to the server: never a guess.
The readers' own questions are also asked directly, by sort keys they computed once
(`places_in`, `straddler`, `count_in`, `shards_in`, `by_shard`): no filter to parse."""

from __future__ import annotations

import bisect
from collections.abc import Collection, Iterable, Mapping, Sequence
from itertools import pairwise
from typing import Any, NamedTuple

from zonectl.model.keys import SortKey, sort_key

# The fields a namespace is read with: every field a reader projects or filters on.
FIELDS = ("min", "max", "shard", "jumbo", "estimatedDataSizeBytes")
_KEPT = frozenset(FIELDS)
_ORDER = frozenset(("$gt", "$gte", "$lt", "$lte"))


class Shape(NamedTuple):
    """A find's projection (the included fields), order and limit."""

    fields: frozenset[str]
    descending: bool
    limit: int  # 0: no limit


def parse_shape(
    fields: Mapping[str, Any], sort: Mapping[str, int] | None, limit: int | None
) -> Shape | None:
    """An inclusion projection of FIELDS without _id, no sort or {min: 1 | -1}, a limit
    >= 0; else None."""
    included = []
    for name, value in fields.items():
        if type(value) is not int or not (value == 0 or value == 1):
            return None
        if name == "_id":
            if value:
                return None
        elif value and name in FIELDS:
            included.append(name)
        else:
            return None
    descending = False
    if sort:
        order = sort.get("min")
        if len(sort) != 1 or type(order) is not int or not (order == 1 or order == -1):
            return None
        descending = order == -1
    if limit is not None and (type(limit) is not int or limit < 0):
        return None
    return Shape(frozenset(included), descending, limit or 0)


def kept_fields(fields: Mapping[str, Any]) -> frozenset[str] | None:
    """The fields an inclusion projection keeps, for `Chunks.docs`; None: a projection the
    table does not know (ask the server)."""
    shape = parse_shape(fields, None, None)
    return None if shape is None else shape.fields


class _Chunk(NamedTuple):
    at: int  # its place in min order
    max: SortKey
    shard: str
    jumbo: bool | None  # absent: None


class Chunks:
    """One namespace's chunks in min order. `of` refuses documents whose answers it could
    not reproduce exactly (bounds that are not documents, a shard that is not a string, a
    jumbo that is not a boolean, two chunks with one min)."""

    def __init__(self, mins: list[SortKey], chunks: list[_Chunk], docs: list[dict[str, Any]]):
        self._mins = mins
        self._chunks = chunks
        self._docs = docs  # FIELDS as the server sent them, in its order

    @classmethod
    def of(cls, docs: Sequence[Mapping[str, Any]]) -> Chunks | None:
        keyed: list[tuple[SortKey, SortKey, str, bool | None, dict[str, Any]]] = []
        for doc in docs:
            lo, hi, shard, jumbo = doc.get("min"), doc.get("max"), doc.get("shard"), None
            if not _is_document(lo) or not _is_document(hi) or type(shard) is not str:
                return None
            if "jumbo" in doc:
                jumbo = doc["jumbo"]
                if type(jumbo) is not bool:
                    return None
            kept = (
                dict(doc)
                if _KEPT.issuperset(doc)
                else {k: v for k, v in doc.items() if k in FIELDS}
            )
            keyed.append((sort_key(lo), sort_key(hi), shard, jumbo, kept))
        mins = [k[0] for k in keyed]
        if not all(a < b for a, b in pairwise(mins)):  # the server's order is min's, mostly
            keyed.sort(key=lambda chunk: chunk[0])
            mins = [k[0] for k in keyed]
            if any(a == b for a, b in pairwise(mins)):
                return None
        chunks = [_Chunk(i, hi, shard, jumbo) for i, (_, hi, shard, jumbo, _) in enumerate(keyed)]
        return cls(mins, chunks, [k[4] for k in keyed])

    def __len__(self) -> int:
        return len(self._chunks)

    def count(self, conditions: Iterable[tuple[str, Any]]) -> int | None:
        """How many chunks match the filter's conditions after the namespace's equality;
        None when they are not ones this module answers."""
        found = self._select(conditions)
        return None if found is None else len(found)

    def count_by_shard(
        self, conditions: Iterable[tuple[str, Any]], shards: Sequence[str]
    ) -> dict[str, int] | None:
        """shard -> how many chunks match on it, for each of `shards` (no shard condition
        among `conditions`); None as for count."""
        found = self._select(conditions)
        if found is None:
            return None
        counts = dict.fromkeys(shards, 0)
        for c in found:
            if c.shard in counts:
                counts[c.shard] += 1
        return counts

    def find(
        self, conditions: Iterable[tuple[str, Any]], shape: Shape
    ) -> list[dict[str, Any]] | None:
        """The matching chunks in min order (the order of the {uuid, min} index a server
        walks; sort {min: -1} reverses it), limited and projected; None as for count."""
        found = self._select(conditions)
        if found is None:
            return None
        if shape.descending:
            found.reverse()
        if shape.limit:
            del found[shape.limit :]
        return self.docs([c.at for c in found], shape.fields)

    # Direct questions: each answers as the filter named in its doc does through count and
    # find, from keys the caller computed once (sort_key of its bounds); nothing parsed.
    def docs(self, places: Iterable[int], keep: frozenset[str]) -> list[dict[str, Any]]:
        """The chunks at `places` (in min order: 0 the first), projected to `keep`
        (kept_fields), each the caller's own copy."""
        docs = self._docs
        out = []
        for at in places:
            doc = docs[at]
            # a document with no field but kept ones: copied whole (the same fields, in order)
            out.append(
                dict(doc) if keep.issuperset(doc) else {k: v for k, v in doc.items() if k in keep}
            )
        return out

    def min_key(self, place: int) -> SortKey:
        return self._mins[place]

    def max_key(self, place: int) -> SortKey:
        return self._chunks[place].max

    def span(self, lo: SortKey, hi: SortKey) -> range:
        """The places of the chunks {min: {$gte: lo, $lt: hi}}."""
        first = bisect.bisect_left(self._mins, lo)
        return range(first, max(first, bisect.bisect_left(self._mins, hi)))

    def count_in(self, lo: SortKey, hi: SortKey) -> int:
        """count({min: {$gte: lo, $lt: hi}})."""
        return len(self.span(lo, hi))

    def places_in(
        self,
        lo: SortKey,
        hi: SortKey,
        *,
        off: Collection[str] = (),
        jumbo: bool | None = None,
    ) -> list[int]:
        """The places find({min: {$gte: lo, $lt: hi}, shard: {$nin: off}[, jumbo]}) answers,
        in min order (off empty: any shard, as $nin [] is)."""
        chunks = self._chunks
        places = self.span(lo, hi)
        if jumbo is None:
            if not off:
                return list(places)
            return [at for at in places if chunks[at].shard not in off]
        return [at for at in places if chunks[at].shard not in off and chunks[at].jumbo is jumbo]

    def straddler(self, lo: SortKey, *, inclusive: bool) -> int | None:
        """The place of find({min: {$lt: lo}, max: {$gte (inclusive) | $gt: lo}}) sorted
        {min: -1}, limit 1: the last chunk starting before lo that reaches it; None."""
        chunks = self._chunks
        at = bisect.bisect_left(self._mins, lo)
        while at > 0:
            at -= 1
            top = chunks[at].max
            if top >= lo if inclusive else top > lo:
                return at
        return None

    def shards_in(self, lo: SortKey, hi: SortKey) -> dict[str, int]:
        """shard -> count({min: {$gte: lo, $lt: hi}, shard}) for the shards with any."""
        chunks = self._chunks
        counts: dict[str, int] = {}
        for at in self.span(lo, hi):
            shard = chunks[at].shard
            counts[shard] = counts.get(shard, 0) + 1
        return counts

    def by_shard(self, shards: Sequence[str]) -> dict[str, int]:
        """shard -> count({shard}) for each of `shards` (count_by_shard with no condition)."""
        counts = dict.fromkeys(shards, 0)
        for c in self._chunks:
            if c.shard in counts:
                counts[c.shard] += 1
        return counts

    def _select(self, conditions: Iterable[tuple[str, Any]]) -> list[_Chunk] | None:
        mins = self._mins
        lo, hi = 0, len(mins)
        shards: Sequence[str] | None = None
        keep = True
        jumbo: bool | None = None
        maxes: list[tuple[str, SortKey]] = []
        for field, cond in conditions:
            if field == "min" or field == "max":
                if not _is_document(cond) or not cond:
                    return None  # an equality on a bound: not asked by the readers
                for op, operand in cond.items():
                    # A chunk's bounds are documents: query type bracketing compares them
                    # with a document operand only, whole documents in BSON order.
                    if op not in _ORDER or not _is_document(operand):
                        return None
                    key = sort_key(operand)
                    if field == "max":
                        maxes.append((op, key))
                    elif op == "$gte":  # mins are sorted: each condition cuts the range
                        lo = max(lo, bisect.bisect_left(mins, key))
                    elif op == "$gt":
                        lo = max(lo, bisect.bisect_right(mins, key))
                    elif op == "$lt":
                        hi = min(hi, bisect.bisect_left(mins, key))
                    else:
                        hi = min(hi, bisect.bisect_right(mins, key))
            elif field == "shard":
                if type(cond) is str:
                    shards = (cond,)
                    continue
                parsed = _shards(cond)
                if parsed is None:
                    return None
                shards, keep = parsed
            elif field == "jumbo" and type(cond) is bool:
                jumbo = cond
            else:
                return None
        found = self._chunks[lo:hi]
        if shards is not None:
            found = [c for c in found if (c.shard in shards) == keep]
        if jumbo is not None:
            found = [c for c in found if c.jumbo is jumbo]
        for op, key in maxes:
            found = [c for c in found if _holds(c.max, op, key)]
        return found


def _holds(value: SortKey, op: str, key: SortKey) -> bool:
    if op == "$gte":
        return value >= key
    if op == "$gt":
        return value > key
    if op == "$lt":
        return value < key
    return value <= key


def _is_document(value: Any) -> bool:
    return type(value) is dict or isinstance(value, Mapping)


def _shards(cond: Any) -> tuple[Sequence[str], bool] | None:
    """`{$in: [names]}` (keep) or `{$nin: [names]}` (not keep)."""
    if _is_document(cond) and len(cond) == 1:
        ((op, names),) = cond.items()
        if (op == "$in" or op == "$nin") and type(names) in (list, tuple):
            for name in names:
                if type(name) is not str:
                    return None
            return names, op == "$in"
    return None
