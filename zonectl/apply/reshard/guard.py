"""Before anything is written: a plan whose key changes cannot run is refused whole.

A blocked RefineShardKey (no supporting index) or ReshardCollection (no opt-in, another
resharding running, an old server) is named with how to unblock it; a --budget shorter
than resharding's minimum duration is refused too.
"""

from __future__ import annotations

from zonectl.apply.reshard.runner import check_budget
from zonectl.errors import PlanError
from zonectl.plan.plan import Plan


def refuse_blocked(plan: Plan, *, detach: bool, budget_s: float | None) -> None:
    keys = [(op, k) for op in plan.ops if (k := op.key_change()) is not None]
    blocked = [f"{op.describe()}: {op.blocked}" for op, _ in keys if op.blocked]
    if blocked:
        raise PlanError(
            "the plan has blocked key changes; nothing was changed:",
            details=blocked,
            hint="make each change runnable as it says, then `zonectl plan` again",
        )
    if any(k.reshards for _, k in keys) and not detach:
        check_budget(budget_s)
