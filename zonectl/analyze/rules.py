"""The analysis: for each collection, its figures (with source and confidence) and the
findings of every rule; cluster-wide findings (draining zones). Pure."""

from __future__ import annotations

from zonectl.analyze import (
    rules_capacity,
    rules_drain,
    rules_hotspots,
    rules_key,
    rules_key_choice,
    rules_workload,
    rules_zone,
)
from zonectl.analyze.inputs import AnalyzeInput, CollectionInput
from zonectl.analyze.report import (
    CollectionReport,
    Confidence,
    Figure,
    Finding,
    Report,
    Severity,
    Source,
)
from zonectl.model.desired import CollectionPolicy
from zonectl.model.keys import format_value, is_max_key

MIB = 1024 * 1024
META: Source = "config metadata"
ASK: Source = "analyzeShardKey"


def build_report(data: AnalyzeInput) -> Report:
    holders = rules_zone.zone_shards(data.state)
    reports = []
    for ns in sorted(data.collections):
        coll = data.collections[ns]
        policy = data.desired.collections.get(ns) if data.desired else None
        reports.append(_collection(data, coll, policy, holders))
    cluster_wide = [*rules_zone.draining_rules(data.state), *rules_drain.drain_rules(data.state)]
    return Report(tuple(reports), tuple(cluster_wide))


def _collection(
    data: AnalyzeInput,
    coll: CollectionInput,
    policy: CollectionPolicy | None,
    holders: dict[str, list[str]],
) -> CollectionReport:
    ns = coll.namespace
    live = data.state.ranges_of(ns)
    key = coll.key or (policy.key if policy else None)
    figures: list[Figure] = []
    findings: list[Finding] = list(_kind_findings(coll, data))
    findings += rules_zone.unsharded_rule(coll, policy, live)
    if coll.kind == "sharded":
        figures += _chunk_figures(coll)
        figures += _metric_figures(coll)
        findings += rules_key.firehose_rules(coll, policy)
        hot_top = any(all(is_max_key(v) for v in r.max.values()) for r in live)
        findings += rules_key.monotonic_rule(coll, policy, hot_top)
        findings += rules_key.frequency_rule(coll, zoned=bool(live))
        findings += rules_zone.jumbo_rules(coll, live, holders)
        balance, by_zone = rules_zone.balance_rule(coll, live, holders)
        findings += balance
        figures += _zone_figures(coll, by_zone)
        fh_figures, fh_findings = _firehose(data, coll, policy, holders)
        figures += fh_figures
        findings += fh_findings
        findings += _hot_zone(data, ns, policy, holders)
        spread_figures, spread_findings = _spread(data, coll)
        figures += spread_figures
        if any(f.rule == "ZA132" for f in spread_findings):
            # GridFS: ZA132 names the key to move to; ZA103's firehose advice does not fit.
            findings = [f for f in findings if f.rule != "ZA103"]
        findings += spread_findings
    figures += rules_workload.workload_figures(coll)
    findings += rules_workload.workload_rules(coll, policy)
    candidates, best = rules_workload.candidate_reports(coll)
    return CollectionReport(
        namespace=ns,
        kind=coll.kind,
        key=format_value(dict(key)) if key else "-",
        shape=rules_key.key_shape(key),
        figures=tuple(figures),
        findings=tuple(findings),
        candidates=candidates,
        best_key=best,
    )


def _hot_zone(
    data: AnalyzeInput,
    ns: str,
    policy: CollectionPolicy | None,
    holders: dict[str, list[str]],
) -> list[Finding]:
    """ZA115: the window's hot zone cannot hold `keep` periods of its ingest."""
    if policy is None or policy.firehose is None or data.desired is None:
        return []
    fh = policy.firehose
    hot = tuple(holders.get(fh.hot, []))
    found = rules_capacity.hot_zone_finding(ns, fh, hot, data.hot_zones.get(ns), data.desired)
    return [found] if found is not None else []


def _spread(data: AnalyzeInput, coll: CollectionInput) -> tuple[list[Figure], list[Finding]]:
    """Where inserts land (ZA131), a GridFS chunks key (ZA132), too few key values for the
    shards (ZA133)."""
    shards = rules_hotspots.eligible_shards(data.state, coll)
    points = rules_hotspots.insert_points(coll, data.state)
    figures = [rules_hotspots.insert_figure(points)] if points is not None else []
    findings = rules_hotspots.hotspot_rule(coll, points, shards)
    findings += rules_key_choice.gridfs_rule(coll)
    holding = rules_key_choice.holding_shards(coll, shards)
    findings += rules_key_choice.cardinality_rule(coll, shards, holding)
    return figures, findings


