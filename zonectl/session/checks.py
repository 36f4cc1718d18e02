"""What plan, apply and rotate add to a plan once it is made: the impact of each op (range
ops from config.chunks, moveCollection ops from collStats, reshardings from the collection's
size) and the cluster rules' warnings on it (docs/analyze.md: ZA201, ZA202)."""

from __future__ import annotations

import dataclasses
from typing import Any

from zonectl.analyze.plan_rules import plan_findings
from zonectl.analyze.report import Finding
from zonectl.diagnostics import Position
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo.analyze_read import read_plan_checks
from zonectl.mongo.chunk_batch import ChunkBatch
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.mongo.impact import read_impacts
from zonectl.mongo.reshard_read import read_reshard_impacts
from zonectl.mongo.unsharded_read import read_move_impacts
from zonectl.plan.plan import Plan

Ranges = dict[str, list[tuple[dict[str, Any], dict[str, Any]]]]


def with_impacts(
    conn: Connection, actual: ClusterState, plan: Plan, sizes: ChunkSizes | None = None
) -> Plan:
    """The plan with every op's impact attached: `sizes` is the run's one size source when
    a forecast follows (plan), else each read sizes its own (apply, rotate)."""
    impacts = {
        **read_impacts(conn, actual, plan, sizes),
        **read_move_impacts(conn, plan),
        **read_reshard_impacts(conn, plan),
    }
    return plan.with_impacts(impacts)


def with_plan_checks(
    conn: Connection,
    plan: Plan,
    actual: ClusterState,
    desired: DesiredState,
    batch: ChunkBatch,
    assigned: Ranges | None = None,
) -> Plan:
    """The plan with the ZA201/ZA202 warnings of the chunks its new ranges touch.
    `assigned`: assigned_ranges(plan), when the caller has it (plan: its forecast too)."""
    assigned = assigned_ranges(plan) if assigned is None else assigned
    jumbo, totals = read_plan_checks(conn, actual, assigned, batch)
    checks = plan_findings(plan, actual, desired, jumbo, totals)
    if not checks:
        return plan
    warnings = tuple(finding_warning(where, f) for where, f in checks)
    return dataclasses.replace(plan, warnings=plan.warnings + warnings)


def finding_warning(where: Position | None, f: Finding) -> str:
    """`file:line:col: ZA201 name: evidence; fix: ...` (no position: no prefix)."""
    text = f"{f.rule} {f.name}: {f.evidence}; fix: {f.fix}"
    return f"{where}: {text}" if where is not None else text


def assigned_ranges(plan: Plan) -> Ranges:
    """The ranges the plan assigns, per namespace: where its chunks are read one by one."""
    out: Ranges = {}
    for op in plan.ops:
        change = op.range_change()
        if change is not None and change.adds:
            out.setdefault(change.ns, []).append((dict(change.min), dict(change.max)))
    return out
