"""The `capacity` key of the JSON plan: every shard's volume now and projected per route,
and the shards the plan would take past their limit; read back by `apply --plan`."""

from __future__ import annotations

from typing import Any

from zonectl.model.capacity import CapacityReport, RouteLoad, ShardProjection


def _ratio(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def capacity_to_doc(report: CapacityReport) -> dict[str, Any]:
    return {
        "database": report.database,
        "blocked": [s.shard for s in report.blocked],
        "over_before": [s.shard for s in report.over_before],
        "shards": [_shard(s) for s in report.shards],
    }


def _shard(s: ShardProjection) -> dict[str, Any]:
    return {
        "shard": s.shard,
        "total_bytes": s.total_bytes,
        "used_bytes": s.used_bytes,
        "used_ratio": _ratio(s.used_bytes, s.total_bytes),
        "limit": s.limit_text,
        "limit_ratio": s.limit_ratio,
        "limit_bytes": s.limit_bytes,
        "projected_bytes": s.projected_bytes,
        "projected_ratio": _ratio(s.projected_bytes, s.total_bytes),
        "reused_bytes": s.reused_bytes,
        "over_before": s.over_before,
        "blocked": s.blocked,
        "routes": [
            {
                "route": r.route,
                "incoming_bytes": r.incoming_bytes,
                "added_bytes": r.added_bytes,
                # this route alone
                "projected_bytes": s.used_bytes + r.added_bytes,
                "sources": list(r.sources),
            }
            for r in s.routes
        ],
    }


def capacity_from_doc(doc: dict[str, Any]) -> CapacityReport:
    """The report saved by `capacity_to_doc` (derived fields are recomputed)."""
    return CapacityReport(
        str(doc["database"]),
        tuple(
            ShardProjection(
                str(s["shard"]),
                int(s["total_bytes"]),
                int(s["used_bytes"]),
                float(s["limit_ratio"]),
                str(s["limit"]),
                tuple(
                    RouteLoad(
                        str(r["route"]),
                        int(r["incoming_bytes"]),
                        int(r["added_bytes"]),
                        tuple(r.get("sources", ())),
                    )
                    for r in s.get("routes", ())
                ),
                int(s.get("reused_bytes", 0)),
            )
            for s in doc.get("shards", ())
        ),
    )
