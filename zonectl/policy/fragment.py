"""One YAML document -> a validated, position-carrying fragment of the policy.

A document with schema errors still yields the parts that validate on their own, so one
pass reports the semantic problems of the rest too.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import TypeAdapter, ValidationError
from ruamel.yaml.nodes import MappingNode, Node

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.policy.extjson import BoundError, decode_bound
from zonectl.policy.schema import (
    BalancerModel,
    CollectionModel,
    DiskModel,
    PolicyFileModel,
    ShardModel,
    ShardValue,
)
from zonectl.policy.schema_errors import schema_diagnostics
from zonectl.policy.tree import Document, Limits, TreeError, build_values

_SHARD: TypeAdapter[list[str] | ShardModel] = TypeAdapter(ShardValue)
Steps = tuple[str | int, ...]


@dataclass(frozen=True)
class RangeEntry:
    zone: str
    min: dict[str, Any]  # decoded BSON values, as written (not yet padded)
    max: dict[str, Any]
    position: Position  # the list item
    doc: Document
    path: Steps

    def at(self, *steps: str | int) -> Position:
        return self.doc.position((*self.path, *steps))


@dataclass(frozen=True)
class CollectionEntry:
    namespace: str
    model: CollectionModel
    ranges: tuple[RangeEntry, ...]
    doc: Document
    path: Steps
    # The entry's key and value nodes under `collections:`, found once: every position of
    # the entry is looked up from them, not from the root (several per entry, always).
    nodes: tuple[Node, Node] | None = field(default=None, compare=False, repr=False)

    def at(self, *steps: str | int, key: bool = False) -> Position:
        if self.nodes is None:
            return self.doc.position((*self.path, *steps), key=key)
        if not steps:
            return self.doc.position_of(self.nodes[0] if key else self.nodes[1])
        return self.doc.position_of(self.doc.node_at(steps, key=key, start=self.nodes[1]))


@dataclass(frozen=True)
class ShardEntry:
    name: str
    zones: tuple[str, ...]
    doc: Document
    state: Literal["active", "removed"] = "active"
    host: str | None = None
    long_form: bool = False  # written as {zones, state, host}: zone positions under `zones`
    disk: DiskModel | None = None  # the long form's `disk: {limit}`

    def at(self, *steps: str | int, key: bool = False) -> Position:
        return self.doc.position(("shards", self.name, *steps), key=key)

    def zone_at(self, index: int) -> Position:
        """Where the index-th zone is written, in either form."""
        return self.at("zones", index) if self.long_form else self.at(index)


@dataclass
class Fragment:
    doc: Document
    balancer: BalancerModel | None = None
    disk: DiskModel | None = None  # the top-level `disk:` section
    shards: list[ShardEntry] = field(default_factory=list)
    collections: list[CollectionEntry] = field(default_factory=list)
    shards_complete: bool = True  # False: some shard entry failed, so zone checks would lie


def shard_entry(name: str, value: list[str] | ShardModel, doc: Document) -> ShardEntry:
    """A `shards:` entry, list form (an active shard's zones) or long form."""
    if isinstance(value, ShardModel):
        return ShardEntry(
            name, tuple(value.zones), doc, value.state, value.host, long_form=True, disk=value.disk
        )
    return ShardEntry(name, tuple(value), doc)


def parse_fragment(doc: Document, limits: Limits) -> tuple[Fragment | None, list[Diagnostic]]:
    try:
        data = build_values(doc, limits)
    except TreeError as exc:
        return None, [*doc.diagnostics, exc.diagnostic]
    diagnostics = list(doc.diagnostics)
    if not isinstance(data, dict):
        got = "a list" if isinstance(data, list) else "a single value"
        message = f"a policy document must be a mapping (apiVersion, kind, ...), got {got}"
        return None, [*diagnostics, _error("ZP108", doc.position(()), message)]
    try:
        model = PolicyFileModel.model_validate(data)
    except ValidationError as exc:
        diagnostics += schema_diagnostics(doc, exc.errors())
        if any(e["loc"][:1] in (("apiVersion",), ("kind",)) for e in exc.errors()):
            return None, diagnostics  # not (readably) a zonectl policy: check nothing else
        fragment = _salvage(doc, data, diagnostics)
    else:
        fragment = Fragment(doc, model.balancer, model.disk)
        fragment.shards = [shard_entry(n, value, doc) for n, value in model.shards.items()]
        nodes = _entry_nodes(doc)
        for namespace, collection in model.collections.items():
            entry = _collection(doc, namespace, collection, diagnostics, nodes.get(namespace))
            fragment.collections.append(entry)
    return fragment, diagnostics


def _salvage(doc: Document, data: dict[str, Any], diagnostics: list[Diagnostic]) -> Fragment:
    """The parts that validate alone; their schema errors were already reported."""
    fragment = Fragment(doc)
    try:
        if data.get("balancer") is not None:
            fragment.balancer = BalancerModel.model_validate(data["balancer"])
    except ValidationError:
        pass
    try:
        if data.get("disk") is not None:
            fragment.disk = DiskModel.model_validate(data["disk"])
    except ValidationError:
        pass
    shards = data.get("shards")
    if isinstance(shards, dict):
        for name, value in shards.items():
            try:
                fragment.shards.append(shard_entry(name, _SHARD.validate_python(value), doc))
            except ValidationError:
                fragment.shards_complete = False
    elif shards is not None:
        fragment.shards_complete = False
    collections = data.get("collections")
    if isinstance(collections, dict):
        nodes = _entry_nodes(doc)
        for namespace, raw in collections.items():
            try:
                model = CollectionModel.model_validate(raw)
            except ValidationError:
                continue
            entry = _collection(doc, namespace, model, diagnostics, nodes.get(namespace))
            fragment.collections.append(entry)
    return fragment


def _entry_nodes(doc: Document) -> dict[str, tuple[Node, Node]]:
    """Namespace -> its key and value node under `collections:` (a mapping: it validated)."""
    node = doc.node_at(("collections",))
    return doc.pairs(node) if isinstance(node, MappingNode) else {}


def _collection(
    doc: Document,
    namespace: str,
    model: CollectionModel,
    diagnostics: list[Diagnostic],
    nodes: tuple[Node, Node] | None = None,
) -> CollectionEntry:
    path: Steps = ("collections", namespace)
    start, steps = (None, (*path, "ranges")) if nodes is None else (nodes[1], ("ranges",))
    items = doc.node_at(steps, start=start).value if model.ranges else []
    ranges: list[RangeEntry] = []
    for i, (raw, node) in enumerate(zip(model.ranges, items, strict=False)):
        item_path = (*path, "ranges", i)
        decoded: list[dict[str, Any]] = []
        for side, bound in (("min", raw.min), ("max", raw.max)):
            try:
                decoded.append(decode_bound(bound))
            except BoundError as exc:
                where = doc.position((*item_path, side, *exc.path))
                message = f"{side}.{'.'.join(map(str, exc.path))}: {exc.message}"
                diagnostics.append(Diagnostic(exc.code, Severity.ERROR, where, message, exc.hint))
        if len(decoded) == 2:
            position = doc.position_of(node)
            ranges.append(RangeEntry(raw.zone, decoded[0], decoded[1], position, doc, item_path))
    return CollectionEntry(namespace, model, tuple(ranges), doc, path, nodes)


def _error(code: str, where: Position, message: str) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message)
