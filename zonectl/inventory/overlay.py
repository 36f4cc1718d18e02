"""Per-cluster overlays on the desired state, as pure functions: rename policy shards to
the cluster's real shard names, add extra shard->zone memberships, and check an overlay
against the policy (offline) and against the cluster's live shards (once connected)."""

from __future__ import annotations

import dataclasses
from collections.abc import Collection

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.inventory.clusters import Overlay
from zonectl.model.desired import DesiredState
from zonectl.policy.build import digest_of


def apply_overlay(desired: DesiredState, overlay: Overlay) -> DesiredState:
    """The desired state of one cluster: shards renamed, extra zones added. The digest is
    recomputed, so a plan saved for this cluster is stale only when its own policy changes."""
    if overlay.is_empty:
        return desired
    shards: dict[str, frozenset[str]] = {}
    positions: dict[str, Position] = {}
    for name, zones in desired.shards.items():
        real = overlay.shard_names.get(name, name)
        shards[real] = shards.get(real, frozenset()) | zones
        if name in desired.shard_positions:
            positions[real] = desired.shard_positions[name]
    for real, zones in overlay.extra_zones.items():
        shards[real] = shards.get(real, frozenset()) | zones
        where = overlay.positions.get(f"extraZones.{real}")
        if where is not None:
            positions.setdefault(real, where)
    state = dataclasses.replace(
        desired, shards=dict(sorted(shards.items())), shard_positions=positions, digest=""
    )
    return dataclasses.replace(state, digest=digest_of(state))


def check_overlay_policy(cluster: str, overlay: Overlay, desired: DesiredState) -> list[Diagnostic]:
    """Offline: every renamed shard is one the policy names, and no rename lands on another
    policy shard (the two would merge their zones without anyone asking for it)."""
    problems = []
    for name, real in overlay.shard_names.items():
        where = overlay.positions.get(f"shardNames.{name}", Position("<inventory>"))
        if name not in desired.shards:
            problems.append(
                _error(
                    "ZI140",
                    where,
                    f"cluster {cluster}: overlay renames shard {name}, which the policy does "
                    "not name",
                    f"policy shards: {', '.join(sorted(desired.shards)) or 'none'}",
                )
            )
        elif real != name and real in desired.shards and real not in overlay.shard_names:
            problems.append(
                _error(
                    "ZI141",
                    where,
                    f"cluster {cluster}: overlay renames shard {name} to {real}, which the "
                    "policy already names",
                    "rename that shard too, or map this one to another shard",
                )
            )
    return problems


def check_overlay_shards(
    cluster: str, overlay: Overlay, live_shards: Collection[str]
) -> list[Diagnostic]:
    """Once connected: every shard the overlay names exists on the cluster."""
    problems = []
    named = [(f"shardNames.{k}", real) for k, real in overlay.shard_names.items()]
    named += [(f"extraZones.{shard}", shard) for shard in overlay.extra_zones]
    for key, shard in named:
        if shard not in live_shards:
            where = overlay.positions.get(key, Position("<inventory>"))
            problems.append(
                _error(
                    "ZI142",
                    where,
                    f"cluster {cluster}: overlay names shard {shard}, which this cluster lacks",
                    f"its shards: {', '.join(sorted(live_shards)) or 'none'}",
                )
            )
    return problems


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
