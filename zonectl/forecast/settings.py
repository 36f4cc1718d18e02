"""What the balancer settings change in a forecast, and the lines that say how: the chunk
size caps each balancer migration (6.0.3+: moveRange without `max` cuts about one chunk
size off a larger chunk, reference balancer-settings §6.1), and secondaryThrottle slows
each copy by a replication wait that only the cluster's own migration history shows."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from zonectl.balancer_settings.table import row
from zonectl.forecast.balancer import NamespaceChunks
from zonectl.model.cluster import ClusterState
from zonectl.plan.ops import Op

MB = 1024 * 1024


def planned_chunk_sizes(ops: Iterable[Op]) -> tuple[int | None, dict[str, int]]:
    """(the cluster's chunk size a plan sets, per-namespace ones), in MB."""
    cluster: int | None = None
    per_ns: dict[str, int] = {}
    for op in ops:
        change = op.setting_change()
        if change is None or change[1] != "chunkSizeMB":
            continue
        ns, _, value = change
        if ns is None:
            cluster = int(value)
        else:
            per_ns[ns] = int(value)
    return cluster, per_ns


def chunk_size_notes(colls: Iterable[NamespaceChunks], planned: bool) -> list[str]:
    """How the forecast used the chunk size: said when the plan changes it or when some
    chunk to move is larger than it (then cut into several migrations)."""
    caps = sorted(
        {
            c.max_chunk_bytes
            for c in colls
            if c.max_chunk_bytes and (planned or any(s > c.max_chunk_bytes for s in c.sizes))
        }
    )
    if not caps:
        return []
    shown = ", ".join(f"{c // MB} MB" for c in caps)
    source = "the chunk size after this plan" if planned else "the chunk size"
    return [
        f"each balancer migration moves at most {source} ({shown}): a larger chunk "
        "takes one migration per chunk size (moveRange without max, 6.0.3+)"
    ]


def throttle_notes(actual: ClusterState, ops: Iterable[Op]) -> list[str]:
    """What the forecast assumes of secondaryThrottle, when it is stored or planned."""
    notes: list[str] = []
    throttle = row("cluster", "secondaryThrottle")
    live: Any = throttle.live_value(actual.settings.get(throttle.doc))
    wanted = next(
        (c[2] for op in ops if (c := op.setting_change()) and c[:2] == (None, throttle.key)),
        live,
    )
    if wanted is not None or live is not None:
        change = "" if wanted == live else f" (this plan changes it from {throttle.shown(live)})"
        notes.append(
            f"secondaryThrottle {throttle.shown(wanted)}{change}: each copied document waits "
            "for replication as set; the copy rate comes from config.changelog, so it "
            "reflects the throttle of past migrations (pass --copy-rate to forecast another)"
        )
    return notes
