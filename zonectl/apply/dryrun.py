"""`apply --dry-run`: the exact command documents a real run would send, in order, with
the balancing pause and restore around each namespace. Pure: the caller reads the state."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.apply.preview import Preview
from zonectl.apply.run import ApplyOptions
from zonectl.plan.ops import Op, SetBalancerEnabled, SetCollectionBalancing, ZoneRangeOp
from zonectl.plan.value import Plan

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
    by_ns: dict[str, list[Op]] = {}
    for op in plan.ops:
        if isinstance(op, ZoneRangeOp):
            by_ns.setdefault(op.ns, []).append(op)
    moves = {p.ns: p for p in previews}
    order = list(by_ns) + sorted(set(moves) - set(by_ns))
    out = [_of(op) for op in plan.ops if op.phase == "join"]
    cluster = options.pause == "cluster" and bool(order) and balancer_running
    if cluster:
        out.append(_of(SetBalancerEnabled(False)))
    for ns in order:
        pause = options.pause != "cluster" and no_balance.get(ns) is False
        if pause:
            out.append(_of(SetCollectionBalancing(ns, enabled=False)))
        out.extend(_of(op) for op in by_ns.get(ns, []))
        if ns in moves:
            out.extend(_of(op) for op in moves[ns].splits)
            out.extend(_of(op) for op in moves[ns].moves.moves)
        if pause:
            out.append(_of(SetCollectionBalancing(ns, enabled=True)))
    if cluster:
        out.append(_of(SetBalancerEnabled(True)))
    out.extend(_of(op) for op in plan.ops if op.phase == "leave")
    out.extend(_of(op) for op in plan.ops if op.phase not in ("join", "range", "leave"))
    return out
