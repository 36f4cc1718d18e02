"""Merge the fragments of every file into one policy; the same shard, namespace or balancer
section in two places is an error that names both."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.policy.fragment import CollectionEntry, Fragment, ShardEntry
from zonectl.policy.schema import BalancerModel, DiskModel
from zonectl.policy.tree import Document


@dataclass
class Merged:
    shards: dict[str, ShardEntry] = field(default_factory=dict)
    collections: dict[str, CollectionEntry] = field(default_factory=dict)
    balancer: tuple[BalancerModel, Document] | None = None
    disk: tuple[DiskModel, Document] | None = None  # the top-level `disk:` section
    shards_complete: bool = True

    @property
    def assigned_zones(self) -> frozenset[str]:
        """Zones some shard that stays in the cluster carries (a removed shard's are dropped)."""
        return frozenset(
            z for shard in self.shards.values() if shard.state == "active" for z in shard.zones
        )

    @property
    def removed_shard_zones(self) -> frozenset[str]:
        """Zones written on removed shards (dropped, with a warning: policy/check_shards.py)."""
        return frozenset(
            z for shard in self.shards.values() if shard.state == "removed" for z in shard.zones
        )


def merge_fragments(fragments: Iterable[Fragment]) -> tuple[Merged, list[Diagnostic]]:
    merged = Merged()
    problems: list[Diagnostic] = []
    for fragment in fragments:
        merged.shards_complete &= fragment.shards_complete
        if fragment.balancer is not None:
            here = fragment.doc.position(("balancer",), key=True)
            if merged.balancer is not None:
                there = merged.balancer[1].position(("balancer",), key=True)
                problems.append(_conflict("ZP132", here, "the balancer section", there))
            else:
                merged.balancer = (fragment.balancer, fragment.doc)
        if fragment.disk is not None:
            here = fragment.doc.position(("disk",), key=True)
            if merged.disk is not None:
                there = merged.disk[1].position(("disk",), key=True)
                problems.append(_conflict("ZP703", here, "the disk section", there))
            else:
                merged.disk = (fragment.disk, fragment.doc)
        for shard in fragment.shards:
            previous = merged.shards.get(shard.name)
            if previous is not None:
                what = f"shard {shard.name}"
                problems.append(_conflict("ZP130", shard.at(key=True), what, previous.at(key=True)))
            else:
                merged.shards[shard.name] = shard
        for coll in fragment.collections:
            other = merged.collections.get(coll.namespace)
            if other is not None:
                what = f"namespace {coll.namespace}"
                problems.append(_conflict("ZP131", coll.at(key=True), what, other.at(key=True)))
            else:
                merged.collections[coll.namespace] = coll
    return merged, problems


def _conflict(code: str, here: Position, what: str, there: Position) -> Diagnostic:
    message = f"{what} is also defined at {there}"
    hint = "each shard, namespace and the balancer belong to exactly one place in the policy"
    if code == "ZP703":
        hint = "the disk section belongs to one file; set a shard's own limit in its entry"
    return Diagnostic(code, Severity.ERROR, here, message, hint)
