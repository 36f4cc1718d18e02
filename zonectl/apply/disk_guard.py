"""Before anything is written: a plan that would take a shard past its disk limit is refused
whole, zone ranges included, since the balancer would fill the disk later (issue 40). The
same refusal ends `apply --dry-run` and `rotate`, before any command is listed or sent."""

from __future__ import annotations

from zonectl.capacity.text import blocked_line, ways_out
from zonectl.errors import PlanError
from zonectl.plan.plan import Plan


def refuse_full(plan: Plan, *, dry_run: bool = False) -> None:
    blocked = plan.capacity.blocked if plan.capacity is not None else ()
    if not blocked:
        return
    head = "the plan would take a shard past its disk limit; "
    raise PlanError(
        head + ("apply would refuse it; nothing was sent:" if dry_run else "nothing was changed:"),
        details=[line for s in blocked for line in (blocked_line(s), ways_out(s))],
        hint="change the policy as a way out says, then `zonectl plan` again",
    )
