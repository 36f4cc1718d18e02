"""Views of a time-to-compliance forecast: text lines, a markdown section, a JSON dict."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.forecast.learn import MIN_SAMPLES, Learned
from zonectl.forecast.report import FLAG, LEARNED, CollectionMoveForecast, Forecast
from zonectl.forecast.reshard import recommend
from zonectl.forecast.units import format_bytes, format_duration, format_rate
from zonectl.render.forecast_drain import drain_lines, drain_markdown, drains_dict
from zonectl.render.inert import markdown_code, markdown_text, terminal
from zonectl.render.mermaid import burndown_mermaid
from zonectl.render.summary import plural

TEACH = (
    "run `zonectl doctor --probe --teach-rate` (it migrates 64 MiB of scratch chunks) or a "
    "first small `zonectl apply --migrate`, or let the balancer move a few chunks, so "
    "config.changelog has migrations to learn from"
)


def _when(seconds: float | None, now: dt.datetime, why: str = "") -> str:
    if seconds is None:
        return f"never ({why})" if why else "never"
    at = (now + dt.timedelta(seconds=seconds)).strftime("%Y-%m-%d %H:%M UTC")
    return f"{format_duration(seconds)} (at {at})"


def balancer_total(f: Forecast) -> str:
    """The balancer route's total, and its range where the estimated chunk sizes decide the
    night it ends in (forecast/finish_range.py)."""
    text = _when(f.balancer_s, f.now, "see above")
    r = f.balancer_range
    if r is None:
        return text
    return (
        f"{text} (between {format_duration(r.low_s)} and {format_duration(r.high_s)} with the "
        f"estimated chunk sizes {r.band:.0%} smaller or larger: the last round ends near the "
        f"{r.close // 60:02d}:{r.close % 60:02d} window close; measure more chunks with "
        "--measure-chunks N to narrow it)"
    )


def assumed_text(f: Forecast) -> str:
    a = f.assumptions
    window = "no window"
    if a.window is not None:
        window = f"{a.window.describe()} {a.tz_name}"
    return f"--parallel {a.parallel}, balancer {window}"


def _history(learned: Learned | None) -> str:
    """`40 migrations in config.changelog, 2026-03-02 12:00 to 12:40 UTC; ignored 3 entries
    (2 aborted, 1 failed)`, and any clock skew."""
    if learned is None:
        return "no history read"
    text = f"{plural(learned.samples, 'migration')} in config.changelog"
    if learned.oldest is not None and learned.newest is not None:
        text += f", {_utc(learned.oldest)} to {_utc(learned.newest)}"
    if learned.ignored:
        why = ", ".join(f"{n} {reason}" for reason, n in sorted(learned.ignored.items()))
        text += f"; ignored {learned.ignored_total} entries ({why})"
    if learned.skew_s:
        text += (
            f"; the newest entry is dated {format_duration(learned.skew_s)} after now "
            "(clock skew between the config server and this host: durations are still "
            "measured on the server's clock)"
        )
    return text


def _utc(t: dt.datetime) -> str:
    return t.strftime("%Y-%m-%d %H:%M UTC")


def describe_cost(f: Forecast) -> str:
    """Where the cost of one migration comes from and what it is: learned (from what),
    --copy-rate, or assumed (and how to teach it)."""
    a = f.assumptions
    m, learned = a.cost, a.learned
    per = f"{m.fixed_s:.1f} s fixed + bytes at {format_rate(m.rate)}"
    slower = sorted((r, s) for s, r in m.shard_rates.items() if r < 0.8 * m.rate)
    if slower:
        per += "; slower shards: " + ", ".join(f"{s} {format_rate(r)}" for r, s in slower)
    if a.source == LEARNED:
        return f"learned from {_history(learned)}: {per} per migration"
    if a.source == FLAG:
        fixed = "learned" if learned is not None and learned.model is not None else "assumed"
        return f"copy rate {format_rate(m.rate)} per migration (--copy-rate), {fixed} " \
            f"fixed part {m.fixed_s:.1f} s"  # fmt: skip
    if learned is not None and learned.error:
        why = learned.error
    else:
        found = learned.samples if learned is not None else 0
        why = (
            f"{_history(learned)}, {MIN_SAMPLES} needed"
            if found
            else ("no migrations in config.changelog")
        )
    return f"assumed {per} per migration ({why}; to learn the real rate, {TEACH})"


def _collection_bytes(c: CollectionMoveForecast) -> str:
    return format_bytes(c.bytes) if c.bytes is not None else "size unknown"


def _collections_total(f: Forecast) -> str:
    """ ", and 2 collections (3.1 GiB) by moveCollection", or nothing."""
    if not f.collections:
        return ""
    sized = [c.bytes for c in f.collections if c.bytes is not None]
    size = format_bytes(sum(sized)) if len(sized) == len(f.collections) else "size unknown"
    return f", and {plural(len(f.collections), 'collection')} ({size}) by moveCollection"


def render_forecast_text(f: Forecast) -> str:
    if not f.namespaces and not f.collections:
        if not f.drains:
            return "Forecast: nothing to move; every chunk is in its zone.\n"
        lines = [
            f"Forecast: every chunk is in its zone; {plural(len(f.drains), 'shard')} to drain "
            f"(assumed: {assumed_text(f)})",
            f"  cost: {describe_cost(f)}",
            *drain_lines(f),
        ]
        return "".join(f"{terminal(line)}\n" for line in lines)
    lines = [
        f"Forecast: {plural(f.chunks, 'chunk')}, {format_bytes(f.bytes)} to move"
        f"{_collections_total(f)} (assumed: {assumed_text(f)})",
        f"  cost: {describe_cost(f)}",
    ]
    for c in f.collections:
        lines.append(
            f"  {c.ns}: moveCollection {c.from_shard or '?'} -> {c.to_shard}, "
            f"{_collection_bytes(c)}; {format_duration(c.seconds)} (at least 5m, one at a time)"
        )
    for n in f.namespaces:
        lines.append(
            f"  {n.ns}: {plural(n.chunks, 'chunk')}, {format_bytes(n.bytes)}; "
            f"--migrate {_when(n.eager_s, f.now)}; "
            f"balancer {_when(n.balancer_s, f.now, n.why_not)}"
        )
    lines.append(f"  total by --migrate --parallel {f.assumptions.parallel}: "
                 f"{_when(f.eager_s, f.now)}")  # fmt: skip
    lines.append(f"  total by the balancer: {balancer_total(f)}")
    lines += reshard_lines(f)
    lines += drain_lines(f)
    lines.extend(f"  {note}" for note in f.notes)
    for b in f.backlog:
        drained = b.balancer_drained.strftime("%Y-%m-%d %H:%M UTC") if b.balancer_drained else "-"
        lines.append(
            f"  backlog on {b.shard}: {plural(b.chunks, 'chunk')}, {format_bytes(b.bytes)} belong "
            f"elsewhere; drained by the balancer at {drained}, by --migrate in "
            f"{format_duration(b.eager_drained_s)}"
        )
    return "".join(f"{terminal(line)}\n" for line in lines)  # names from the cluster: inert


def reshard_lines(f: Forecast) -> list[str]:
    """The reshard route per namespace, and which route is fastest (forecast/reshard.py)."""
    eager = {n.ns: n for n in f.namespaces}
    out = []
    unavailable = [r.ns for r in f.reshard if not r.available]
    if unavailable:  # the cluster's version, not the collection: said once
        shown = ", ".join(unavailable[:3]) + (
            f" and {len(unavailable) - 3} more" if len(unavailable) > 3 else ""
        )
        out.append(
            "  reshard route: needs 7.2+ (forceRedistribution), so it is not forecast for "
            f"{plural(len(unavailable), 'collection')} ({shown})"
        )
    for r in f.reshard:
        n = eager.get(r.ns)
        if not r.available:
            continue
        # Nothing out of zone (a zone gained a shard): the balancer's spreading is not
        # forecast, so the routes are not compared.
        best = recommend(n.eager_s, n.balancer_s, r) if n is not None else "not compared"
        out.append(
            f"  {r.ns}: reshard route (migrate: reshard) {_when(r.seconds, f.now)}, copies "
            f"{format_bytes(r.bytes)}; fastest: {best}"
        )
        out.append("    needs: " + "; ".join(r.needs()))
    forecast_routes = [r for r in f.reshard if r.available]
    if forecast_routes:  # the same for every collection: said once
        out.append(f"  reshard route: {forecast_routes[0].phases.describe()}")
    return out


def render_forecast_markdown(f: Forecast) -> str:
    out = [
        "",
        "### Forecast",
        "",
        f"Cost: {describe_cost(f)}.",
        "",
        f"Assumed: {assumed_text(f)}.",
        "",
    ]
    if not f.namespaces and not f.collections:
        if f.drains:
            return "\n".join([*out, "Every chunk is in its zone.", *drain_markdown(f), ""])
        return "\n".join([*out, "Nothing to move: every chunk is in its zone.", ""])
    out += [
        "| namespace | chunks | bytes | `--migrate` | balancer |",
        "|---|---:|---:|---|---|",
    ]
    for n in f.namespaces:
        out.append(
            f"| {markdown_code(n.ns, in_table=True)} | {n.chunks} | {format_bytes(n.bytes)} | "
            f"{_when(n.eager_s, f.now)} | {markdown_text(_when(n.balancer_s, f.now, n.why_not))} |"
        )
    for c in f.collections:  # apply moves them, with or without --migrate; never the balancer
        took = f"moveCollection {format_duration(c.seconds)}"
        ns = markdown_code(c.ns, in_table=True)
        out.append(f"| {ns} | - | {_collection_bytes(c)} | {took} | {took} |")
    out.append(
        f"| **total** | {f.chunks} | {format_bytes(f.bytes)} | {_when(f.eager_s, f.now)} | "
        f"{markdown_text(balancer_total(f))} |"
    )
    out += ["", *(markdown_text(line.strip()) for line in reshard_lines(f))] if f.reshard else []
    out += drain_markdown(f)
    out.extend(f"\n{note[:1].upper()}{note[1:]}." for note in f.notes)
    return "\n".join([*out, "", *burndown_mermaid(f)])


def _iso(t: dt.datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def forecast_dict(f: Forecast) -> dict[str, Any]:
    out = _forecast_dict(f)
    if f.drains:  # said only where the plan removes a shard
        out["drains"] = drains_dict(f)
    return out


def _forecast_dict(f: Forecast) -> dict[str, Any]:
    a = f.assumptions
    window = None
    if a.window is not None:
        window = {**a.window.as_dict(), "timezone": a.tz_name}
    return {
        "now": f.now.isoformat(),
        "assumed": {
            "copy_rate_bytes_per_s": a.copy_rate,
            "parallel": a.parallel,
            "balancer_window": window,
            "balancer_enabled": a.balancer_enabled,
        },
        "cost": cost_dict(f),
        "chunks": f.chunks,
        "bytes": f.bytes,
        "notes": list(f.notes),
        "migrate": {"seconds": f.eager_s, "at": _iso(f.eager_at)},
        "balancer": {"seconds": f.balancer_s, "at": _iso(f.balancer_at), **range_dict(f)},
        "namespaces": [
            {
                "ns": n.ns,
                "chunks": n.chunks,
                "bytes": n.bytes,
                "migrate_seconds": n.eager_s,
                "balancer_seconds": n.balancer_s,
                "balancer_never_because": n.why_not or None,
            }
            for n in f.namespaces
        ],
        "reshard": [
            {"ns": r.ns, "available": False}  # not forecast: no figures (forecast/reshard.py)
            if not r.available
            else {
                "ns": r.ns,
                "available": r.available,
                "seconds": r.seconds,
                "bytes": r.bytes,
                "busiest_shard": r.busiest_shard,
                "storage_bytes": dict(r.storage),
                "needs": list(r.needs()),
                "phases": {
                    "source": "learned" if r.phases.runs else "assumed",
                    "reshardings": r.phases.runs,
                    "catch_up_share": r.phases.catch_up_share,
                    "catch_up_floor_seconds": r.phases.catch_up_floor_s,
                    "critical_seconds": r.phases.critical_s,
                    "minimum_seconds": r.phases.minimum_s,
                },
            }
            for r in f.reshard
        ],
        "collections": [
            {
                "ns": c.ns,
                "from_shard": c.from_shard or None,
                "to_shard": c.to_shard,
                "bytes": c.bytes,
                "seconds": c.seconds,
            }
            for c in f.collections
        ],
        "backlog": [
            {
                "shard": b.shard,
                "chunks": b.chunks,
                "bytes": b.bytes,
                "balancer_drained_at": _iso(b.balancer_drained),
                "migrate_drained_seconds": b.eager_drained_s,
            }
            for b in f.backlog
        ],
    }


def range_dict(f: Forecast) -> dict[str, Any]:
    """The balancer total's low and high ends (null where the single figure says enough)."""
    r = f.balancer_range
    low, high = (r.low_s, r.high_s) if r is not None else (None, None)
    return {
        "low_seconds": low,
        "high_seconds": high,
        "low_at": _iso(f.now + dt.timedelta(seconds=low) if low is not None else None),
        "high_at": _iso(f.now + dt.timedelta(seconds=high) if high is not None else None),
        "range_size_band": r.band if r is not None else None,
    }


def cost_dict(f: Forecast) -> dict[str, Any]:
    a = f.assumptions
    m, learned = a.cost, a.learned
    out: dict[str, Any] = {
        "source": a.source,
        "fixed_seconds": m.fixed_s,
        "copy_rate_bytes_per_s": m.rate,
        "shard_rates_bytes_per_s": dict(sorted(m.shard_rates.items())),
        "pair_rates_bytes_per_s": [
            {"from": d, "to": r, "rate": v} for (d, r), v in sorted(m.pair_rates.items())
        ],
        "text": describe_cost(f),
    }
    if learned is not None:
        out["history"] = {
            "migrations": learned.samples,
            "ignored": dict(sorted(learned.ignored.items())),
            "oldest": _iso(learned.oldest),
            "newest": _iso(learned.newest),
            "clock_skew_seconds": learned.skew_s,
            "move_collections": learned.move_collections,
            "move_collection_median_seconds": learned.move_collection_s,
            "error": learned.error or None,
        }
    return out
