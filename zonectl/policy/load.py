"""`load_policy`: read, merge and check policy files in one pass, then either return the
DesiredState with its warnings or raise InvalidPolicyError carrying every diagnostic."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zonectl.diagnostics import Diagnostic, Severity, has_errors, sorted_diagnostics
from zonectl.errors import InvalidPolicyError
from zonectl.model.desired import DesiredState
from zonectl.policy import (
    check_disk,
    check_firehose,
    check_misc,
    check_ownership,
    check_partition,
    check_ranges,
    check_settings,
    check_shards,
)
from zonectl.policy.build import build_desired
from zonectl.policy.check_ranges import CheckedRange
from zonectl.policy.fragment import Fragment, parse_fragment
from zonectl.policy.merge import Merged, merge_fragments
from zonectl.policy.source import find_policy_files, read_documents
from zonectl.policy.tree import Limits


@dataclass(frozen=True)
class PolicyLoad:
    desired: DesiredState
    diagnostics: list[Diagnostic] = field(default_factory=list)  # warnings only


def load_policy(
    paths: Sequence[str | Path], *, limits: Limits | None = None, own_database: str = "zonectl"
) -> PolicyLoad:
    """Load and validate policy files and directories (read recursively, merged).
    `own_database` (zonectl's lease/journal database) is one no pattern may name."""
    limits = limits or Limits()
    files, diagnostics = find_policy_files(paths)
    fragments: list[Fragment] = []
    for file in files:
        documents, problems = read_documents(file, limits)
        diagnostics += problems
        for doc in documents:
            fragment, problems = parse_fragment(doc, limits)
            diagnostics += problems
            if fragment is not None:
                fragments.append(fragment)
    merged, problems = merge_fragments(fragments)
    diagnostics += problems
    keys, checked, problems = check_policy(merged, own_database)
    diagnostics += problems
    diagnostics = sorted_diagnostics(diagnostics)
    if has_errors(diagnostics) or not files:
        errors = sum(d.severity is Severity.ERROR for d in diagnostics)
        warnings = len(diagnostics) - errors
        message = f"invalid policy: {_count(errors, 'error')}, {_count(warnings, 'warning')}"
        raise InvalidPolicyError(message, diagnostics=diagnostics)
    desired = build_desired(merged, keys, checked, files, own_database)
    return PolicyLoad(desired, diagnostics)


def check_policy(
    merged: Merged, own_database: str = "zonectl"
) -> tuple[dict[str, dict[str, Any] | None], dict[str, list[CheckedRange]], list[Diagnostic]]:
    """Every semantic check; returns each namespace's key and its checked ranges too."""
    problems: list[Diagnostic] = []
    keys: dict[str, dict[str, Any] | None] = {}
    checked: dict[str, list[CheckedRange]] = {}
    for shard in merged.shards.values():
        problems += check_misc.check_shard(shard)
    for ns, coll in merged.collections.items():
        problems += check_misc.check_namespace(coll, own_database)
        problems += check_misc.check_sampling(coll)
        problems += check_ownership.check_manages_something(coll)
        key, key_problems = check_ranges.check_key(coll)
        problems += key_problems
        keys[ns] = key
        good: list[CheckedRange] = []
        for entry in coll.ranges:
            result, range_problems = check_ranges.check_range(entry, key)
            problems += range_problems
            if result is not None:
                good.append(result)
        if key is None and coll.model.key is not None:
            # An invalid key: the ranges were not checked against it, so neither overlap.
            continue
        checked[ns] = good
        problems += check_ranges.check_overlaps(good)
        problems += check_firehose.check_firehose(coll, key)
        problems += check_firehose.check_bound_types(coll, good)
        problems += check_firehose.check_coverage(coll, good)
        problems += check_partition.check_partition(coll, key, good)
    if merged.shards_complete:
        problems += check_shards.check_lifecycle(merged.shards, merged.collections.values())
        # A zone used but carried only by removed shards is reported once, as ZP305.
        problems += check_misc.check_zone_references(
            merged.collections.values(), merged.assigned_zones | merged.removed_shard_zones
        )
    problems += check_disk.check_disk(merged)
    if merged.balancer is not None:
        problems += check_misc.check_balancer(*merged.balancer)
        problems += check_settings.check_day_windows(*merged.balancer)
    return keys, checked, problems


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
