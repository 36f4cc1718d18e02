"""What analyze reads about a collection's workload beyond its live key: the sampling state
(config.queryAnalyzers, read once with the config documents) and, for `--candidate` keys,
one analyzeShardKey each (characteristics where an index supports the key, read/write
distribution always: it needs no index)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.analyze.inputs import Candidate, CollectionInput, Sampling
from zonectl.mongo.connect import Connection
from zonectl.mongo.shard_key_read import key_metrics, run_analyze_shard_key, workload_of


def with_workload(
    conn: Connection,
    coll: CollectionInput,
    analyzers: Sequence[Mapping[str, Any]] | None,
    candidates: Sequence[Mapping[str, Any]],
    now: dt.datetime,
) -> CollectionInput:
    real = coll.kind in ("sharded", "unsharded")  # views, time-series: never sampled
    sampling = None if analyzers is None or not real else sampling_of(analyzers, coll.namespace)
    found: list[Candidate] = []
    if candidates and real:
        if coll.key is not None:
            found.append(
                Candidate(dict(coll.key), coll.metrics, coll.metrics_note, coll.workload, True)
            )
        for key in candidates:
            if coll.key is not None and list(key.items()) == list(coll.key.items()):
                continue
            reply, note = run_analyze_shard_key(conn, coll.namespace, key, distribution=True)
            metrics = None
            if reply is not None:
                metrics, note = key_metrics(reply, key)
            found.append(Candidate(dict(key), metrics, note, workload_of(reply)))
    return dataclasses.replace(coll, sampling=sampling, candidates=tuple(found), now=now)


def sampling_of(analyzers: Sequence[Mapping[str, Any]], ns: str) -> Sampling:
    doc = next((d for d in analyzers if d.get("ns") == ns), None)
    if doc is None:
        return Sampling(None)
    if doc.get("mode") == "full":
        return Sampling(float(doc.get("samplesPerSecond", 0)), doc.get("startTime"))
    return Sampling(None, doc.get("stopTime"))
