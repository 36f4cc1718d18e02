"""The human view of a plan: grouped by namespace, `+` add, `-` remove, `~` change; colour
only when asked (the CLI asks on a TTY without NO_COLOR)."""

from __future__ import annotations

from zonectl.capacity.text import capacity_lines
from zonectl.plan.ops import Op
from zonectl.plan.plan import Plan
from zonectl.render.inert import terminal
from zonectl.render.summary import grouped, summary_line

_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "~": "\x1b[33m"}
_RESET = "\x1b[0m"


def op_line(op: Op) -> tuple[str, str]:
    """(sign, text) for one op: the wording shared by the text and markdown views (where it
    sits in a code block); names and values from the cluster shown inert. A blocked key
    change gets a second line saying why, an op with details (a shard's removal) a line for
    each, each made inert on its own (the line breaks are ours)."""
    blocked, details = op.blocked, op.details()
    more = "".join(f"\n      {terminal(line)}" for line in details)
    if blocked and not details:  # an op with details lists its blockers among them
        more = f"\n      BLOCKED: {terminal(blocked)}"
    return op.sign, terminal(op.line()) + more


def render_text(plan: Plan, *, color: bool = False, moves: tuple[int, int] | None = None) -> str:
    out = [
        f"zonectl plan {plan.plan_id} at {plan.at.isoformat()}"
        + (f" (cluster {plan.cluster_version})" if plan.cluster_version else ""),
        f"policy {plan.policy_digest or '-'}; live metadata {plan.fingerprint}",
        "",
    ]
    for group, ops in grouped(plan):
        origin = plan.origins.get(group)
        out.append(terminal(f"{group}  (from pattern {origin})" if origin else group))
        for op in ops:
            sign, text = op_line(op)
            line = f"  {sign} {text}"
            out.append(f"{_COLOURS[sign]}{line}{_RESET}" if color else line)
        out.append("")
    if plan.unmanaged:
        out.append("unmanaged (left untouched)")
        out.extend(terminal(f"  {u.kind} {u.name}: {u.detail}") for u in plan.unmanaged)
        out.append("")
    out += disk_lines(plan)
    out += notes_lines(plan)
    out.append(summary_line(plan, moves))
    return "\n".join(out) + "\n"


def disk_lines(plan: Plan) -> list[str]:
    """The shards this plan would take past their disk limit (BLOCKED: apply refuses it),
    and those already past it; nothing while every shard stays under its limit."""
    found = capacity_lines(plan.capacity)
    if not found:
        return []
    out = ["disk capacity"]
    for line, details in found:
        out.append(terminal(f"  {line}"))
        out.extend(terminal(f"      {d}") for d in details)
    return [*out, ""]


def notes_lines(plan: Plan) -> list[str]:
    """Where unsharded pinned collections live, patterns and what they matched."""
    if not plan.notes:
        return []
    return ["notes", *(terminal(f"  {note}") for note in plan.notes), ""]
