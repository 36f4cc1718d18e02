"""A policy planned against a live cluster the one way plan, apply, status and the metrics
see it: namespace patterns expanded against the live namespaces, the windows of exact and
pattern-matched namespaces at their boundary, the expansion's origins and notes attached."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.resolve import Resolved, read_resolved
from zonectl.plan.plan import Plan
from zonectl.plan.planner import make_plan
from zonectl.plan.restrict import backward_windows
from zonectl.session.boundaries import window_boundaries
from zonectl.session.namespaces import policy_namespaces


@dataclass(frozen=True)
class PolicyPlan:
    plan: Plan
    resolved: Resolved  # the live state read, and the policy with its patterns expanded
    next_tick: dt.datetime | None  # the earliest next tick of any window: stale after it


def read_policy_plan(
    conn: Connection,
    desired: DesiredState,
    at: dt.datetime,
    *,
    namespaces: list[str] | None = None,
    boundaries: Mapping[str, Any] | None = None,
) -> PolicyPlan:
    """Read, expand and plan at instant `at`. `boundaries` overrides window boundaries
    computed at `at` (plan passes its own, computed before connecting); PlanError when two
    patterns overlap or the policy cannot be planned against this cluster. `namespaces`
    (--namespace) are checked and their patterns expanded (`policy_namespaces`)."""
    resolved = read_resolved(conn, desired, at)
    if namespaces is not None:
        namespaces = policy_namespaces(conn, resolved, namespaces)
    found, tick = window_boundaries(resolved.desired, at)
    wanted = {**found, **(boundaries or {})}
    plan = make_plan(
        resolved.desired,
        resolved.actual,
        boundaries=wanted,
        at=at,
        namespaces=namespaces,
        origins=resolved.origins,
        notes=resolved.notes,
    )
    back = backward_windows(resolved.desired, resolved.actual, wanted)
    if back:  # shown by plan and apply; rotate refuses it (session/clock.py)
        plan = dataclasses.replace(plan, warnings=plan.warnings + tuple(back))
    return PolicyPlan(plan, resolved, tick)
