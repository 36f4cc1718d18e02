"""Views of the drain forecast (zonectl.forecast.drain): per shard removed, the time by the
balancer, by `apply --migrate` and, where it is the one to take, by resharding; as text
lines, markdown rows and a JSON list."""

from __future__ import annotations

import datetime as dt
from typing import Any

from zonectl.forecast.drain import DrainForecast, DrainRoute
from zonectl.forecast.report import Forecast
from zonectl.forecast.units import format_bytes, format_duration
from zonectl.render.inert import markdown_code, markdown_text
from zonectl.render.summary import plural


def _at(d: DrainForecast, seconds: float) -> str:
    at = d.at(seconds)
    assert at is not None
    return f"{at:%Y-%m-%d %H:%M} UTC"


def held(d: DrainForecast) -> str:
    """`12 chunks, 768.0 MiB, 1 jumbo chunk, 1 unsharded collection, 1 database primary`."""
    size = format_bytes(d.bytes) if d.bytes is not None else "size unknown"
    out = [plural(d.chunks, "chunk"), size]
    if d.jumbo:
        out.append(plural(d.jumbo, "jumbo chunk"))
    if d.collection_moves:
        out.append(plural(d.collection_moves, "unsharded collection"))
    if d.primaries:
        out.append(plural(d.primaries, "database primary"))
    return ", ".join(out)


def route_text(d: DrainForecast, r: DrainRoute, where: str = "", rest: str = "") -> str:
    """`~1h05m (at 2026-01-01 01:05 UTC, inside its window ...)`, or `never (why; rest)`."""
    if r.seconds is None:
        then = f"; {rest} ~{format_duration(r.rest_s)}" if rest and r.rest_s is not None else ""
        return f"never ({r.why_not}{then})"
    return f"~{format_duration(r.seconds)} (at {_at(d, r.seconds)}{where})"


def routes(d: DrainForecast, tz_name: str) -> list[tuple[str, str]]:
    """(route, its time) in the order shown: resharding only where it is the one to take."""
    where = f", inside its {d.window} {tz_name}" if d.window else ""
    out = [
        ("by the balancer", route_text(d, d.balancer, where, "its other chunks leave in")),
        ("by apply --migrate", route_text(d, d.migrate, "", "with it")),
    ]
    if d.reshard is not None and d.reshard_named:
        out.append(("by resharding", route_text(d, d.reshard)))
    return out


def _unsharded(d: DrainForecast) -> str:
    moves = []
    if d.collection_moves:
        moves.append(f"moveCollection of {plural(d.collection_moves, 'unsharded collection')}")
    if d.primaries:
        moves.append(f"movePrimary of {plural(d.primaries, 'database')}")
    if not moves:
        return ""
    floor = " (at least 5m each moveCollection)" if d.collection_moves else ""
    return (
        f"{' and '.join(moves)}: ~{format_duration(d.unsharded_s)}, one at a time{floor}, "
        "alongside the chunks"
    )


def drain_lines(f: Forecast) -> list[str]:
    """Text lines (indented as the forecast's) for each drain."""
    out = []
    for d in f.drains:
        shown = ", ".join(f"{name} {when}" for name, when in routes(d, f.assumptions.tz_name))
        out.append(f"  drain of shard {d.shard}: {held(d)}; {shown}")
        extra = [_unsharded(d)] if _unsharded(d) else []
        if d.balancer.seconds is not None and d.balancer.migrations > 1:
            extra.append(
                "the balancer: one migration at a time off the shard, "
                "balancerMigrationsThrottlingMs (assumed 1s) apart"
            )
        extra += list(d.notes)
        out += [f"    {line}" for line in extra]
    return out


def drain_markdown(f: Forecast) -> list[str]:
    """A table of the drains, one row per shard removed."""
    if not f.drains:
        return []
    out = [
        "",
        "#### Shard drains",
        "",
        "| shard | moves | balancer | `apply --migrate` | resharding |",
        "|---|---|---|---|---|",
    ]
    for d in f.drains:
        shown = dict(routes(d, f.assumptions.tz_name))
        reshard = shown.get("by resharding", "-")
        cells = [held(d), shown["by the balancer"], shown["by apply --migrate"], reshard]
        text = " | ".join(markdown_text(c) for c in cells)
        out.append(f"| {markdown_code(d.shard, in_table=True)} | {text} |")
    return out


def _iso(t: dt.datetime | None) -> str | None:
    return t.isoformat() if t is not None else None


def _route_dict(d: DrainForecast, r: DrainRoute | None) -> dict[str, Any] | None:
    if r is None:
        return None
    return {
        "seconds": r.seconds,
        "at": _iso(d.at(r.seconds)),
        "never_because": r.why_not or None,
        "migrations": r.migrations,
        "rest_seconds": r.rest_s,
    }


def drains_dict(f: Forecast) -> list[dict[str, Any]]:
    return [
        {
            "shard": d.shard,
            "chunks": d.chunks,
            "bytes": d.bytes,
            "jumbo_chunks": d.jumbo,
            "collection_moves": d.collection_moves,
            "primaries": d.primaries,
            "unsharded_seconds": d.unsharded_s,
            "cost_source": d.source,
            "balancer": _route_dict(d, d.balancer),
            "migrate": _route_dict(d, d.migrate),
            # null: not available (forceRedistribution needs 7.2+)
            "reshard": _route_dict(d, d.reshard),
            "reshard_named": d.reshard_named,
            "notes": list(d.notes),
        }
        for d in f.drains
    ]
