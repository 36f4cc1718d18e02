"""In-memory collections: the sandbox keeps config metadata as documents, like a config server.

`MemoryCollection` holds documents in insertion order keyed by `_id` (compared in BSON
order, so `1` and `NumberLong(1)` are the same `_id`). The query engine reads any
collection through `scan`, which may return a superset of the matches (`exact=False`) or
exactly the matches, possibly as raw BSON so large results stream without re-encoding.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from bson.raw_bson import RawBSONDocument

from zonectl.sandbox.keyorder import encode

Document = dict[str, Any]


@dataclass
class Scan:
    """Candidate documents for a filter, in natural order (or `ordered_by`)."""

    docs: Iterable[Mapping[str, Any] | RawBSONDocument]
    exact: bool = False  # True: every document already satisfies the filter
    ordered_by: tuple[tuple[str, int], ...] = ()  # e.g. (("min", 1),) for chunks
    # How many documents an exact scan yields, when the source knows without iterating
    # (a count a real server answers from an index: COUNT_SCAN); None: iterate to count.
    size: int | None = None
    # The same documents in the reverse of `ordered_by` (a backward index scan), if cheap.
    backward: Iterable[Mapping[str, Any] | RawBSONDocument] | None = None
    # An exact scan's documents by the value of a field, in scan order: (field, [(one
    # document of the group, as raw BSON, its size)]); the counts an index holds per
    # leading value, so a $group counting by it needs no document. None: not known.
    groups: tuple[str, list[tuple[Callable[[], bytes], int]]] | None = None


class Collection(Protocol):
    """What the query and write engines need from any collection, plain or view."""

    name: str  # full namespace "db.coll"

    def scan(self, filter: Mapping[str, Any]) -> Scan: ...

    def __iter__(self) -> Iterator[Document]: ...

    def get(self, _id: Any) -> Document | None: ...

    def put(self, doc: Document) -> None: ...

    def remove(self, _id: Any) -> bool: ...

    def __len__(self) -> int: ...


class MemoryCollection:
    """A plain collection: documents by `_id`, insertion-ordered."""

    def __init__(
        self, name: str, docs: Iterable[Document] = (), meta: dict[str, Any] | None = None
    ) -> None:
        self.name = name
        # Kind, options and nominal sizes of the collection (catalog/unsharded.py).
        self.meta: dict[str, Any] = dict(meta or {})
        self._docs: dict[bytes, Document] = {}
        for doc in docs:
            self.put(doc)

    def scan(self, filter: Mapping[str, Any]) -> Scan:
        if set(filter) == {"_id"} and not _is_operator_doc(filter["_id"]):
            doc = self.get(filter["_id"])
            return Scan([doc] if doc is not None else [], exact=True)
        listed = _listed_names(filter)
        if listed is not None:
            # {_id: {$in: [names]}} (config.collections by namespace): exactly the matches,
            # in natural order, as the matcher's $in of strings finds them (query/matcher.py).
            docs = self._docs.values()
            return Scan([d for d in docs if _has_listed(d["_id"], listed)], exact=True)
        return Scan(list(self._docs.values()))

    def __iter__(self) -> Iterator[Document]:
        return iter(list(self._docs.values()))

    def get(self, _id: Any) -> Document | None:
        return self._docs.get(encode(_id))

    def put(self, doc: Document) -> None:
        """Insert, or replace the document with the same `_id` in place."""
        self._docs[encode(doc["_id"])] = doc

    def remove(self, _id: Any) -> bool:
        return self._docs.pop(encode(_id), None) is not None

    def __len__(self) -> int:
        return len(self._docs)


def _is_operator_doc(value: Any) -> bool:
    return isinstance(value, Mapping) and any(str(k).startswith("$") for k in value)


def _listed_names(filter: Mapping[str, Any]) -> frozenset[str] | None:
    """The names of a `{_id: {$in: [str, ...]}}` filter (a non-empty list of strings only)."""
    if len(filter) != 1 or "_id" not in filter:
        return None
    cond = filter["_id"]
    if type(cond) is not dict or len(cond) != 1 or type(cond.get("$in")) is not list:
        return None
    names = cond["$in"]
    return frozenset(names) if names and all(type(v) is str for v in names) else None


def _has_listed(value: Any, listed: frozenset[str]) -> bool:
    """Whether `$in` of these strings matches this `_id` (a string equal to one of them, or
    an array holding one)."""
    if type(value) is str:
        return value in listed
    return isinstance(value, list) and any(type(e) is str and e in listed for e in value)
