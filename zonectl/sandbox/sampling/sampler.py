"""The query sampler of the sandbox's mongos: which served queries it records, at what rate,
and when its writer stores them in config.sampledQueries / config.sampledQueriesDiff.

As MongoDB 7.0 does it (src/mongo/s/analyze_shard_key_server_parameters.idl, the sampler
and writer in src/mongo/s/query_analysis_sampler.cpp and src/mongo/db/s/
query_analysis_writer.cpp, documents from src/mongo/s/analyze_shard_key_documents.idl):
  * the sampler refreshes its configurations from config.queryAnalyzers every
    queryAnalysisSamplerConfigurationRefreshSecs (5 s): a configureQueryAnalyzer takes
    effect at the next refresh, on the sandbox clock;
  * per collection a token bucket of `samplesPerSecond`, burst capacity x2
    (queryAnalysisSamplerBurstMultiplier); the sandbox is the only mongos, so it has the
    whole rate. Guess: the bucket starts empty;
  * reads (find, aggregate, count, distinct) store {filter, collation, let?}; writes
    (update, delete, findAndModify) store the command with the one sampled statement, each
    statement of a batch sampled on its own;
  * the writer flushes every queryAnalysisWriterIntervalSecs (90 s); documents expire after
    queryAnalysisSampleExpirationSecs (7 days: `expireAt`);
  * a write that modified a document also stores its diff (field names -> `u`/`d`, the
    $v:2 diff sections), keyed by the same sample id. Guess: the diff is built from the
    update's modifiers, not from the pre- and post-images.
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bson.binary import Binary, UuidRepresentation

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster

QUERY_ANALYZERS = "config.queryAnalyzers"
SAMPLED_QUERIES = "config.sampledQueries"
SAMPLED_DIFFS = "config.sampledQueriesDiff"
READS = frozenset({"find", "aggregate", "count", "distinct"})
WRITES = frozenset({"update", "delete", "findAndModify"})
REFRESH = dt.timedelta(seconds=5)  # queryAnalysisSamplerConfigurationRefreshSecs
WRITER_INTERVAL = dt.timedelta(seconds=90)  # queryAnalysisWriterIntervalSecs
EXPIRATION = dt.timedelta(days=7)  # queryAnalysisSampleExpirationSecs
BURST_MULTIPLIER = 2.0  # queryAnalysisSamplerBurstMultiplier


def new_uuid() -> Binary:
    return Binary.from_uuid(uuid.uuid4(), UuidRepresentation.STANDARD)


@dataclass
class _Active:
    """One sampled collection: its configuration, token bucket and currentOp counters."""

    ns: str
    uuid: Any
    rate: float
    start: dt.datetime
    tokens: float = 0.0
    refilled: dt.datetime | None = None
    reads: int = 0
    writes: int = 0

    def ready_at(self, now: dt.datetime) -> dt.datetime:
        """The first instant from `now` at which the bucket holds a whole token."""
        if self.refilled is None or self.rate <= 0:
            return now
        elapsed = max((now - self.refilled).total_seconds(), 0.0)
        tokens = min(self.tokens + elapsed * self.rate, self.rate * BURST_MULTIPLIER)
        if tokens >= 1.0:
            return now
        return now + dt.timedelta(seconds=(1.0 - tokens) / self.rate)

    def take(self, now: dt.datetime) -> bool:
        if self.refilled is not None:
            elapsed = max((now - self.refilled).total_seconds(), 0.0)
            self.tokens = min(self.tokens + elapsed * self.rate, self.rate * BURST_MULTIPLIER)
        self.refilled = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        return False


@dataclass
class Sampler:
    cluster: Cluster
    _active: dict[str, _Active] = field(default_factory=dict)
    _next_refresh: dt.datetime | None = None
    _next_flush: dt.datetime | None = None
    _pending: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    # The simulated workload (workload.py) runs up to `now` before each command is served.
    traffic: Callable[[dt.datetime], None] | None = None

    def start_at(self, instant: dt.datetime) -> None:
        """The writer's and the refresher's first tick (a seeded warm-up starts earlier)."""
        self._next_refresh = instant
        self._next_flush = instant + WRITER_INTERVAL

    def tick(self, now: dt.datetime) -> None:
        """Refresh the configurations and flush the writer when their intervals are due."""
        if self._next_refresh is None:
            self.start_at(now)
        assert self._next_refresh is not None and self._next_flush is not None
        if now >= self._next_refresh:
            steps = (now - self._next_refresh) // REFRESH + 1
            # The refresher runs on its own timer: it last ran at the latest due instant.
            self._refresh(self._next_refresh + REFRESH * (steps - 1))
            self._next_refresh += REFRESH * steps
        if now >= self._next_flush:
            self.flush()
            steps = (now - self._next_flush) // WRITER_INTERVAL + 1
            self._next_flush += WRITER_INTERVAL * steps

    def _refresh(self, at: dt.datetime) -> None:
        seen = {}
        stored = self.cluster.catalog.get(QUERY_ANALYZERS)
        for doc in stored if stored is not None else ():
            if doc.get("mode") != "full":
                continue
            ns = str(doc["ns"])
            old = self._active.get(ns)
            rate = float(doc.get("samplesPerSecond", 0))
            if old is not None and old.start == doc["startTime"]:
                old.rate = rate
                seen[ns] = old
            else:
                seen[ns] = _Active(ns, doc["_id"], rate, doc["startTime"], refilled=at)
        self._active = seen

    def flush(self) -> None:
        for target, doc in self._pending:
            self.cluster.coll(target).put(doc)
        self._pending.clear()

    def active(self) -> list[_Active]:
        return list(self._active.values())

    def offer(
        self, ns: str, name: str, commands: Iterable[dict[str, Any]], now: dt.datetime
    ) -> list[Binary]:
        """Sample each of a command's statements the bucket allows; their sample ids."""
        ids = []
        for cmd in commands:
            if not self.admit(ns, now):
                break
            ids.append(self.record(ns, name, cmd, now))
        return ids

    def admit(self, ns: str, now: dt.datetime) -> bool:
        """Whether one more query of `ns` at `now` is sampled (takes a token)."""
        entry = self._active.get(ns)
        return entry is not None and entry.take(now)

    def record(self, ns: str, name: str, cmd: dict[str, Any], now: dt.datetime) -> Binary:
        """Store an admitted query (at the writer's next flush); its sample id."""
        entry = self._active[ns]
        sample_id = new_uuid()
        if name in READS:
            entry.reads += 1
        else:
            entry.writes += 1
        doc = {
            "_id": sample_id,
            "ns": ns,
            "collectionUuid": entry.uuid,
            "cmdName": name,
            "cmd": cmd,
            "expireAt": now + EXPIRATION,
        }
        self._pending.append((SAMPLED_QUERIES, doc))
        return sample_id

    def record_diff(
        self, ns: str, sample_id: Binary, diff: Mapping[str, Any], now: dt.datetime
    ) -> None:
        entry = self._active.get(ns)
        if entry is None or not diff:
            return
        doc = {
            "_id": sample_id,
            "ns": ns,
            "collectionUuid": entry.uuid,
            "diff": dict(diff),
            "expireAt": now + EXPIRATION,
        }
        self._pending.append((SAMPLED_DIFFS, doc))

    def entry(self, ns: str) -> _Active | None:
        return self._active.get(ns)

    def is_sampled(self, ns: str) -> bool:
        return ns in self._active

    def advance(self, now: dt.datetime) -> None:
        """Before a command is served: the simulated workload up to `now`, then the ticks."""
        if self.traffic is not None:
            self.traffic(now)
        self.tick(now)
