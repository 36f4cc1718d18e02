"""What zonectl exposes to Prometheus: the metric names, their help, and the families built
from a status report, the policy's drift and windows, and the run that wrote them. Pure.

Every name carries its unit (`_seconds`, `_bytes`, `_timestamp_seconds`) and every series
the labels `cluster` and, where it is about one, `namespace` or `command`, or `shard` for a
shard's disk or a shard being drained (one series per shard): no chunk, shard key or host
label, so the series count grows with namespaces and shards, not with data."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from zonectl.model.balancer_window import in_active_window as in_active_window
from zonectl.plan.settings_view import SettingLine
from zonectl.redaction import uri_problem
from zonectl.render.exposition import Family, Labels, Sample, make_labels
from zonectl.render.metrics_explain import HELP as EXPLAIN_HELP
from zonectl.render.metrics_explain import put_explain
from zonectl.render.status import StatusReport


@dataclass(frozen=True)
class WindowMetrics:
    """One firehose window (named by its namespace) at `now`."""

    namespace: str
    next_due: dt.datetime  # the schedule's next tick after now: the boundary moves then
    pending_ops: int  # range ops rotate would send now (0: the window is where it belongs)
    last_rotation: dt.datetime | None  # end of the last successful run that moved it


@dataclass(frozen=True)
class RunMetrics:
    """The command that wrote a metrics file, for `--metrics-file`."""

    command: str  # rotate | apply | status
    at: dt.datetime
    exit_code: int
    last_success: dt.datetime | None  # this run's `at` when it succeeded, else carried over


@dataclass(frozen=True)
class ClusterMetrics:
    cluster: str
    now: dt.datetime
    report: StatusReport | None = None  # None: the cluster could not be read
    balancer_in_window: bool | None = None
    migrations: Mapping[str, int] | None = None  # None: unknown (no privilege to read them)
    drift: Mapping[str | None, int] | None = None  # ns (None: cluster-wide) -> ops; no policy
    plan_error: bool | None = None  # the policy could not be planned (None: no policy)
    windows: tuple[WindowMetrics, ...] = ()
    lease_acquired: dt.datetime | None = None
    run: RunMetrics | None = None
    # When the cluster was read, by the run's clock (rotate --at: `now` is --at's instant,
    # this is not); None: at `now`. `read=False`: not read at all (a run that failed before
    # it could), so no read timestamp is written for ZonectlMetricsStale to age.
    read_at: dt.datetime | None = None
    read: bool = True
    # Forecast time to compliance (docs/migration.md): namespace -> the instant the balancer,
    # left alone, is forecast to have moved its out-of-zone data (`status` fills it).
    forecast: Mapping[str, dt.datetime] = field(default_factory=dict)
    # The balancer settings the policy names, with whether each drifts (plan/settings_view).
    settings: tuple[SettingLine, ...] = ()


# name -> help; the order here is the order in the output.
HELP: dict[str, str] = {
    "zonectl_read_timestamp_seconds": "When zonectl read this cluster's state.",
    "zonectl_namespace_chunks": "Chunks of the sharded namespace (config.chunks).",
    "zonectl_namespace_out_of_zone_chunks": (
        "Chunks lying wholly in a zone range on a shard outside that zone."
    ),
    "zonectl_namespace_out_of_zone_bytes": (
        "Estimated bytes of the out-of-zone chunks: per shard, its owned bytes of the "
        "namespace / its chunks x its out-of-zone chunks ($shardedDataDistribution, 6.0.3+)."
    ),
    "zonectl_namespace_straddling_chunks": "Chunks a zone range boundary falls inside.",
    "zonectl_namespace_jumbo_chunks": "Chunks flagged jumbo.",
    "zonectl_namespace_balancing_enabled": "1 unless balancing is off for the namespace.",
    "zonectl_namespace_migrations_in_flight": (
        "Chunk migrations of the namespace in flight (config.migrations before 7.0, "
        "$currentOp from 7.0)."
    ),
    **EXPLAIN_HELP,  # zonectl_collection_balancer_state / _reason (metrics_explain.py)
    "zonectl_pending_ops": (
        "Ops `zonectl plan` would send for this policy (drift); without a namespace label: "
        "zone memberships and balancer settings. Only when a policy is given."
    ),
    "zonectl_policy_plan_error": "1 when the policy cannot be planned against the cluster.",
    "zonectl_balancer_setting_drift": (
        "1 when a balancer setting the policy names differs from what the cluster stores "
        "(docs/balancer-settings.md); 0 when it matches. Only when a policy is given."
    ),
    "zonectl_window_pending_ops": "Range ops `zonectl rotate` would send for the window now.",
    "zonectl_window_next_due_timestamp_seconds": "Next tick of the window's schedule.",
    "zonectl_window_last_rotation_timestamp_seconds": (
        "End of the last successful apply or rotate that changed the window's ranges."
    ),
    "zonectl_namespace_compliance_forecast_timestamp_seconds": (
        "When the namespace is forecast to comply with its zones."
    ),
    "zonectl_resharding_in_progress": "1 while a reshardCollection of the namespace runs.",
    "zonectl_resharding_copied_ratio": (
        "Share of the resharding's bytes copied so far ($currentOp bytesCopied/approxBytesToCopy)."
    ),
    "zonectl_resharding_remaining_seconds": (
        "The server's own estimate of the resharding's remaining time ($currentOp)."
    ),
    "zonectl_shard_draining_remaining_chunks": "Chunks left on a shard being drained.",
    "zonectl_shard_draining_remaining_bytes": (
        "Bytes of its sharded collections left on a shard being drained ($shardedDataDistribution "
        "ownedSizeBytes; else 8.3's estimatedRemainingBytes)."
    ),
    "zonectl_shard_draining_blocked": (
        "1 when the drain of the shard does not progress for this reason (balancer-off, "
        "outside-window, jumbo, no-recipient), else 0."
    ),
    "zonectl_shard_disk_used_ratio": (
        "Share of the shard's volume in use now (dbStats fsUsedSize/fsTotalSize, docs/capacity.md)."
    ),
    "zonectl_shard_disk_projected_ratio": (
        "Share of the shard's volume in use once what the cluster still has to move has "
        "arrived (chunks outside their zone, drains), stored compressed less reusable space."
    ),
    "zonectl_shard_disk_limit_ratio": (
        "The shard's disk limit as a share of its volume (the policy's disk.limit, else 0.85)."
    ),
    "zonectl_balancer_enabled": "1 when the balancer mode is full and it is not stopped.",
    "zonectl_balancer_in_window": (
        "1 when now is inside the balancer activeWindow (or there is none); on 8.3+ "
        "inside one of today's activeWindowDOW entries, when any is set."
    ),
    "zonectl_balancer_in_round": "1 while a balancer round runs (balancerStatus).",
    "zonectl_lease_held": "1 while zonectl's apply lease is held.",
    "zonectl_lease_expired": "1 when the lease is held but past its expiry (a dead holder).",
    "zonectl_lease_age_seconds": "How long the current holder has held the lease.",
    "zonectl_unfinished_journals": "Applies or rotations that never closed their journal.",
    "zonectl_unrestored_pauses": "Balancing pauses an unfinished apply has not restored.",
    "zonectl_run_last_timestamp_seconds": "When the command last ran with --metrics-file.",
    "zonectl_run_last_success_timestamp_seconds": "When the command last succeeded.",
    "zonectl_run_exit_code": "Exit code of the command's last run (0 ok, see --help).",
}


_Put = Callable[[str, float, Labels], None]


def make_families(m: ClusterMetrics) -> list[Family]:
    """The families with their samples, in HELP's order; a family with nothing known has
    no samples (and is left out of the text)."""
    out: dict[str, list[Sample]] = {name: [] for name in HELP}
    cl = m.cluster

    def put(name: str, value: float, labels: Labels) -> None:
        out[name].append(Sample(labels, value))

    if m.read:
        put("zonectl_read_timestamp_seconds", _ts(m.read_at or m.now), make_labels(cluster=cl))
    if m.report is not None:
        _put_report(put, m, m.report)
    if m.drift is not None:
        for ns, count in m.drift.items():
            labels = make_labels(cluster=cl, namespace=ns) if ns else make_labels(cluster=cl)
            put("zonectl_pending_ops", count, labels)
    for x in m.settings:
        if x.wanted is None:
            continue
        where = {"namespace": x.namespace} if x.namespace else {}
        put("zonectl_balancer_setting_drift", int(x.drifts),
            make_labels(cluster=cl, **where, setting=x.key))  # fmt: skip
    if m.plan_error is not None:
        put("zonectl_policy_plan_error", int(m.plan_error), make_labels(cluster=cl))
    for w in m.windows:
        labels = make_labels(cluster=cl, namespace=w.namespace)
        put("zonectl_window_pending_ops", w.pending_ops, labels)
        put("zonectl_window_next_due_timestamp_seconds", _ts(w.next_due), labels)
        if w.last_rotation is not None:
            put("zonectl_window_last_rotation_timestamp_seconds", _ts(w.last_rotation), labels)
    for ns, when in m.forecast.items():
        put(
            "zonectl_namespace_compliance_forecast_timestamp_seconds",
            _ts(when),
            make_labels(cluster=cl, namespace=ns),
        )
    if m.run is not None:
        labels = make_labels(cluster=cl, command=m.run.command)
        put("zonectl_run_last_timestamp_seconds", _ts(m.run.at), labels)
        put("zonectl_run_exit_code", m.run.exit_code, labels)
        if m.run.last_success is not None:
            put("zonectl_run_last_success_timestamp_seconds", _ts(m.run.last_success), labels)
    return [Family(name, HELP[name], tuple(samples)) for name, samples in out.items()]


def _put_report(put: _Put, m: ClusterMetrics, r: StatusReport) -> None:
    cl = make_labels(cluster=m.cluster)
    for c in r.collections:
        if not c.sharded:
            continue
        labels = make_labels(cluster=m.cluster, namespace=c.namespace)
        put("zonectl_namespace_chunks", c.chunks, labels)
        put("zonectl_namespace_out_of_zone_chunks", c.outside_zone, labels)
        if c.outside_bytes is not None:
            put("zonectl_namespace_out_of_zone_bytes", c.outside_bytes, labels)
        put("zonectl_namespace_straddling_chunks", c.straddling, labels)
        put("zonectl_namespace_jumbo_chunks", c.jumbo, labels)
        put("zonectl_namespace_balancing_enabled", int(bool(c.balancing)), labels)
        if m.migrations is not None:
            moving = m.migrations.get(c.namespace, 0)
            put("zonectl_namespace_migrations_in_flight", moving, labels)
    put_explain(put, m.cluster, r)
    for rs in r.reshardings:
        labels = make_labels(cluster=m.cluster, namespace=rs.namespace)
        put("zonectl_resharding_in_progress", 1, labels)
        put("zonectl_resharding_copied_ratio", rs.share, labels)
        if rs.remaining_s is not None:
            put("zonectl_resharding_remaining_seconds", rs.remaining_s, labels)
    _put_drains(put, m.cluster, r)
    _put_disk(put, m.cluster, r)
    put("zonectl_balancer_enabled", int(r.balancer.mode == "full"), cl)
    if m.balancer_in_window is not None:
        put("zonectl_balancer_in_window", int(m.balancer_in_window), cl)
    put("zonectl_balancer_in_round", int(r.balancer.in_round), cl)
    if not r.own_state_read:
        return  # the user may not read zonectl's database: unknown, which is not 0
    put("zonectl_lease_held", int(r.lease is not None), cl)
    if r.lease is not None:
        put("zonectl_lease_expired", int(r.lease.expired), cl)
        if m.lease_acquired is not None:
            age = max(0.0, (m.now - m.lease_acquired).total_seconds())
            put("zonectl_lease_age_seconds", age, cl)
    put("zonectl_unfinished_journals", len(r.journals), cl)
    put("zonectl_unrestored_pauses", sum(len(j.unrestored) for j in r.journals), cl)


# The reasons a drain in flight stalls (model/drain_blockers.py): each draining shard has a
# series for every one, so an alert sees a 1 appear rather than a series.
DRAIN_REASONS = ("balancer-off", "outside-window", "jumbo", "no-recipient")


def _put_drains(put: _Put, cluster: str, r: StatusReport) -> None:
    """Per draining shard (a handful at most: the `shard` label stays bounded)."""
    for d in r.drains:
        shard = d.drain.shard
        labels = make_labels(cluster=cluster, shard=shard)
        put("zonectl_shard_draining_remaining_chunks", d.drain.chunks, labels)
        left = d.drain.bytes if d.drain.bytes is not None else d.drain.estimated_remaining_bytes
        if left is not None:
            put("zonectl_shard_draining_remaining_bytes", left, labels)
        codes = {b.code for b in d.blockers}
        for reason in DRAIN_REASONS:
            put("zonectl_shard_draining_blocked", int(reason in codes),
                make_labels(cluster=cluster, shard=shard, reason=reason))  # fmt: skip


def _put_disk(put: _Put, cluster: str, r: StatusReport) -> None:
    """Per shard whose volume was read; none when dbStats was refused (unknown, not 0)."""
    for s in r.disk.shards if r.disk is not None else ():
        labels = make_labels(cluster=cluster, shard=s.shard)
        put("zonectl_shard_disk_used_ratio", s.used_bytes / s.total_bytes, labels)
        put("zonectl_shard_disk_projected_ratio", s.projected_bytes / s.total_bytes, labels)
        put("zonectl_shard_disk_limit_ratio", s.limit_ratio, labels)


def _ts(when: dt.datetime) -> float:
    aware = when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)
    return aware.timestamp()


def cluster_label(uri: str) -> str:
    """A cluster's label from its URI: the host list, never credentials or options
    (`mongodb://u:p@a:27017,b/db?tls=true` -> `a:27017,b`; `sandbox:...` -> `sandbox`)."""
    if uri.startswith("sandbox:"):
        return "sandbox"
    if uri_problem(uri):  # a mangled URI's parts may be its password: no label from it
        return "unknown"
    rest = uri.split("://", 1)[-1]
    hosts = rest.split("/", 1)[0].split("?", 1)[0]
    return hosts.rpartition("@")[2] or "unknown"


def metric_names(families: Sequence[Family]) -> list[str]:
    return [f.name for f in families if f.samples]
