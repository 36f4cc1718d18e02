"""The human view of a plan: grouped by namespace, `+` add, `-` remove, `~` change; colour
only when asked (the CLI asks on a TTY without NO_COLOR)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from zonectl.model.keys import format_value
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    Impact,
    MoveCollection,
    MoveRange,
    Op,
    RefineShardKey,
    RemoveShardFromZone,
    RemoveZoneRange,
    ReshardCollection,
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
    SetQueryAnalyzer,
    SplitChunk,
    format_range,
    format_rate,
)
from zonectl.plan.setting_ops import SetClusterSetting, SetCollectionSetting
from zonectl.plan.value import Plan
from zonectl.render.inert import terminal
from zonectl.render.summary import format_bytes, grouped, plural, summary_line

_COLOURS = {"+": "\x1b[32m", "-": "\x1b[31m", "~": "\x1b[33m"}
_RESET = "\x1b[0m"


def _on_off(value: bool | None) -> str:
    return "unknown" if value is None else "on" if value else "off"


def _impact(impact: Impact | None, *, adding: bool) -> str:
    if impact is None:
        return ""
    if adding:
        return f"  (~{plural(impact.migrating, 'chunk')}, ~{format_bytes(impact.bytes)} to migrate)"
    verb = "leaves" if impact.chunks == 1 else "leave"
    return f"  ({plural(impact.chunks, 'chunk')} {verb} the zone)"


def _add_shard(op: AddShardToZone) -> tuple[str, str]:
    return "+", f"shard {op.shard} joins zone {op.zone}"


def _remove_shard(op: RemoveShardFromZone) -> tuple[str, str]:
    return "-", f"shard {op.shard} leaves zone {op.zone}"


def _assign(op: AssignZoneRange) -> tuple[str, str]:
    return "+", f"{format_range(op.min, op.max)} zone {op.zone}" + _impact(op.impact, adding=True)


def _remove_range(op: RemoveZoneRange) -> tuple[str, str]:
    return "-", f"{format_range(op.min, op.max)} zone {op.zone}" + _impact(op.impact, adding=False)


def _balancing(op: SetCollectionBalancing) -> tuple[str, str]:
    return "~", f"balancing {_on_off(op.previous)} -> {_on_off(op.enabled)}"


def _sampling(op: SetQueryAnalyzer) -> tuple[str, str]:
    return "~", f"query sampling {_samples(op.previous)} -> {_samples(op.rate)}"


def _samples(rate: float | None) -> str:
    return "off" if rate is None else f"{format_rate(rate)} samples/s"


def _balancer(op: SetBalancerEnabled) -> tuple[str, str]:
    return "~", f"enabled {_on_off(op.previous)} -> {_on_off(op.enabled)}"


def _window(op: SetBalancerWindow) -> tuple[str, str]:
    before = f"{op.previous[0]}-{op.previous[1]}" if op.previous else "none (always active)"
    after = f"{op.start}-{op.stop}" if op.start else "none (always active)"
    return "~", f"active window {before} -> {after}"


def _split(op: SplitChunk) -> tuple[str, str]:
    return "~", f"split at {format_value(op.middle)}"


def _move(op: MoveRange) -> tuple[str, str]:
    return "~", f"move {format_range(op.min, op.max)} to {op.to_shard}"


def _move_collection(op: MoveCollection) -> tuple[str, str]:
    size = f", ~{format_bytes(op.impact.bytes)} to copy" if op.impact is not None else ""
    source = f" from {op.from_shard}" if op.from_shard else ""
    return "~", f"moveCollection{source} to {op.to_shard} (zone {op.zone}{size}; 5 min at least)"


def _refine(op: RefineShardKey) -> tuple[str, str]:
    text = (
        f"shard key {format_value(op.previous)} -> {format_value(op.key)} (refine, no data moves)"
    )
    return "~", text


def _reshard(op: ReshardCollection) -> tuple[str, str]:
    size = f", ~{format_bytes(op.impact.bytes)} to copy" if op.impact is not None else ""
    zones = plural(len(op.zones), "zone range")
    if op.force_redistribution:
        head = f"reshard to the same key {format_value(op.key)} with {zones}, forceRedistribution"
    else:
        head = f"shard key {format_value(op.previous)} -> {format_value(op.key)} by resharding"
        head += f", {zones}"
    text = f"{head} (5 min at least, writes blocked ~2 s{size})"
    return "~", text


LINES: dict[type[Op], Callable[[Any], tuple[str, str]]] = {
    AddShardToZone: _add_shard,
    RemoveShardFromZone: _remove_shard,
    AssignZoneRange: _assign,
    RemoveZoneRange: _remove_range,
    SetCollectionBalancing: _balancing,
    SetQueryAnalyzer: _sampling,
    SetBalancerEnabled: _balancer,
    SetBalancerWindow: _window,
    SetClusterSetting: lambda op: ("~", op.line()),
    SetCollectionSetting: lambda op: ("~", op.line()),
    SplitChunk: _split,
    MoveRange: _move,
    MoveCollection: _move_collection,
    RefineShardKey: _refine,
    ReshardCollection: _reshard,
}


def op_line(op: Op) -> tuple[str, str]:
    """(sign, text) for one op: the wording shared by the text and markdown views (where it
    sits in a code block); names and values from the cluster shown inert. A blocked key
    change gets a second line saying why, made inert on its own (the line break is ours)."""
    sign, text = LINES[type(op)](op)
    blocked = getattr(op, "blocked", "")
    return sign, terminal(text) + (f"\n      BLOCKED: {terminal(blocked)}" if blocked else "")


def render_text(plan: Plan, *, color: bool = False) -> str:
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
    out += notes_lines(plan)
    out.append(summary_line(plan))
    return "\n".join(out) + "\n"


def notes_lines(plan: Plan) -> list[str]:
    """Where unsharded pinned collections live, patterns and what they matched."""
    if not plan.notes:
        return []
    return ["notes", *(terminal(f"  {note}") for note in plan.notes), ""]
