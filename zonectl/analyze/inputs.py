"""What `zonectl.mongo.analyze_read` hands the rules: per collection its kind, chunks,
analyzeShardKey metrics (or why there are none), data distribution and change history."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState

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


@dataclass(frozen=True)
class AnalyzeInput:
    state: ClusterState
    collections: Mapping[str, CollectionInput]
    desired: DesiredState | None = None
    boundaries: Mapping[str, Any] = field(default_factory=dict)  # firehose ns -> boundary
    version_note: str | None = None  # e.g. the server has no analyzeShardKey
