"""The disk limits (`disk: {limit: "85%"}` at the top and in a shard's long form): each is a
percentage over 0 and at most 100, read into the DiskLimit the capacity guard uses."""

from __future__ import annotations

import re
from collections.abc import Mapping

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.model.capacity import DiskLimit
from zonectl.policy.fragment import ShardEntry
from zonectl.policy.merge import Merged
from zonectl.policy.schema import DiskModel
from zonectl.policy.tree import Document

_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%\s*$")


def parse_limit(text: str, where: Position) -> DiskLimit | Diagnostic:
    """ "85%" -> DiskLimit(0.85); a diagnostic for anything else."""
    match = _PERCENT.match(text)
    if match is None:
        message = f'disk limit "{text}" is not a percentage'
        hint = 'write the share of the volume a plan may fill, e.g. limit: "85%"'
        return Diagnostic("ZP701", Severity.ERROR, where, message, hint)
    value = float(match.group(1))
    if not 0 < value <= 100:
        message = f'disk limit "{text}" must be over 0 % and at most 100 %'
        hint = 'the default is "85%"; 100 % lets a plan fill the volume to the last byte'
        return Diagnostic("ZP702", Severity.ERROR, where, message, hint)
    return DiskLimit(value / 100, text.strip(), where)


def cluster_limit(disk: tuple[DiskModel, Document] | None) -> DiskLimit | Diagnostic | None:
    """The top-level section's limit (None: not set)."""
    if disk is None:
        return None
    model, doc = disk
    return parse_limit(model.limit, doc.position(("disk", "limit")))


def shard_limits(shards: Mapping[str, ShardEntry]) -> dict[str, DiskLimit | Diagnostic]:
    """Each long-form shard entry's own limit."""
    return {
        name: parse_limit(entry.disk.limit, entry.at("disk", "limit"))
        for name, entry in shards.items()
        if entry.disk is not None
    }


def check_disk(merged: Merged) -> list[Diagnostic]:
    found = [cluster_limit(merged.disk), *shard_limits(merged.shards).values()]
    return [d for d in found if isinstance(d, Diagnostic)]
