"""`zonectl analyze` on an open connection: the policy's patterns expanded against the live
namespaces, the namespaces `-n` selects, everything the rules need read
(zonectl/mongo/analyze_read.py), and the report built (zonectl/analyze/). Prints nothing."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.analyze import build_report
from zonectl.analyze.report import Report
from zonectl.model.desired import DesiredState
from zonectl.mongo.analyze_read import read_analyze_input
from zonectl.mongo.connect import Connection
from zonectl.mongo.namespaces_read import read_namespaces
from zonectl.mongo.resolve import read_resolved
from zonectl.session.hot_zones import read_hot_zones
from zonectl.session.status import NamespaceChooser


@dataclass(frozen=True)
class AnalyzeRequest:
    desired: DesiredState | None = None
    choose: NamespaceChooser | None = None  # --namespace was given
    candidates: Sequence[Mapping[str, Any]] = ()  # --candidate keys


def analyze_cluster(conn: Connection, request: AnalyzeRequest, notes: list[str]) -> Report:
    """The report at the cluster's instant (this host's clock, or a sandbox's own). The
    pattern expansion's notes are appended to `notes` as they are found, so the caller can
    show them even when a later step (an unknown --namespace) fails."""
    now = conn.local()
    desired = request.desired
    if desired is not None and desired.patterns:
        # The policy's `collections:` patterns name live namespaces, as in plan.
        resolved = read_resolved(conn, desired, now)
        desired = resolved.desired
        notes.extend(resolved.notes)
    namespaces = None
    if request.choose is not None:  # a typo is exit 2, not an empty report
        scope = {*read_namespaces(conn), *(desired.collections if desired else ())}
        namespaces = request.choose(scope, lambda dbs: read_namespaces(conn, dbs))
    boundaries = _boundaries(desired, now) if desired is not None else {}
    data = read_analyze_input(
        conn, desired, namespaces or None, now, boundaries, candidates=request.candidates
    )
    if desired is not None:  # ZA115: each firehose window against its hot shards' disks
        zones = read_hot_zones(conn, data.state, desired, now, set(data.collections))
        data = dataclasses.replace(data, hot_zones=zones)
    return build_report(data)


def _boundaries(desired: DesiredState, at: dt.datetime) -> dict[str, Any]:
    """Each firehose namespace's boundary value at `at` (as
    zonectl.session.boundaries.window_boundaries)."""
    from zonectl.firehose import boundary_value

    return {
        ns: boundary_value(cp.firehose, at)
        for ns, cp in sorted(desired.collections.items())
        if cp.firehose is not None
    }
