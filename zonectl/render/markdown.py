"""The pull-request view of a plan: summary table, destructive changes called out, the
diff per namespace, impact estimate, unmanaged items and how to roll back."""

from __future__ import annotations

from zonectl.capacity.text import blocked_line, capacity_lines
from zonectl.model.keys import format_value
from zonectl.plan.ops import Op, format_range
from zonectl.plan.plan import Plan
from zonectl.render.inert import markdown_code as code
from zonectl.render.inert import markdown_text, terminal
from zonectl.render.summary import (
    BALANCER_GROUP,
    SHARDS_GROUP,
    ZONES_GROUP,
    format_bytes,
    grouped,
    summary_line,
)
from zonectl.render.text import op_line

# Every name or value from the cluster is a code span (`code`), never prose, so it is never
# a link, an HTML tag or a mention; free text that embeds names is escaped (markdown_text).
# Each op words its own callout (Op.callout) with these two.


def callout(op: Op) -> str:
    """Why the op deserves a reviewer's attention; "" for ops that only add."""
    return op.callout(code, markdown_text)


def shell_command(op: Op) -> str:
    """The op as a mongosh line, for the rollback section (a code block: one line, with
    control characters from names escaped so none closes the block)."""
    cmd = format_value(op.command())
    if op.database == "admin":
        return terminal(f"db.adminCommand({cmd})")
    return terminal(f"db.getSiblingDB({format_value(op.database)}).runCommand({cmd})")


def render_markdown(plan: Plan, moves: tuple[int, int] | None = None) -> str:
    """`moves`: the forecast's (chunks, bytes), for the summary line (`summary_line`)."""
    s = plan.summary()
    out = ["## zonectl plan", "", f"**{summary_line(plan, moves)}**", ""]
    if not plan.ops:
        out += _unmanaged(plan) + _notes(plan) + _footer(plan)
        return "\n".join(out) + "\n"
    out += [
        "| change | count |",
        "|---|---:|",
        f"| zone ranges to add | {s.to_add} |",
        f"| zone ranges to remove | {s.to_remove} |",
        f"| shards to re-zone | {s.shards_rezoned} |",
        f"| settings to change | {s.settings} |",
    ]
    if s.collections:
        out.append(f"| collections to move (moveCollection) | {s.collections} |")
    if s.primaries:
        out.append(f"| database primaries to move (movePrimary) | {s.primaries} |")
    if s.shards_added:
        out.append(f"| shards to add to the cluster | {s.shards_added} |")
    if s.shards_removed:
        out.append(f"| shards to drain and remove | {s.shards_removed} |")
    if s.drains_stopped:
        out.append(f"| shard drains to stop | {s.drains_stopped} |")
    if s.impact_known and (s.to_add or s.collections):
        out.append(f"| chunks to migrate (estimate) | ~{s.chunks} (~{format_bytes(s.bytes)}) |")
    out.append("")
    callouts = [c for c in map(callout, plan.ops) if c]
    if callouts:
        out += ["> [!WARNING]", f"> **{len(callouts)} destructive change(s)**", ">"]
        out += [f"> - {c}" for c in callouts]
        out.append("")
    out += ["### Changes", ""]
    for group, ops in grouped(plan):
        origin = plan.origins.get(group)
        pattern = f" (from pattern {code(origin)})" if origin else ""
        title = group if group in (ZONES_GROUP, SHARDS_GROUP, BALANCER_GROUP) else code(group)
        out += [f"**{title}**{pattern}", "", "```diff"]
        out += [" ".join(op_line(op)) for op in ops]
        out += ["```", ""]
    out += _disk(plan) + _impact(plan) + _unmanaged(plan) + _notes(plan) + _warnings(plan)
    out += _rollback(plan) + _footer(plan)
    return "\n".join(out) + "\n"


def _disk(plan: Plan) -> list[str]:
    """Shards past their disk limit after (BLOCKED) or before the plan; [] otherwise."""
    found = capacity_lines(plan.capacity)
    if not found:
        return []
    out = ["### Disk capacity", ""]
    if plan.capacity is not None and plan.capacity.blocked:
        # the shards named in the alert, which the PR bot shows above the fold
        out += ["> [!CAUTION]", "> `zonectl apply` refuses this plan: it would fill a disk"]
        out += [f"> - {markdown_text(blocked_line(s))}" for s in plan.capacity.blocked]
        out.append("")
    for line, details in found:
        out.append(f"- {markdown_text(line)}")
        out.extend(f"  - {markdown_text(d)}" for d in details)
    return [*out, ""]


def _impact(plan: Plan) -> list[str]:
    rows = [
        (new, op.impact)
        for op in plan.ops
        if (new := op.range_change()) is not None and new.adds and op.impact is not None
    ]
    if not rows:
        return []
    out = [
        "### Impact estimate",
        "",
        "| namespace | zone | range | chunks in range | to migrate | size |",
        "|---|---|---|---:|---:|---:|",
    ]
    for new, impact in rows:
        out.append(
            f"| {code(new.ns, in_table=True)} | {code(new.zone, in_table=True)} | "
            f"{code(format_range(new.min, new.max), in_table=True)} | "
            f"{impact.chunks} | ~{impact.migrating} | ~{format_bytes(impact.bytes)} |"
        )
    return [*out, ""]


def _unmanaged(plan: Plan) -> list[str]:
    if not plan.unmanaged:
        return []
    out = ["### Unmanaged (not touched)", ""]
    out += [f"- {u.kind} {code(u.name)}: {markdown_text(u.detail)}" for u in plan.unmanaged]
    return [*out, ""]


def _notes(plan: Plan) -> list[str]:
    if not plan.notes:
        return []
    return ["### Notes", "", *[f"- {markdown_text(n)}" for n in plan.notes], ""]


def _warnings(plan: Plan) -> list[str]:
    if not plan.warnings:
        return []
    return ["### Warnings", "", *[f"- {markdown_text(w)}" for w in plan.warnings], ""]


def _rollback(plan: Plan) -> list[str]:
    inverses = [inv for op in reversed(plan.ops) if (inv := op.inverse()) is not None]
    out = [
        "### Rollback",
        "",
        "Revert the policy change and run `zonectl apply` again, or run these commands "
        "on a mongos, in this order:",
        "",
        "```js",
        *[shell_command(op) for op in inverses],
        "```",
    ]
    if len(inverses) < len(plan.ops):
        out += ["", "Some ops have no recorded prior state and are not listed."]
    return [*out, ""]


def _footer(plan: Plan) -> list[str]:
    return [
        f"<sub>plan `{plan.plan_id}` at {plan.at.isoformat()} · policy `{plan.policy_digest}` "
        f"· live metadata `{plan.fingerprint}`</sub>"
    ]
