"""Shared wording for every view of a plan: the summary line, byte sizes, op grouping."""

from __future__ import annotations

from zonectl.plan.key_change import IN_PROGRESS
from zonectl.plan.op_base import format_bytes as format_bytes
from zonectl.plan.op_base import plural as plural
from zonectl.plan.ops import Op
from zonectl.plan.plan import Plan, Summary
from zonectl.plan.unsharded import UNREACHABLE

ZONES_GROUP = "zone memberships"
BALANCER_GROUP = "balancer"
SHARDS_GROUP = "shards joining and leaving"


def summary_line(plan: Plan, moves: tuple[int, int] | None = None) -> str:
    """ "N to add, M to remove, K shards to re-zone; ~X chunks (~Y GiB) will migrate".
    `moves`: the forecast's (chunks, bytes), said where no op's impact says what migrates
    (a shard leaving a zone moves that zone's chunks off it: no range op carries them)."""
    if not plan.ops:
        stuck = sum(UNREACHABLE in note for note in plan.notes)
        if stuck:
            return (
                f"No changes zonectl can make, but {plural(stuck, 'pinned collection')} "
                "outside its zone that no zone can reach on this version (see notes)."
            )
        if any(IN_PROGRESS in note for note in plan.notes):
            return "No changes to make now: a resharding is in progress (see notes)."
        return "No changes: the cluster matches the policy."
    s: Summary = plan.summary()
    text = (
        f"{s.to_add} to add, {s.to_remove} to remove, "
        f"{plural(s.shards_rezoned, 'shard')} to re-zone"
    )
    if s.shards_added:
        text += f", {plural(s.shards_added, 'shard')} to add to the cluster"
    if s.shards_removed:
        text += f", {plural(s.shards_removed, 'shard')} to drain and remove"
    if s.drains_stopped:
        text += f", {plural(s.drains_stopped, 'drain')} to stop"
    if s.settings:
        text += f", {plural(s.settings, 'setting')} to change"
    if s.collections:
        text += f", {plural(s.collections, 'collection')} to move"
    if s.primaries:
        primaries = "primary" if s.primaries == 1 else "primaries"
        text += f", {s.primaries} database {primaries} to move"
    changed = s.key_changes - s.same_key  # a reshard route keeps the key: not a key change
    if changed:
        text += f", {plural(changed, 'shard key')} to change"
    if s.same_key:
        text += f", {plural(s.same_key, 'collection')} to reshard to the same key"
    if s.blocked:
        text += f" ({s.blocked} blocked)"
    if s.to_add and s.impact_known:
        text += f"; ~{plural(s.chunks, 'chunk')} (~{format_bytes(s.bytes)}) will migrate"
    elif (s.collections or s.key_changes) and s.impact_known and s.bytes:
        text += f"; ~{format_bytes(s.bytes)} will be copied"
    elif moves is not None and moves[0]:
        chunks, nbytes = moves
        text += f"; ~{plural(chunks, 'chunk')} (~{format_bytes(nbytes)}) will migrate (forecast)"
    elif s.to_add or s.collections or s.primaries:
        text += "; migration impact not estimated"
    return text + "."


def group_of(op: Op) -> str:
    if op.counts_as == "membership":
        return ZONES_GROUP
    if op.namespace is None and op.counts_as in ("shard", "collection_moved", "primary_moved"):
        return SHARDS_GROUP  # shards joining and leaving, and database primaries moved
    return op.namespace or BALANCER_GROUP


def grouped(plan: Plan) -> list[tuple[str, list[Op]]]:
    """Ops by group: memberships first, then shards joining and leaving, namespaces sorted,
    the balancer last; each group in plan (execution) order."""
    groups: dict[str, list[Op]] = {}
    for op in plan.ops:
        groups.setdefault(group_of(op), []).append(op)

    def rank(name: str) -> tuple[int, str]:
        first = {ZONES_GROUP: 0, SHARDS_GROUP: 1}
        return (first.get(name, 3 if name == BALANCER_GROUP else 2), name)

    return [(name, groups[name]) for name in sorted(groups, key=rank)]