def _kind_findings(coll: CollectionInput, data: AnalyzeInput) -> list[Finding]:
    ns = coll.namespace
    if coll.kind == "view":
        return [
            Finding(
                "ZA002",
                "namespace-is-view",
                Severity.ERROR,
                ns,
                f"{ns} is a view: it holds no documents and cannot be sharded or zoned",
                "Name the view's source collection in the policy instead.",
                "config metadata",
            )
        ]
    if coll.kind == "timeseries":
        return [
            Finding(
                "ZA003",
                "namespace-is-timeseries",
                Severity.INFO,
                ns,
                f"{ns} is a time-series collection: analyzeShardKey does not support it, and "
                f"its chunks live in {ns.split('.', 1)[0]}.system.buckets."
                f"{ns.split('.', 1)[1]} keyed on the bucket's meta and time fields",
                "Write zone ranges against the buckets collection's key (meta, control.min."
                "<time>), not the view's.",
                "config metadata",
            )
        ]
    if coll.kind == "missing":
        return [
            Finding(
                "ZA001",
                "namespace-missing",
                Severity.WARNING,
                ns,
                f"{ns} does not exist on the cluster",
                "Check the namespace's spelling in the policy, or create and shard the "
                "collection before relying on its zones.",
                "config metadata",
            )
        ]
    if coll.kind == "sharded" and coll.metrics is None and coll.metrics_note:
        return [
            Finding(
                "ZA004",
                "key-metrics-unavailable",
                Severity.INFO,
                ns,
                f"no analyzeShardKey figures: {coll.metrics_note}; cardinality, frequency and "
                "monotonicity rules were skipped",
                "Run analyze as a user with the analyzeShardKey action (clusterManager) on "
                "MongoDB 7.0 or newer to enable them.",
                "analyzeShardKey",
            )
        ]
    return []


def _chunk_figures(coll: CollectionInput) -> list[Figure]:
    jumbo = sum(c.jumbo for c in coll.chunks)
    shards = sorted({c.shard for c in coll.chunks})
    figures = [
        Figure(
            "chunks", f"{len(coll.chunks)} on {len(shards)} shard(s)", "config metadata", "high"
        ),
        Figure("jumbo chunks", str(jumbo), "config metadata", "high"),
        Figure("max chunk size", f"{coll.chunk_size // MIB} MiB", "config metadata", "high"),
    ]
    if coll.distribution:
        total = sum(b for _, b in coll.distribution.values()) or 1
        shares = ", ".join(
            f"{s} {100 * b / total:.0f}%" for s, (_, b) in sorted(coll.distribution.items())
        )
        figures.append(Figure("data by shard", shares, "$shardedDataDistribution", "high"))
    if coll.changes:
        shown = ", ".join(f"{k} {v}" for k, v in sorted(coll.changes.items()))
        figures.append(Figure("changes in the last 24h", shown, "changelog", "high"))
    return figures


def _metric_figures(coll: CollectionInput) -> list[Figure]:
    m = coll.metrics
    if m is None:
        return [Figure("monotonicity", "unknown (no analyzeShardKey)", "analyzeShardKey", "low")]
    confidence: Confidence = "high" if m.sampled >= m.num_docs else "medium"
    cardinality = "unique" if m.unique else f"{m.distinct:,} distinct in {m.sampled:,} sampled"
    coefficient = "" if m.coefficient is None else f" (correlation {m.coefficient:.2f})"
    return [
        Figure(
            "documents", f"{m.num_docs:,}, ~{m.avg_doc_bytes} B each", "analyzeShardKey", "high"
        ),
        Figure("cardinality", cardinality, "analyzeShardKey", confidence),
        Figure(
            "most common value",
            f"{m.top_frequency:,} docs (~{m.top_bytes / MIB:,.1f} MiB in the collection)",
            "analyzeShardKey",
            confidence,
        ),
        Figure("monotonicity", m.monotonicity + coefficient, "analyzeShardKey", confidence),
    ]


def _zone_figures(coll: CollectionInput, by_zone: dict[str, dict[str, int]]) -> list[Figure]:
    source: Source = "$shardedDataDistribution" if coll.distribution else "config metadata"
    figures = []
    for zone, sizes in sorted(by_zone.items()):
        total = sum(sizes.values()) or 1
        shares = ", ".join(f"{s} {100 * v / total:.0f}%" for s, v in sorted(sizes.items()))
        figures.append(Figure(f"zone {zone} balance", shares, source, "medium"))
    return figures


def _firehose(
    data: AnalyzeInput,
    coll: CollectionInput,
    policy: CollectionPolicy | None,
    holders: dict[str, list[str]],
) -> tuple[list[Figure], list[Finding]]:
    """Hot shard's share of inserts (all of them on an ascending key: they go to the top
    chunk) and the backlog of chunks below the boundary still on hot shards (ZA111)."""
    if policy is None or policy.firehose is None or not coll.chunks or not coll.key:
        return [], []
    fh = policy.firehose
    hot = holders.get(fh.hot, [])
    top = coll.chunks[-1].shard
    monotonic = coll.metrics is not None and coll.metrics.monotonicity == "monotonic"
    share = "100%" if top in hot else "0%"
    figures = [
        Figure(
            "hot shard share of inserts",
            f"{share} (top chunk on {top}; hot zone {fh.hot}: {', '.join(hot) or 'no shard'})",
            "analyzeShardKey" if monotonic else "config metadata",
            "high" if monotonic else "low",
        )
    ]
    boundary = data.boundaries.get(coll.namespace)
    if boundary is None or fh.field not in coll.key:
        return figures, []
    below, on_hot = rules_zone.backlog(coll, boundary, fh.field, hot)
    figures.append(
        Figure(
            "hot backlog",
            f"{on_hot} of {below} chunks below the boundary {format_value(boundary)} are "
            "still on hot shards",
            "config metadata",
            "high",
        )
    )
    findings = []
    if fh.cold is not None and on_hot > 1:
        findings.append(
            Finding(
                "ZA111",
                "firehose-backlog",
                Severity.WARNING,
                coll.namespace,
                f"{on_hot} chunks older than the window boundary {format_value(boundary)} "
                f"still sit on hot shard(s) {', '.join(hot)}",
                "Run 'zonectl rotate' (or apply with --migrate) and check the balancer window "
                "leaves time for the daily move to cold.",
                "config metadata",
            )
        )
    return figures, findings
