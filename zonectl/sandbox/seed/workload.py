"""A cluster file's query mix and query analyzers: config.queryAnalyzers as if
configureQueryAnalyzer had run, and the simulated workload attached to the sandbox's
sampler (sampling/workload.py), warmed up for `workload.warmup` of sandbox time.

The workload is a setting of the simulation, like the copy rate: attached whether the
sandbox was seeded or loaded from a state file; the warm-up and the seeded analyzers only
when seeded (a state file already holds its analyzers and samples).
"""

from __future__ import annotations

import contextlib
import datetime as dt
import json
import re
from typing import TYPE_CHECKING, Any

from bson import json_util

from zonectl.sandbox.commands.query_analyzer import collection_uuid
from zonectl.sandbox.sampling.sampler import QUERY_ANALYZERS
from zonectl.sandbox.sampling.workload import Shape, Traffic
from zonectl.sandbox.seed.schema import ClusterFile, QueryAnalyzerSpec, SeedError

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smh])\s*$")
_UNITS = {"s": 1, "m": 60, "h": 3600}


def attach(sandbox: Sandbox, spec: ClusterFile, *, seeded: bool, source: str) -> None:
    shapes = [
        Shape(c.ns, s.match, s.rate, s.command, s.field, s.changesKey)
        for c in spec.collections
        for s in c.workload
    ]
    now = sandbox.clock.now()
    warmup = dt.timedelta(seconds=_seconds(spec.workload.warmup, source)) if seeded else None
    since = now - warmup if warmup else now
    if seeded and sandbox.version.version_array[0] >= 7:
        for coll in spec.collections:
            if coll.queryAnalyzer is not None:
                sandbox.cluster.coll(QUERY_ANALYZERS).put(
                    _analyzer(sandbox, coll.ns, coll.queryAnalyzer, since, source)
                )
    sandbox.sampler.start_at(since)
    if shapes:
        traffic = Traffic(sandbox.sampler, sandbox.cluster, shapes)
        traffic.start(since)
        sandbox.sampler.traffic = traffic
    if since < now:
        sandbox.sampler.advance(now)  # the warm-up runs now, before anyone connects


def _analyzer(
    sandbox: Sandbox, ns: str, spec: QueryAnalyzerSpec, since: dt.datetime, source: str
) -> dict[str, Any]:
    """The config.queryAnalyzers document, fields in QueryAnalyzerDocument's order."""
    doc: dict[str, Any] = {"_id": collection_uuid(sandbox, ns), "ns": ns, "mode": spec.mode}
    if spec.samplesPerSecond is not None:
        doc["samplesPerSecond"] = spec.samplesPerSecond
    doc["startTime"] = _date(spec.startTime, f"{ns} queryAnalyzer.startTime", source) or since
    stop = _date(spec.stopTime, f"{ns} queryAnalyzer.stopTime", source)
    if stop is not None:
        doc["stopTime"] = stop
    return doc


def _date(value: Any, field: str, source: str) -> dt.datetime | None:
    if value is None:
        return None
    decoded = json_util.loads(json.dumps(value, default=str))  # {$date: ...}
    if isinstance(decoded, str):
        with contextlib.suppress(ValueError):  # a YAML timestamp, or an ISO string
            decoded = dt.datetime.fromisoformat(decoded)
    if not isinstance(decoded, dt.datetime):
        raise SeedError(f"{source}: {field}: expected a date ({{$date: ...}}): {value!r}")
    return decoded if decoded.tzinfo else decoded.replace(tzinfo=dt.UTC)


def _seconds(text: str, source: str) -> float:
    match = _DURATION.match(text)
    if not match:
        raise SeedError(f"{source}: workload.warmup: expected '30s', '10m' or '1h': {text!r}")
    return float(match.group(1)) * _UNITS[match.group(2)]
