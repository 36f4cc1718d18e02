"""`zonectl explain` on an open connection: the facts read in a fixed number of commands
(zonectl/mongo/explain_read.py), the balancer's window at the cluster's now, the rules
(zonectl/explain, pure), and the forecast's ETA for what moves out of zone. Prints nothing;
status, metrics, the PR bot and plan can call `explain_cluster` with their connection."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.explain.explain import explain_all
from zonectl.explain.facts import BalancerFacts, ClusterFacts, CollectionFacts, ShardFacts
from zonectl.explain.reasons import MOVING, WAITING, Explanation, Explanations
from zonectl.forecast.inputs import Range
from zonectl.forecast.units import DEFAULT_COPY_RATE
from zonectl.model.cluster import ClusterState, LiveBalancer
from zonectl.mongo.chunk_sizes import ChunkSizes
from zonectl.mongo.connect import Connection
from zonectl.mongo.explain_read import by_data_size, read_explain
from zonectl.session.forecast import ForecastFlags, make_window, read_forecast

Lookup = Callable[[Collection[str]], Collection[str]]
# (scope, lookup) -> the namespaces `--namespace` selects; UsageError naming an unknown one.
NamespaceChooser = Callable[[Collection[str], Lookup], list[str]]
UTC_FLAGS = ForecastFlags(float(DEFAULT_COPY_RATE), None, dt.UTC, "UTC")


@dataclass(frozen=True)
class ExplainRequest:
    flags: ForecastFlags = UTC_FLAGS  # the window's time zone (--balancer-tz), copy rate
    choose: NamespaceChooser | None = None  # --namespace was given
    eta: bool = True  # run the forecast for the collections that move out of zone


def explain_cluster(conn: Connection, request: ExplainRequest | None = None) -> Explanations:
    """Every sharded collection's state and reasons (or those `request.choose` selects), at
    the cluster's now."""
    request = request or ExplainRequest()
    now = conn.wall()
    read = read_explain(conn, now)
    colls = list(read.collections)
    if request.choose is not None:
        # Only sharded collections have anything to explain: an unsharded or unknown name
        # is a usage error (exit 2) naming it, and nothing more is sent to find it.
        chosen = request.choose([c.ns for c in colls], lambda dbs: frozenset())
        wanted = set(chosen)
        colls = [c for c in colls if c.ns in wanted]
    state = read.docs.cluster_state(conn)
    cluster = cluster_facts(state, request.flags, now)
    found = explain_all(colls, cluster)
    if request.eta:
        found = _with_eta(conn, found, colls, read.docs.tags, cluster, state.balancer, request, now)
    return Explanations(now, tuple(found), read.notes)


def cluster_facts(state: ClusterState, flags: ForecastFlags, now: dt.datetime) -> ClusterFacts:
    """The shards, the release's balancing rule and the balancer's mode and window at `now`
    (read in `flags.tz`, the config server's zone): explain's and status's one way."""
    return ClusterFacts(
        shards=tuple(ShardFacts(s.id, frozenset(s.zones), s.draining) for s in state.shards),
        by_data_size=by_data_size(state.version, state.fcv),
        chunk_threshold=1 if _major(state.version) >= 5 else 2,
        balancer=_balancer(state.balancer, flags, now),
        now=now,
    )


def _major(version: str) -> int:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 7


def _balancer(live: LiveBalancer, flags: ForecastFlags, now: dt.datetime) -> BalancerFacts:
    """Mode and window at `now`, the window read in the config server's time zone."""
    window = make_window(live.active_window, flags, live.day_windows)
    if window is None:
        return BalancerFacts(enabled=live.enabled, mode=_mode(live))
    open_now = window.contains(now)
    return BalancerFacts(
        enabled=live.enabled,
        mode=_mode(live),
        window_open=open_now,
        window=f"{window.describe()} ({flags.tz_name})",
        opens=None if open_now else window.next_open(now),
    )


def _mode(live: LiveBalancer) -> str:
    return "off (stopped: true)" if live.stopped and live.mode == "full" else live.mode


def _with_eta(
    conn: Connection,
    found: Sequence[Explanation],
    colls: Sequence[CollectionFacts],
    tags: Sequence[Mapping[str, Any]],
    cluster: ClusterFacts,
    live: LiveBalancer,
    request: ExplainRequest,
    now: dt.datetime,
) -> list[Explanation]:
    """The forecast's balancer route (zonectl/forecast) for the collections that move or
    wait for the window with chunks out of zone; it models zone moves only, so a collection
    moving for balance alone or a drain gets no ETA."""
    late = [
        e.ns
        for e in found
        if e.state in (MOVING, WAITING) and any(r.code == "zone-violation" for r in e.reasons)
    ]
    if not late:
        return list(found)
    wanted = set(late)
    ranges: dict[str, list[Range]] = {ns: [] for ns in late}
    for t in tags:
        ns = str(t["ns"])
        if ns in wanted:
            ranges[ns].append((dict(t["min"]), dict(t["max"]), str(t["tag"])))
    shard_zones = {s.id: s.zones for s in cluster.shards if not s.draining}
    by_ns = {c.ns: c for c in colls}
    forecast = read_forecast(
        ChunkSizes(conn),
        ranges,
        shard_zones,
        request.flags,
        now=now,
        window=live.active_window,
        day_windows=live.day_windows,
        balancer_enabled=live.enabled,
        shards=[s.id for s in cluster.shards],
        no_balance=frozenset(ns for ns in late if by_ns[ns].no_balance),
        defragmenting=frozenset(ns for ns in late if by_ns[ns].defragmenting),
    )
    seconds = {n.ns: n.balancer_s for n in forecast.namespaces}
    out = []
    for e in found:
        s = seconds.get(e.ns)
        if e.ns in wanted and s is not None:
            e = dataclasses.replace(e, eta=now + dt.timedelta(seconds=s))
        out.append(e)
    return out
