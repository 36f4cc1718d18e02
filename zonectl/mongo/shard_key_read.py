"""analyzeShardKey as analyze reads it (7.0+): one command per key, with the key's
characteristics and, when asked, its read/write distribution from the sampled queries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo.errors import OperationFailure

from zonectl.analyze.inputs import KeyMetrics, Workload
from zonectl.errors import redact
from zonectl.mongo.connect import Connection

SAMPLE_SIZE = 100_000  # documents analyzeShardKey samples: enough for frequency estimates


def run_analyze_shard_key(
    conn: Connection, ns: str, key: Mapping[str, Any], *, distribution: bool
) -> tuple[Mapping[str, Any] | None, str | None]:
    """One analyzeShardKey (keyCharacteristics, and readWriteDistribution if asked): the
    reply, or None and why."""
    command = {
        "analyzeShardKey": ns,
        "key": dict(key),
        "keyCharacteristics": True,
        "readWriteDistribution": distribution,
        "sampleSize": SAMPLE_SIZE,
    }
    try:
        return conn.client.admin.command(command), None
    except OperationFailure as exc:
        reasons = {
            59: f"the server (version {conn.version}) has no analyzeShardKey; it is new in 7.0",
            13: "not authorized to run analyzeShardKey (needs the analyzeShardKey action, "
            "e.g. the clusterManager role)",
        }
        message = (exc.details or {}).get("errmsg") or str(exc)
        return None, reasons.get(exc.code or 0, redact(str(message)))


def key_metrics(
    reply: Mapping[str, Any], key: Mapping[str, Any]
) -> tuple[KeyMetrics | None, str | None]:
    """KeyMetrics from an analyzeShardKey reply; without keyCharacteristics, why not."""
    kc = reply.get("keyCharacteristics")
    if not isinstance(kc, Mapping):
        return None, "no index supports this key, so its characteristics were not measured"
    common = kc.get("mostCommonValues") or []
    mono = kc.get("monotonicity") or {}
    coefficient = mono.get("recordIdCorrelationCoefficient")
    return (
        KeyMetrics(
            key=dict(key),
            num_docs=int(kc.get("numDocsTotal", 0)),
            avg_doc_bytes=int(kc.get("avgDocSizeBytes", 0)),
            sampled=int(kc.get("numDocsSampled", 0)),
            unique=bool(kc.get("isUnique", False)),
            distinct=int(kc.get("numDistinctValues", 0)),
            top_frequency=int(common[0]["frequency"]) if common else 0,
            monotonicity=str(mono.get("type", "unknown")),
            coefficient=float(coefficient) if coefficient is not None else None,
        ),
        None,
    )


def workload_of(reply: Mapping[str, Any] | None) -> Workload | None:
    if reply is None or not isinstance(reply.get("readDistribution"), Mapping):
        return None
    return Workload(dict(reply["readDistribution"]), dict(reply.get("writeDistribution") or {}))
