"""What `zonectl.mongo.analyze_read` hands the rules: per collection its kind, chunks,
analyzeShardKey metrics (or why there are none), data distribution and change history."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.model.ingest import HotZoneInput

Kind = Literal["sharded", "unsharded", "view", "timeseries", "missing"]


@dataclass(frozen=True)
class ChunkInfo:
    min: Mapping[str, Any]
    max: Mapping[str, Any]
    shard: str
    jumbo: bool = False
    bytes: int | None = None  # estimatedDataSizeBytes when the server keeps it


@dataclass(frozen=True)
class KeyMetrics:
    """analyzeShardKey's keyCharacteristics (manual: analyzeShardKey, Output)."""

    key: Mapping[str, Any]
    num_docs: int
    avg_doc_bytes: int
    sampled: int
    unique: bool
    distinct: int
    top_frequency: int  # documents of the most common value, in the sample
    monotonicity: str  # "monotonic" | "not monotonic" | "unknown"
    coefficient: float | None = None

    @property
    def top_bytes(self) -> int:
        """Estimated bytes of the most common value in the whole collection: its sample
        frequency scaled to the collection (a value seen once in the sample is taken as
        one document: scaling a singleton would invent duplicates)."""
        if self.top_frequency <= 1 or not self.sampled:
            return self.top_frequency * self.avg_doc_bytes
        scale = self.num_docs / self.sampled
        return int(self.top_frequency * scale * self.avg_doc_bytes)


@dataclass(frozen=True)
class Workload:
    """analyzeShardKey's readDistribution and writeDistribution for one key, computed by
    the server from the sampled queries (manual: analyzeShardKey, readWriteDistribution)."""

    reads: Mapping[str, Any]
    writes: Mapping[str, Any]

    def total(self, side: str) -> int:
        doc = self.reads if side == "reads" else self.writes
        size = doc.get("sampleSize") or {}
        return int(size.get("total", 0))


@dataclass(frozen=True)
class Sampling:
    """config.queryAnalyzers for the collection: `rate` samples/s while on (None: off or
    never configured), `since` the start of the current sampling (or when it stopped)."""

    rate: float | None
    since: Any = None  # datetime


@dataclass(frozen=True)
class Candidate:
    """A key put beside the live one (`analyze --candidate`): its characteristics when an
    index supports it (else `metrics_note`), and its read/write distribution."""

    key: Mapping[str, Any]
    metrics: KeyMetrics | None
    metrics_note: str | None
    workload: Workload | None
    live: bool = False


@dataclass(frozen=True)
class CollectionInput:
    namespace: str
    kind: Kind
    key: Mapping[str, Any] | None = None
    chunks: tuple[ChunkInfo, ...] = ()
    metrics: KeyMetrics | None = None
    metrics_note: str | None = None  # why analyzeShardKey gave nothing
    # $shardedDataDistribution: shard -> (owned documents, owned bytes); None: not available
    distribution: Mapping[str, tuple[int, int]] | None = None
    # config.changelog events of the last day: "moveChunk.commit" / "split" / ... -> count
    changes: Mapping[str, int] = field(default_factory=dict)
    chunk_size: int = 128 * 1024 * 1024  # the collection's maximum chunk size in bytes
    # Query sampling (7.0+): the live key's read/write distribution, or why there is none.
    workload: Workload | None = None
    workload_note: str | None = None
    sampling: Sampling | None = None  # None: unknown (before 7.0, or not readable)
    candidates: tuple[Candidate, ...] = ()  # `--candidate` keys, the live one first
    now: Any = None  # datetime of the reads, for sampling windows


@dataclass(frozen=True)
class AnalyzeInput:
    state: ClusterState
    collections: Mapping[str, CollectionInput]
    desired: DesiredState | None = None
    boundaries: Mapping[str, Any] = field(default_factory=dict)  # firehose ns -> boundary
    version_note: str | None = None  # e.g. the server has no analyzeShardKey
    # Firehose ns -> what its hot-zone fit needs, or why it could not be read
    # (zonectl/session/hot_zones.py); absent: not asked (no policy, not a window).
    hot_zones: Mapping[str, HotZoneInput | str] = field(default_factory=dict)
