"""The workload against the key: figures from analyzeShardKey's read/write distribution
(computed by the server from the sampled queries), the rules on them (ZA121-ZA124), and the
`--candidate` comparison ending with the policy `key:` line of the best key.

Thresholds are zonectl's (MongoDB's guidance gives no numbers): most reads scatter-gather
is >= 50 %; writes changing the key >= 10 %; a few ranges hot when the busiest tenth of the
key ranges takes >= 50 % of the requests that target ranges (evenly spread: 10 %). No rule
fires on fewer than MIN_SAMPLES samples.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from zonectl.analyze.inputs import Candidate, CollectionInput, Workload
from zonectl.analyze.report import CandidateReport, Confidence, Figure, Finding, Severity
from zonectl.model.desired import CollectionPolicy

MIN_SAMPLES = 20
SCATTER_SHARE = 50.0
KEY_UPDATE_SHARE = 10.0
HOT_SHARE = 0.5
SUGGESTED_RATE = 5
_KINDS = (("single-shard", "SingleShard"), ("multi-shard", "MultiShard"),
          ("scatter-gather", "ScatterGather"))  # fmt: skip


def confidence(samples: int) -> Confidence:
    return "high" if samples >= 1000 else "medium" if samples >= 100 else "low"


def _pct(doc: Mapping[str, Any], name: str) -> float:
    return float(doc.get(name, 0.0) or 0.0)


def _since(coll: CollectionInput) -> str:
    since = coll.sampling.since if coll.sampling is not None else None
    if not isinstance(since, dt.datetime):
        return "sampling started"
    text = since.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%SZ")
    if isinstance(coll.now, dt.datetime):
        minutes = int((coll.now - since.replace(tzinfo=since.tzinfo or dt.UTC)).total_seconds())
        text += f" (window {_duration(max(minutes, 0))})"
    return text


def _duration(seconds: int) -> str:
    if seconds >= 3600:
        return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"
    return f"{seconds // 60}m{seconds % 60:02d}s"


def distribution_text(workload: Workload, side: str) -> str:
    doc = workload.reads if side == "reads" else workload.writes
    noun = "Reads" if side == "reads" else "Writes"
    shares = ", ".join(f"{label} {_pct(doc, f'percentageOf{key}{noun}'):.1f}%"
                       for label, key in _KINDS)  # fmt: skip
    text = f"{workload.total(side):,} sampled: {shares}"
    if side == "writes" and workload.total(side):
        text += (
            f"; shard-key updates {_pct(doc, 'percentageOfShardKeyUpdates'):.1f}%"
            f"; without shard key {_pct(doc, 'percentageOfSingleWritesWithoutShardKey'):.1f}%"
            f" single, {_pct(doc, 'percentageOfMultiWritesWithoutShardKey'):.1f}% multi"
        )
    return text


def workload_figures(coll: CollectionInput) -> list[Figure]:
    figures: list[Figure] = []
    sampling = coll.sampling
    if sampling is not None:
        state = (
            f"on at {sampling.rate:g} samples/s since {_since(coll)}"
            if sampling.rate is not None
            else "off"
        )
        figures.append(Figure("query sampling", state, "config metadata", "high"))
    w = coll.workload
    off = sampling is None or sampling.rate is None
    if w is None or (off and not w.total("reads") and not w.total("writes")):
        return figures  # nothing sampled, nothing sampling: ZA124 says how to start
    for side in ("reads", "writes"):
        total = w.total(side)
        if total == 0:
            value = f"no samples since {_since(coll)}"
        else:
            value = f"{distribution_text(w, side)}; since {_since(coll)}"
        figures.append(Figure(side, value, "sampled queries", confidence(total)))
        hot = hot_ranges(w, side)
        if hot is not None:
            busiest, ranges, share = hot
            figures.append(
                Figure(
                    f"{side} by key range",
                    f"busiest {busiest} of {ranges} ranges take {share:.0%} of targeted {side}",
                    "sampled queries",
                    confidence(total),
                )
            )
    return figures


def hot_ranges(w: Workload, side: str) -> tuple[int, int, float] | None:
    """(busiest tenth, ranges, their share) of the requests that target ranges: a
    scatter-gather request adds one to every range, so its floor is taken out first."""
    doc = w.reads if side == "reads" else w.writes
    noun = "Reads" if side == "reads" else "Writes"
    counts = [int(n) for n in doc.get(f"num{noun}ByRange") or []]
    total = w.total(side)
    if not counts or not total:
        return None
    scatter = round(_pct(doc, f"percentageOfScatterGather{noun}") * total / 100)
    targeted = [max(n - scatter, 0) for n in counts]
    whole = sum(targeted)
    if whole < MIN_SAMPLES:
        return None
    busiest = max(len(counts) // 10, 1)
    top = sum(sorted(targeted, reverse=True)[:busiest])
    return busiest, len(counts), top / whole


def workload_rules(coll: CollectionInput, policy: CollectionPolicy | None) -> list[Finding]:
    ns = coll.namespace
    findings: list[Finding] = []
    sampling = coll.sampling
    if sampling is not None and sampling.rate is None:
        wanted = policy.sampling if policy is not None else None
        if wanted is not None and wanted.rate is not None:
            fix = (
                f"The policy turns it on ({wanted.position}): run `zonectl apply`; analyze "
                "reads the samples from a few minutes later."
            )
        else:
            fix = (
                f"Add `sampling: {{samplesPerSecond: {SUGGESTED_RATE}}}` under `collections: "
                f"{ns}:` in the policy and apply it; analyze reads the samples from a few "
                "minutes later."
            )
        findings.append(
            Finding(
                "ZA124",
                "sampling-off",
                Severity.INFO,
                ns,
                f"query sampling is off for {ns}: no read/write distribution to judge the "
                "key against the workload",
                fix,
                "config metadata",
            )
        )
    w = coll.workload
    if w is None:
        return findings
    reads = w.total("reads")
    scatter = _pct(w.reads, "percentageOfScatterGatherReads")
    if reads >= MIN_SAMPLES and scatter >= SCATTER_SHARE:
        findings.append(
            Finding(
                "ZA121",
                "reads-scatter-gather",
                Severity.WARNING,
                ns,
                f"{scatter:.0f}% of {reads:,} sampled reads carry no shard key and go to every "
                "shard: they do not scale as shards are added",
                f"Put the field those reads filter on in the key (compare with `zonectl "
                f"analyze -n {ns} --candidate '{{field: 1}}'`), or add the key to the queries.",
                "sampled queries",
            )
        )
    writes = w.total("writes")
    updates = _pct(w.writes, "percentageOfShardKeyUpdates")
    if writes >= MIN_SAMPLES and updates >= KEY_UPDATE_SHARE:
        findings.append(
            Finding(
                "ZA122",
                "writes-change-shard-key",
                Severity.WARNING,
                ns,
                f"{updates:.0f}% of {writes:,} sampled writes change the shard key: each moves "
                "its document to another chunk, often another shard, in a transaction",
                "Choose a key of fields the application does not update.",
                "sampled queries",
            )
        )
    for side in ("reads", "writes"):
        hot = hot_ranges(w, side)
        if hot is not None and hot[2] >= HOT_SHARE:
            findings.append(
                Finding(
                    "ZA123",
                    "hot-key-ranges",
                    Severity.WARNING,
                    ns,
                    f"the busiest {hot[0]} of {hot[1]} key ranges take {hot[2]:.0%} of the "
                    f"sampled {side} that target ranges: the shards owning them do that work",
                    "Give the hot range its own shards with a zone (a firehose window if it "
                    "is the newest data), or choose a key that spreads those values.",
                    "sampled queries",
                )
            )
    return findings


def candidate_reports(coll: CollectionInput) -> tuple[tuple[CandidateReport, ...], str | None]:
    """Each candidate's figures, and the policy `key:` line of the best one by single-shard
    reads (then fewer scatter-gather reads, then single-shard writes)."""
    if not coll.candidates:
        return (), None
    reports = tuple(
        CandidateReport(key_text(c.key), c.live, tuple(_candidate_figures(c)))
        for c in coll.candidates
    )
    best = max(coll.candidates, key=_score)
    return reports, f"key: {key_text(best.key)}"


def _score(c: Candidate) -> tuple[float, float, float]:
    w = c.workload
    if w is None or (not w.total("reads") and not w.total("writes")):
        return (-1.0, 0.0, 0.0)
    return (
        _pct(w.reads, "percentageOfSingleShardReads"),
        -_pct(w.reads, "percentageOfScatterGatherReads"),
        _pct(w.writes, "percentageOfSingleShardWrites"),
    )


def _candidate_figures(c: Candidate) -> list[Figure]:
    figures: list[Figure] = []
    m = c.metrics
    if m is None:
        note = c.metrics_note or "no characteristics"
        figures.append(Figure("characteristics", note, "analyzeShardKey", "low"))
    else:
        cardinality = "unique" if m.unique else f"{m.distinct:,} distinct in {m.sampled:,}"
        figures.append(
            Figure(
                "characteristics",
                f"{cardinality}; most common value {m.top_frequency:,} docs; {m.monotonicity}",
                "analyzeShardKey",
                "high" if m.sampled >= m.num_docs else "medium",
            )
        )
    if c.workload is not None:
        for side in ("reads", "writes"):
            total = c.workload.total(side)
            value = distribution_text(c.workload, side) if total else "no samples"
            figures.append(Figure(side, value, "sampled queries", confidence(total)))
    return figures


def key_text(key: Mapping[str, Any]) -> str:
    """A key as a policy writes it: `{sessionId: 1}`, `{_id: "hashed"}`."""
    parts = [f'{name}: "{v}"' if isinstance(v, str) else f"{name}: {v}" for name, v in key.items()]
    return "{" + ", ".join(parts) + "}"
