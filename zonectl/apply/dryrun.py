"""`apply --dry-run`: the exact command documents a real run would send, in order, with
the balancing pause and restore around each namespace. Pure: the caller reads the state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, get_args

from zonectl.apply.preview import Preview
from zonectl.apply.run import ApplyOptions
from zonectl.plan.op_base import Phase
from zonectl.plan.ops import Op, SetBalancerEnabled, SetCollectionBalancing
from zonectl.plan.plan import Plan

Command = tuple[str, dict[str, Any]]


def _of(op: Op) -> Command:
    return op.database, op.command()


def dry_run_commands(
    plan: Plan,
    previews: Sequence[Preview],
    options: ApplyOptions,
    no_balance: Mapping[str, bool | None],
    balancer_running: bool,
) -> list[Command]:
    """In the order `ApplyRun._sequence` sends them: memberships joined, key changes, then
    per namespace its pause, ranges and splits; the one queue of moves (its moveCollection
    ops first) listed namespace by namespace, since the queue decides at run time which
    goes first; the restores of the namespaces that had moves (last paused, first
    restored); moveCollection ops without --migrate, memberships left, the rest, shards removed."""
    by_ns: dict[str, list[Op]] = {}
    for op in plan.ops:
        if (change := op.range_change()) is not None:
            by_ns.setdefault(change.ns, []).append(op)
    moves = {p.ns: p for p in previews}
    order = list(by_ns) + sorted(set(moves) - set(by_ns))
    phase = {name: [op for op in plan.ops if op.phase == name] for name in get_args(Phase)}
    out = [_of(op) for op in phase["join"] + phase["key"]]
    queued_colls = phase["relocate"] if moves else []
    cluster = options.pause == "cluster" and bool(order) and balancer_running
    if cluster:
        out.append(_of(SetBalancerEnabled(False)))
    held: list[str] = []  # paused until the queue has ended
    for ns in order:
        pause = options.pause != "cluster" and no_balance.get(ns) is False
        if pause:
            out.append(_of(SetCollectionBalancing(ns, enabled=False)))
        out.extend(_of(op) for op in by_ns.get(ns, []))
        pending = ns in moves and bool(moves[ns].moves.moves)
        if ns in moves:
            out.extend(_of(op) for op in moves[ns].splits)
        if pause and pending:
            held.append(ns)
        elif pause:
            out.append(_of(SetCollectionBalancing(ns, enabled=True)))
    if queued_colls or held or any(p.moves.moves for p in previews):
        out.extend(_of(op) for op in queued_colls)
        for ns in order:
            if ns in moves:
                out.extend(_of(op) for op in moves[ns].moves.moves)
    out.extend(_of(SetCollectionBalancing(ns, enabled=True)) for ns in reversed(held))
    if cluster:
        out.append(_of(SetBalancerEnabled(True)))
    out.extend(_of(op) for op in phase["relocate"] if op not in queued_colls)
    out.extend(_of(op) for op in phase["leave"] + phase["last"])
    # A removal's first command; what follows depends on the server's answers (apply/drain.py).
    out.extend(_of(op) for op in phase["shards"])
    return out
