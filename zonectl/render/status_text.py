"""The text view of `zonectl status`: rich tables and a per-shard bar chart on a TTY,
plain aligned columns and `#` bars otherwise."""

from __future__ import annotations

import functools
import io
from collections.abc import Mapping

from rich import box
from rich.console import Console, Group, RenderableType
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from zonectl.model.cluster import ReshardProgress
from zonectl.model.keys import format_value
from zonectl.plan.settings_view import SettingLine
from zonectl.render.inert import terminal
from zonectl.render.status import BalancerState, CollectionStatus, OpenJournal, StatusReport
from zonectl.render.status_disk import disk_lines
from zonectl.render.status_drains import drain_lines, size_text
from zonectl.render.status_explain import explain_line
from zonectl.render.status_plain import BarTable, Line, write_plain


def render_status_text(report: StatusReport, *, color: bool = False, width: int = 100) -> str:
    """Rich tables with colour and block bars when `color` (a TTY); plain columns and `#`
    bars otherwise, so logs and tests see stable text."""
    out = io.StringIO()
    console = Console(
        file=out,
        width=width if color else 160,
        force_terminal=color,
        color_system="standard" if color else None,
        highlight=False,
        emoji=False,
    )
    if color:
        for part in _parts(report, color):
            console.print(part)
    else:
        write_plain(_parts(report, color), console, out)
    return out.getvalue()


def _parts(report: StatusReport, color: bool) -> list[RenderableType]:
    style = box.ROUNDED if color else None
    parts: list[RenderableType] = [
        _line(f"cluster {report.uri} (MongoDB {report.version})", style="bold" if color else ""),
        _line(_balancer_line(report.balancer)),
        _line(_lease_line(report)),
    ]
    yellow = "yellow" if color else ""
    parts.extend(_line(_journal_line(j), style=yellow) for j in report.journals)
    parts.extend(_line(_reshard_line(r), style=yellow) for r in report.reshardings)
    parts.extend(_line(f"note: {n}", style="dim" if color else "") for n in report.notes)
    if report.settings:
        parts += [_line(""), _line("balancer settings", style="bold" if color else "")]
        parts += [
            _line(_setting_line(x), style="yellow" if color and x.state == "drift" else "")
            for x in report.settings
        ]
    shards = Table(title=None, box=style, show_edge=color, pad_edge=False, title_justify="left")
    for name, justify in (("shard", "left"), ("zones", "left"), ("chunks", "right"),
                          ("bytes", "right"), ("state", "left")):  # fmt: skip
        shards.add_column(name, justify=justify)  # type: ignore[arg-type]
    for s in report.shards:
        shards.add_row(
            _t(s.id),
            _t(", ".join(s.zones) or "-"),
            f"{s.chunks:,}",
            _bytes(s.bytes),
            "draining" if s.draining else "",
        )
    parts += [_line(""), _line("shards", style="bold" if color else ""), shards]
    if report.disk is not None and report.disk.shards:
        head = "disk (now, and after the pending moves)"
        parts += [_line(""), _line(head, style="bold" if color else "")]
        parts += [_line(line) for line in disk_lines(report.disk)]
    if report.drains:
        parts += [_line(""), _line("draining shards", style="bold" if color else "")]
        for d in report.drains:
            warn = "yellow" if color and d.blocked else ""
            parts += [_line(line, style=warn) for line in drain_lines(d)]
    if report.databases:
        parts += [_line(""), _line("managed databases", style="bold" if color else "")]
        parts += [
            _line(f"  {d.name}: primary {d.primary} (zones {', '.join(d.zones) or '-'})")
            for d in report.databases
        ]
    if report.placements:
        parts += [_line(""), _line("pins and patterns", style="bold" if color else "")]
        parts += [_line(f"  {line}") for line in report.placements]
    for c in report.collections:
        parts += [_line(""), _collection(c, color)]
    parts += [_line(""), _line(_summary(report), style=_verdict_style(report.compliant, color))]
    return parts


def _t(text: str, style: str = "") -> Text:
    """Every cell as a Text, never markup (a shard or zone named `x[/]` would break rich's
    parser), with control characters from names shown escaped."""
    return Text(terminal(text), style=style)


def _line(text: str, style: str = "") -> Line:
    """Every line as the Text `_t` makes, built only if rich prints it (status_plain.Line)."""
    return Line(terminal(text), style)


def _balancer_line(b: BalancerState) -> str:
    state = "on" if b.enabled else "off"
    window = (
        f"window {b.active_window['start']}-{b.active_window['stop']} (config server local time)"
        if b.active_window
        else "no window (always active)"
    )
    if b.day_windows:
        window = (
            f"day-of-week windows {b.days_text()} (config server local time{b.ignored_window()})"
        )
    rounds = f", {b.rounds} rounds" if b.rounds is not None else ""
    in_round = "in a round" if b.in_round else "not in a round"
    return f"balancer: {state} (mode {b.mode}), {window}, {in_round}{rounds}"


def _setting_line(x: SettingLine) -> str:
    if x.wanted is not None and x.state != "managed":
        return f"  {x.name}: {x.live}; the policy says {x.wanted} ({x.state})"
    return f"  {x.name}: {x.live} ({x.state})"


