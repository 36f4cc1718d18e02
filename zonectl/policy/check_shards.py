"""Checks of the shards' lifecycle (`state`, `host`; reference shard-lifecycle.md): a removed
shard keeps no zones, a zone the policy uses keeps a shard that stays, a host reads as a
replica set seed list, and the policy does not remove every shard."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.policy.check_misc import references
from zonectl.policy.fragment import CollectionEntry, ShardEntry

# addShard's seed list: "replicaSetName/host:port[,host:port...]" (a standalone "host:port" is
# refused since MongoDB 3.6 for shards; docs reference/command/addShard).
_HOST = re.compile(
    r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.\[\]:-]+:\d{1,5}(,[A-Za-z0-9_.\[\]:-]+:\d{1,5})*$"
)


def check_lifecycle(
    shards: Mapping[str, ShardEntry], collections: Iterable[CollectionEntry]
) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    for shard in shards.values():
        if shard.state == "removed" and shard.zones:
            zones = ", ".join(shard.zones)
            message = f"shard {shard.name} is removed but given zones ({zones}): they are dropped"
            hint = "give these zones to a shard that stays, and remove them from this entry"
            problems.append(_diag("ZP304", Severity.WARNING, shard.at("zones"), message, hint))
        if shard.host is not None and not _HOST.match(shard.host):
            message = f'shard {shard.name}: host "{shard.host}" is not "replicaSet/host:port,..."'
            hint = 'write the replica set name, a slash and its members, e.g. "rs3/db3a:27018"'
            problems.append(_diag("ZP306", Severity.ERROR, shard.at("host"), message, hint))
    removed = [s for s in shards.values() if s.state == "removed"]
    if removed and len(removed) == len(shards):
        message = "the policy removes every shard it names; a cluster keeps at least one shard"
        hint = "keep one shard `state: active`, or leave the shards out of the policy"
        problems.append(_diag("ZP307", Severity.ERROR, removed[0].at(key=True), message, hint))
    return problems + _zones_left_without_shard(shards, collections)


def _zones_left_without_shard(
    shards: Mapping[str, ShardEntry], collections: Iterable[CollectionEntry]
) -> list[Diagnostic]:
    """A zone only removed shards carry, used by a range, pin, firehose or slices: once they
    are gone no shard carries it (MongoDB refuses the removal: ZoneStillInUse)."""
    active = {z for s in shards.values() if s.state == "active" for z in s.zones}
    by_removed: dict[str, list[str]] = {}
    for s in shards.values():
        if s.state == "removed":
            for z in s.zones:
                by_removed.setdefault(z, []).append(s.name)
    uses: dict[str, list[Position]] = {}
    if not by_removed.keys() - active:  # no zone is left to removed shards alone
        return []
    for coll in collections:
        for zone, where in references(coll):
            if zone in by_removed and zone not in active:
                uses.setdefault(zone, []).append(where())
    problems = []
    for zone, places in sorted(uses.items()):
        names = ", ".join(sorted(by_removed[zone]))
        message = (
            f"zone {zone} is used here but its only shard ({names}) is removed: once it is "
            "gone no shard carries the zone"
        )
        hint = f"give zone {zone} to a shard that stays (under shards:), or drop its uses"
        problems.append(_diag("ZP305", Severity.ERROR, min(places), message, hint))
    return problems


def _diag(code: str, severity: Severity, where: Position, message: str, hint: str) -> Diagnostic:
    return Diagnostic(code, severity, where, message, hint)
