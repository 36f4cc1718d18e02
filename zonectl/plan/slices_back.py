"""Which slices of a collection-per-period window a rotate plan would bring back to the hot
zone: the slices' counterpart of WindowMove.backwards (plan/restrict.py). Pure."""

from __future__ import annotations

import datetime as dt

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.plan.restrict import WindowPlan


def slices_back(window: WindowPlan, desired: DesiredState, actual: ClusterState) -> list[str]:
    """Slices of a collection-per-period window the plan would bring back from its cold
    zone to its hot one although they are older than every slice already hot: a slice only
    ages from hot to cold, so the window moved backwards (a clock that jumped back, or a
    run at an earlier --at). A slice created late, or a first placement, is not flagged."""
    out = []
    origins = window.plan.origins
    for op in window.plan.ops:
        ns = op.namespace or ""
        text = origins.get(ns, "")
        template = desired.patterns.get(text)
        sl = template.slices if template is not None else None
        if sl is None or not sl.cold or op.placed_in is None:
            continue
        if op.placed_in != sl.hot or not _sits_in(actual, ns, sl.cold, sl.hot):
            continue
        hot = [
            _slice_day(text, n)
            for n, t in origins.items()
            if t == text and n != ns and _sits_in(actual, n, sl.hot, "")
        ]
        if hot and _slice_day(text, ns) < min(hot):
            out.append(f"{ns}: slice in zone {sl.cold} would return to zone {sl.hot}")
    return out


def _sits_in(actual: ClusterState, ns: str, zone: str, other: str) -> bool:
    """`ns` lies in `zone` (and not in `other`): its pinned range, else its shard's zones."""
    ranges = actual.ranges_of(ns)
    if ranges:
        return any(r.zone == zone for r in ranges)
    live = actual.unsharded.get(ns)
    shard = actual.shard(live.shard) if live is not None else None
    return shard is not None and zone in shard.zones and other not in shard.zones


def _slice_day(template: str, ns: str) -> dt.datetime:
    return dt.datetime.strptime(ns.partition(".")[2], template.partition(".")[2])
