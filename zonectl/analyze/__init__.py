"""Shard-key and zone health rules: pure functions from what the mongo layer read (and the
policy) to findings with stable ids, evidence and a one-sentence fix. No I/O, no clock."""

from __future__ import annotations

from zonectl.analyze.inputs import AnalyzeInput, ChunkInfo, CollectionInput, KeyMetrics
from zonectl.analyze.report import Figure, Finding, Report, Severity
from zonectl.analyze.rules import build_report

__all__ = [
    "AnalyzeInput",
    "ChunkInfo",
    "CollectionInput",
    "Figure",
    "Finding",
    "KeyMetrics",
    "Report",
    "Severity",
    "build_report",
]
