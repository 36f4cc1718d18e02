"""What the balancer settings change in a forecast, and the lines that say how: the chunk
size caps each balancer migration (6.0.3+: moveRange without `max` cuts about one chunk
size off a larger chunk, reference balancer-settings §6.1); secondaryThrottle and
waitForDelete slow each migration by a wait only the cluster's migration history shows."""

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


# What each per-migration setting costs, and why the learned cost already has it.
_WAITS = {
    "secondaryThrottle": "each copied document waits for replication as set",
    # migration_source_manager.cpp waits for the range deletion before
    # `_moveTimingHelper.done(6)`: the donor's step timings include it.
    "waitForDelete": "each migration waits for the donor to delete the moved range before "
    "the next one starts",
}


def throttle_notes(actual: ClusterState, ops: Iterable[Op]) -> list[str]:
    """What the forecast assumes of secondaryThrottle and waitForDelete, when stored or
    planned other than MongoDB's default."""
    notes: list[str] = []
    for key, wait in _WAITS.items():
        r = row("cluster", key)
        live: Any = r.live_value(actual.settings.get(r.doc))
        wanted = next(
            (c[2] for op in ops if (c := op.setting_change()) and c[:2] == (None, r.key)), live
        )
        if wanted in (None, r.absent) and live in (None, r.absent):
            continue
        change = "" if wanted == live else f" (this plan changes it from {r.shown(live)})"
        notes.append(
            f"{key} {r.shown(wanted)}{change}: {wait}; the cost per migration comes from "
            "config.changelog (the donor's step timings), so it reflects the setting of past "
            "migrations (pass --copy-rate to forecast another)"
        )
    return notes
