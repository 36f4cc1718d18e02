"""Drains that cannot finish (reference shard-lifecycle.md §3), for each shard draining in
config.shards: a jumbo chunk on it (ZA112), a zone of its chunks with no shard to receive
them (ZA113, where ZA108 does not already name the zone), the balancer off (ZA114)."""

from __future__ import annotations

from zonectl.analyze.report import Finding, Severity
from zonectl.model.cluster import ClusterState
from zonectl.model.drain_blockers import drain_blockers, stranded_zones
from zonectl.model.shard_lifecycle import ShardDrain


def drain_rules(state: ClusterState) -> list[Finding]:
    found: list[Finding] = []
    for shard, drain in sorted(state.drains.items()):
        if not drain.draining:
            continue
        for b in drain_blockers(state, drain):
            if b.code == "jumbo":
                found.append(_finding("ZA112", "drain-blocked-by-jumbo", Severity.ERROR, b.message,
                    "Move them with `zonectl apply --migrate --force-jumbo` (moveChunk "
                    "forceJumbo), split them, or reshard the collection: "
                    "attemptToBalanceJumboChunks does not help, the balancer skips every "
                    "jumbo chunk on a draining shard."))  # fmt: skip
            elif b.code == "balancer-off":
                found.append(_finding("ZA114", "drain-with-balancer-off", Severity.WARNING,
                    b.message, f"Turn the balancer on, or run `zonectl apply --migrate` to "
                    f"move the chunks off {shard}."))  # fmt: skip
        found += _stranded(state, drain)
    return found


def _stranded(state: ClusterState, drain: ShardDrain) -> list[Finding]:
    """ZA113 for a zone whose chunks on the shard have nowhere to go, unless every shard
    of the zone is draining: ZA108 (rules_zone.py) says that already."""
    live = state.shard(drain.shard)
    own = live.zones if live is not None else ()
    out = []
    for zone, ns, others in stranded_zones(state, drain):
        if others or zone in own:
            continue  # carried, but only by draining shards: ZA108
        out.append(
            _finding(
                "ZA113",
                "drain-without-recipient",
                Severity.ERROR,
                f"{drain.shard} is draining and holds chunks of {ns}, whose zone {zone} no "
                "other shard carries: the balancer has nowhere to move them, so the removal "
                "never finishes",
                f"Give zone {zone} to an active shard (addShardToZone, or the zone under "
                "`shards:` in the policy), or remove the zone's ranges.",
            )
        )
    return out


def _finding(rule: str, name: str, severity: Severity, evidence: str, fix: str) -> Finding:
    return Finding(rule, name, severity, None, evidence, fix, "config metadata")
