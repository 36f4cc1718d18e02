"""Rules about the shard key itself against the zone strategy: firehose fit, monotonic
inserts without a window, and values too frequent to split (manual: "Choose a Shard Key",
"Shard Key Cardinality / Frequency / Monotonicity"; analyzeShardKey's Output)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.analyze.inputs import CollectionInput
from zonectl.analyze.report import Finding, Severity
from zonectl.model.desired import CollectionPolicy
from zonectl.model.keys import format_value

MIB = 1024 * 1024


def key_shape(key: Mapping[str, Any] | None) -> str:
    if not key:
        return "none"
    fields = list(key)
    hashed = [f for f, v in key.items() if v == "hashed"]
    if len(fields) == 1:
        return "hashed" if hashed else "ranged"
    if hashed and hashed[0] == fields[0]:
        return f"compound, hashed prefix {fields[0]}"
    if hashed:
        return f"compound, ranged prefix {fields[0]}, hashed {hashed[0]}"
    return f"compound, ranged prefix {fields[0]}"


def firehose_rules(coll: CollectionInput, policy: CollectionPolicy | None) -> list[Finding]:
    """ZA101 firehose on a hashed / non-leading field; ZA102 firehose on a key whose inserts
    are not ascending (analyzeShardKey monotonicity)."""
    if policy is None or policy.firehose is None or not coll.key:
        return []
    fh = policy.firehose
    first, kind = next(iter(coll.key.items()))
    ns = coll.namespace
    if kind == "hashed" or fh.field != first or coll.key.get(fh.field) == "hashed":
        why = (
            f"{fh.field} is hashed in {format_value(coll.key)}"
            if coll.key.get(fh.field) == "hashed"
            else f"{fh.field} is not the first field of {format_value(coll.key)}"
        )
        return [
            Finding(
                "ZA101",
                "firehose-on-hashed-key",
                Severity.ERROR,
                ns,
                f"firehose window on {ns} cuts the key at {fh.field}, but {why}: "
                "the window's range holds a scattered slice of the data, not the newest",
                "Drop the firehose for this collection or reshard it on a key led by the "
                "ascending time field.",
                "config metadata",
            )
        ]
    m = coll.metrics
    if m is not None and m.monotonicity == "not monotonic":
        return [
            Finding(
                "ZA102",
                "firehose-on-non-ascending-key",
                Severity.WARNING,
                ns,
                f"firehose window on {ns} expects new documents at the top of the key, but "
                f"analyzeShardKey finds {format_value(dict(m.key))} not monotonic "
                f"(recordId correlation {_coef(m.coefficient)})",
                f"Make sure {fh.field} is set from the insert time, or replace the window by "
                "fixed ranges.",
                "analyzeShardKey",
            )
        ]
    return []


def monotonic_rule(
    coll: CollectionInput, policy: CollectionPolicy | None, hot_top: bool
) -> list[Finding]:
    """ZA103: an ascending key sends every insert to the shard of the top chunk; without a
    firehose window (or a live zone on the top of the key: `hot_top`) that shard is
    whatever the balancer last chose."""
    m = coll.metrics
    if m is None or m.monotonicity != "monotonic" or not coll.chunks or hot_top:
        return []
    if policy is not None and policy.firehose is not None:
        return []
    top = coll.chunks[-1].shard if m.coefficient is None or m.coefficient >= 0 else None
    bottom = coll.chunks[0].shard
    where = f"the top chunk on {top}" if top else f"the bottom chunk on {bottom}"
    return [
        Finding(
            "ZA103",
            "monotonic-key-without-firehose",
            Severity.WARNING,
            coll.namespace,
            f"{format_value(dict(m.key))} is monotonic (recordId correlation "
            f"{_coef(m.coefficient)}): every insert lands in {where}, one shard takes "
            "all writes",
            "Add a firehose window that keeps the newest range on a shard sized for the "
            "writes, or reshard on a hashed or compound key.",
            "analyzeShardKey",
        )
    ]


def frequency_rule(coll: CollectionInput, zoned: bool) -> list[Finding]:
    """ZA104: the most common key value holds more than a chunk can: its chunk can never
    split, becomes jumbo, and cannot be moved into its zone."""
    m = coll.metrics
    if m is None or m.unique or m.top_bytes <= coll.chunk_size:
        return []
    severity = Severity.ERROR if zoned else Severity.WARNING
    zone_note = " and zone ranges on it cannot divide that value" if zoned else ""
    return [
        Finding(
            "ZA104",
            "key-value-larger-than-chunk",
            severity,
            coll.namespace,
            f"the most common value of {format_value(dict(m.key))} holds ~{_mib(m.top_bytes)} "
            f"({m.top_frequency} of {m.sampled} sampled documents, {m.distinct} distinct "
            f"values), more than the {_mib(coll.chunk_size)} chunk size: its chunk cannot "
            f"split and becomes jumbo{zone_note}",
            "Refine the shard key with a high-cardinality suffix (refineCollectionShardKey: "
            "write the longer `key:` in the policy) so the value's documents can be split; "
            "on 7.2+ a resharding (`migrate: reshard`, or `reshard: true` with a new key) "
            "rewrites every chunk and leaves no jumbo one.",
            "analyzeShardKey",
        )
    ]


def _coef(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def _mib(n: int) -> str:
    return f"{n / MIB:,.0f} MiB" if n >= MIB else f"{n:,} B"
