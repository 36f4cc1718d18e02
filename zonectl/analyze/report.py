"""The analysis as a value: figures (each with its source and confidence) and findings
(rule id, severity, evidence, one-sentence fix), per collection and cluster-wide."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Literal

Source = Literal[
    "analyzeShardKey",
    "config metadata",
    "$shardedDataDistribution",
    "changelog",
    "policy",
    "sampled queries",  # analyzeShardKey's readWriteDistribution over config.sampledQueries
    "dataSize and dbStats",  # a window's recent ingest and its hot shards' volumes
]
Confidence = Literal["high", "medium", "low"]


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class Figure:
    name: str
    value: str
    source: Source
    confidence: Confidence


@dataclass(frozen=True)
class Finding:
    rule: str  # stable id, e.g. "ZA103"
    name: str  # stable slug, e.g. "monotonic-key-without-firehose"
    severity: Severity
    namespace: str | None
    evidence: str
    fix: str  # one sentence
    source: Source
    snippet: str | None = None  # a ready policy fragment the fix refers to (YAML)


@dataclass(frozen=True)
class CandidateReport:
    """One key of `analyze --candidate`, live or not: its figures side by side."""

    key: str
    live: bool
    figures: tuple[Figure, ...] = ()


@dataclass(frozen=True)
class CollectionReport:
    namespace: str
    kind: str
    key: str
    shape: str
    figures: tuple[Figure, ...] = ()
    findings: tuple[Finding, ...] = ()
    candidates: tuple[CandidateReport, ...] = ()
    best_key: str | None = None  # the policy `key:` line of the best candidate


@dataclass(frozen=True)
class Report:
    collections: tuple[CollectionReport, ...] = ()
    findings: tuple[Finding, ...] = field(default_factory=tuple)  # cluster-wide

    def all_findings(self) -> list[Finding]:
        out = list(self.findings)
        for c in self.collections:
            out += c.findings
        return out
