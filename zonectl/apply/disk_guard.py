"""Before anything is written: a plan that would take a shard past its disk limit is refused
whole, zone ranges included, since the balancer would fill the disk later (issue 40)."""

from __future__ import annotations

from zonectl.capacity.text import blocked_line, ways_out
from zonectl.errors import PlanError
from zonectl.plan.plan import Plan


def refuse_full(plan: Plan) -> None:
    blocked = plan.capacity.blocked if plan.capacity is not None else ()
    if blocked:
        raise PlanError(
            "the plan would take a shard past its disk limit; nothing was changed:",
            details=[line for s in blocked for line in (blocked_line(s), ways_out(s))],
            hint="change the policy as a way out says, then `zonectl plan` again",
        )