def _lease_line(report: StatusReport) -> str:
    lease = report.lease
    if lease is None:
        text = "lease: free"
    else:
        text = f"lease: {'EXPIRED, ' if lease.expired else ''}held by {lease.holder}"
    if not report.journals:
        text += "; no unfinished apply"
    return text


def _journal_line(j: OpenJournal) -> str:
    started = j.started.strftime("%Y-%m-%d %H:%M:%SZ") if j.started else "?"
    unrestored = f"; balancing not restored for {', '.join(j.unrestored)}" if j.unrestored else ""
    return (
        f"unfinished apply {j.apply_id} (plan {j.plan_id or '?'}, by {j.owner or '?'}, "
        f"started {started}): {j.steps_done} of {j.ops} steps done{unrestored}; "
        "run 'zonectl recover' or the next 'zonectl apply' to finish it"
    )


def _collection(c: CollectionStatus, color: bool) -> RenderableType:
    head = f"{c.namespace}  "
    if c.sharded:
        balancing = "on" if c.balancing else "off"
        head += f"key {format_value(c.key)}  balancing {balancing}  {c.chunks:,} chunks"
    else:
        head += "not sharded (ranges apply once it is sharded)"
    rows: list[RenderableType] = [_line(head, style="bold" if color else "")]
    if c.ranges:
        ranges = Table(box=box.SIMPLE if color else None, show_header=True, pad_edge=False)
        for name in ("zone", "min", "max"):
            ranges.add_column(name)
        for r in c.ranges:
            ranges.add_row(_t(r.zone), _t(format_value(r.min)), _t(format_value(r.max)))
        rows.append(Padding(ranges, (0, 0, 0, 2), expand=False))
    else:
        rows.append(_line("  no zone ranges"))
    if c.sharded:
        rows.append(_line(_compliance_line(c), style=_verdict_style(c.compliant, color)))
        rows.extend(_line(line) for line in _examples(c))
        rows.append(_line(f"  balancerCollectionStatus: {_server_text(c)}"))
        rows.extend(_line(line) for line in [explain_line(c.explained)] if line)
        rows.append(_bars(c.per_shard, c.chunks, color))
    return Group(*rows)


def _compliance_line(c: CollectionStatus) -> str:
    text = (
        f"  compliance (zonectl): {c.outside_zone:,} chunk{_s(c.outside_zone)} outside their "
        f"zone, {c.straddling:,} straddling a zone boundary"
    )
    if c.jumbo:
        text += f", {c.jumbo:,} jumbo"
    if c.zones_without_shard:
        text += f"; zone(s) with ranges but no shard: {', '.join(c.zones_without_shard)}"
    return text


def _examples(c: CollectionStatus) -> list[str]:
    lines = []
    if c.first_outside is not None:
        ref = c.first_outside
        lines.append(
            f"    first outside: [{format_value(ref.min)}, {format_value(ref.max)}) on "
            f"{ref.shard}, belongs to zone {ref.zone}"
        )
    if c.first_straddling is not None:
        ref = c.first_straddling
        lines.append(
            f"    first straddling: [{format_value(ref.min)}, {format_value(ref.max)}) "
            f"on {ref.shard}"
        )
    return lines


def _server_text(c: CollectionStatus) -> str:
    if c.server is None:
        return c.server_note or "not available"
    if c.server.get("balancerCompliant"):
        return "compliant"
    return f"not compliant ({c.server.get('firstComplianceViolation', '?')})"


def _bars(per_shard: Mapping[str, int], total: int, color: bool) -> RenderableType:
    """One bar per shard, scaled to the largest count, with the share of all chunks."""
    table = BarTable(color)
    most = max(per_shard.values(), default=0)
    full, empty = ("█", "░") if color else ("#", ".")
    for shard, n in sorted(per_shard.items()):
        filled = round(24 * n / most) if most else 0
        share = f"{100 * n / total:.0f}%" if total else "-"
        table.add_row(_shard_cell(shard), full * filled, empty * (24 - filled), f"{n:,}", share)
    return table


@functools.lru_cache(maxsize=1024)
def _shard_cell(shard: str) -> str:
    """A bar's shard cell, escaped once per shard (not once per collection)."""
    return terminal(f"  {shard}")


def _summary(report: StatusReport) -> str:
    bad = [c.namespace for c in report.collections if not c.compliant]
    if not bad:
        return "all scanned namespaces comply with their zones"
    return f"{len(bad)} namespace{_s(len(bad))} not compliant: {', '.join(bad)}"


def _verdict_style(ok: bool, color: bool) -> str:
    if not color:
        return ""
    return "green" if ok else "red"


def _bytes(value: int | None) -> str:
    return "n/a" if value is None else size_text(value)


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _reshard_line(r: ReshardProgress) -> str:
    """A resharding in flight, in the server's own figures ($currentOp)."""
    left = f", about {r.remaining_s}s left (server estimate)" if r.remaining_s is not None else ""
    return (
        f"resharding {r.namespace}: {r.state or 'running'}, {100 * r.share:.0f}% copied "
        f"({r.bytes_copied} of {r.bytes_to_copy} bytes) after {r.elapsed_s}s{left}"
    )
