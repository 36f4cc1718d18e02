"""Removing a shard: removeShard (5.0-8.3), 8.3's startShardDraining / shardDrainingStatus /
commitShardRemoval / stopShardDraining, and transitionToDedicatedConfigServer.

Sources (mongo repository; docs/sandbox-fidelity.md "Shards leaving and joining"):
- removeShard: `ShardingCatalogManager::removeShard` in src/mongo/db/s/config/
  sharding_catalog_manager_shard_operations.cpp (5.0-8.0), `checkPreconditionsAndStartDrain`,
  `checkDrainingProgress` and remove_shard_command_helpers.cpp (8.3); the shard is looked up
  in the shard registry first (configsvr_remove_shard_command.cpp: ShardNotFound "Shard <id>
  not found"); every call re-checks the last non-draining shard and the zones.
- The draining commands: configsvr_{start_shard_draining,shard_draining_status,
  commit_shard_removal,stop_shard_draining}_command.cpp; jstests/sharding/
  shard_draining_status.js. Pending range deletions hold up only the config shard's removal
  (RemoveShardCommitCoordinator), which the sandbox never has: no `pendingDataCleanup`.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog import draining
from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.catalog.cluster import SHARDS, Cluster
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.versions import VersionProfile


def _drain_commands(version: VersionProfile) -> bool:
    return version.has_shard_draining_commands


def _shard_arg(request: Request) -> str:
    name = request.arg
    if not isinstance(name, str):
        raise rules.wrong_type(request.name, "string", name)
    if request.sandbox.cluster.shard_doc(name) is None:
        # ShardRegistry::getShard, before the command's own checks.
        raise CommandError.of("ShardNotFound", f"Shard {name} not found")
    return name


def _check_preconditions(cluster: Cluster, name: str) -> None:
    """The checks every removeShard call and startShardDraining run, in the server's order."""
    newer = cluster.version.has_shard_draining_commands
    others = [d for d in cluster.shard_docs() if d["_id"] != name and not d.get("draining", False)]
    if not others:
        verb = "drain" if newer else "remove"
        raise CommandError.of(
            "IllegalOperation", f"Operation not allowed because it would {verb} the last shard"
        )
    for zone in cluster.shard_zones(name):
        if cluster.shards_in_zone(zone) == [name] and cluster.zone_has_ranges(zone):
            # Message verbatim, grammar included (5.0-8.0); 8.3 rewords it.
            message = (
                f"Operation not allowed because there is no other shard in zone {zone} to drain to."
                if newer
                else f"Operation not allowed because it would remove the only shard for zone "
                f"{zone} which has a chunk range is associated with it"
            )
            raise CommandError.of("ZoneStillInUse", message)


def _start(cluster: Cluster, name: str) -> bool:
    """Mark the shard draining (True) or leave it as it is when it already drains."""
    if cluster.is_draining(name):
        return False
    cluster.log_change("removeShard.start", "", {"shard": name})
    cluster.set_shard_field(name, "draining", True)
    return True


def _commit(cluster: Cluster, name: str) -> None:
    cluster.coll(SHARDS).remove(name)
    cluster.log_change("removeShard", "", {"shard": name})


@command("removeShard", aliases=("removeshard",), admin_only=True)
def remove_shard(request: Request) -> dict[str, Any]:
    cluster = request.sandbox.cluster
    name = _shard_arg(request)
    _check_preconditions(cluster, name)
    if _start(cluster, name):
        return draining.reply(cluster, name, "started")
    progress = draining.progress(cluster, name)
    if not progress.fully_drained:
        return draining.reply(cluster, name, "ongoing", progress)
    _commit(cluster, name)
    return draining.reply(cluster, name, "completed")


@command("startShardDraining", admin_only=True, exists_in=_drain_commands)
def start_shard_draining(request: Request) -> dict[str, Any]:
    """8.3: mark the shard draining; a shard already draining is left as it is."""
    cluster = request.sandbox.cluster
    name = _shard_arg(request)
    _check_preconditions(cluster, name)
    _start(cluster, name)
    return {}


@command(
    "shardDrainingStatus",
    admin_only=True,
    supports_write_concern=False,
    exists_in=_drain_commands,
)
def shard_draining_status(request: Request) -> dict[str, Any]:
    """8.3: read-only progress, `ongoing` or `drainingComplete`."""
    cluster = request.sandbox.cluster
    name = _shard_arg(request)
    if not cluster.is_draining(name):
        raise CommandError.of("IllegalOperation", f"The shard {name} isn't draining")
    progress = draining.progress(cluster, name)
    if progress.fully_drained:
        return draining.reply(cluster, name, "drainingComplete")
    return draining.reply(cluster, name, "ongoing", progress)


@command("commitShardRemoval", admin_only=True, exists_in=_drain_commands)
def commit_shard_removal(request: Request) -> dict[str, Any]:
    """8.3: remove a drained shard (RemoveShardCommitCoordinator)."""
    cluster = request.sandbox.cluster
    name = _shard_arg(request)
    if not cluster.is_draining(name):
        raise CommandError.of(
            "ConflictingOperationInProgress", f"Shard {name} is not currently draining"
        )
    if not draining.progress(cluster, name).fully_drained:
        raise CommandError.of(
            "IllegalOperation",
            f"The shard {name} isn't completely drained. Please use the shardDrainingStatus "
            "command to check the draining status",
        )
    _commit(cluster, name)
    return {}


@command("stopShardDraining", admin_only=True, exists_in=_drain_commands)
def stop_shard_draining(request: Request) -> dict[str, Any]:
    """8.3: the shard is no longer draining and receives chunks again; no-op otherwise."""
    cluster = request.sandbox.cluster
    name = _shard_arg(request)
    if cluster.is_draining(name):
        cluster.log_change("removeShard.stopShardDraining", "", {"shard": name})
        cluster.set_shard_field(name, "draining", None)
    return {}


# jstests/noPassthrough/transition_to_catalog_shard_feature_flag.js: with
# featureFlagTransitionToCatalogShard off (7.0's default) a mongos answers 7368401.
_TRANSITION_DISABLED = 7368401


@command(
    "transitionToDedicatedConfigServer",
    admin_only=True,
    exists_in=lambda version: version.version_array[0] >= 7,
)
def transition_to_dedicated_config_server(request: Request) -> dict[str, Any]:
    """The sandbox's config server is always dedicated (never a config shard): 7.0 has the
    feature off; 8.0+ removes shard "config", which config.shards does not hold
    (`removeShard`'s own lookup: ShardNotFound "Shard config does not exist";
    jstests/libs/shard_transition_util.js takes ShardNotFound as "already dedicated")."""
    if request.sandbox.version.version_array[0] < 8:
        raise CommandError.assertion(
            _TRANSITION_DISABLED, "The transition to config shard feature is disabled"
        )
    raise CommandError.of("ShardNotFound", "Shard config does not exist")
