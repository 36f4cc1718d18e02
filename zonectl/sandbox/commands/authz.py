"""Authorization of one command request: the table of privileges each command needs.

The messages come from mongo:src/mongo/db/commands.cpp (`checkAuthorizationImplPreParse`,
`CommandInvocation::checkAuthorization`); what each role grants is in `auth.roles`.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from typing import Any

from bson import Binary, Int64, ObjectId, Timestamp
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.auth.roles import is_allowed
from zonectl.sandbox.commands.registry import CommandSpec, Request
from zonectl.sandbox.errors import CommandError

# One central table: command -> alternatives, each a list of (resource, action) all required.
# `{ns}` is the command's namespace. Sources: the router command files' checkAuthForOperation
# (reference §1.1 zone commands, §3.1 balancer commands), and the CRUD commands' actions.
Need = list[list[tuple[str, str]]]
_ZONE_SHARD = [[("cluster", "enableSharding")], [("config.shards", "update")]]
_ZONE_RANGE = [
    [("cluster", "enableSharding")],
    [("config.shards", "find"), ("config.tags", "find"), ("config.tags", "update"),
     ("config.tags", "remove")],
]  # fmt: skip
COMMAND_PRIVILEGES: dict[str, Need] = {
    "addShardToZone": _ZONE_SHARD,
    "removeShardFromZone": _ZONE_SHARD,
    "updateZoneKeyRange": _ZONE_RANGE,
    "balancerStart": [[("config.settings", "update")]],
    "balancerStop": [[("config.settings", "update")]],
    "balancerStatus": [[("config.settings", "find")]],
    "balancerCollectionStatus": [[("{ns}", "enableSharding")]],
    "configureCollectionBalancing": [[("{ns}", "enableSharding")]],
    "moveChunk": [[("{ns}", "moveChunk")]],
    "moveRange": [[("{ns}", "moveChunk")]],
    "split": [[("{ns}", "splitChunk")]],
    "mergeChunks": [[("{ns}", "splitChunk")]],
    "mergeAllChunksOnShard": [[("{ns}", "splitChunk")]],  # cluster_merge_all_chunks_on_shard
    "clearJumboFlag": [[("{ns}", "clearJumboFlag")]],
    "enableSharding": [[("{ns}", "enableSharding")]],
    "shardCollection": [[("{ns}", "enableSharding")]],
    "moveCollection": [[("{ns}", "enableSharding")]],  # manual: the enableSharding role
    # Their own action types on the namespace (mongo:src/mongo/db/auth/action_type.idl);
    # clusterManager grants them on any database.
    "refineCollectionShardKey": [[("{ns}", "refineCollectionShardKey")]],
    "reshardCollection": [[("{ns}", "reshardCollection")]],
    "abortReshardCollection": [[("{ns}", "abortReshardCollection")]],
    "commitReshardCollection": [[("{ns}", "commitReshardCollection")]],
    "addShard": [[("cluster", "addShard")]],
    "removeShard": [[("cluster", "removeShard")]],
    # 8.3's draining commands: the removeShard action on the cluster (inferred: the manual
    # names clusterManager for each, whose removeShard action they share).
    "startShardDraining": [[("cluster", "removeShard")]],
    "shardDrainingStatus": [[("cluster", "removeShard")]],
    "commitShardRemoval": [[("cluster", "removeShard")]],
    "stopShardDraining": [[("cluster", "removeShard")]],
    # action_type.idl: transitionToDedicatedConfigServer (clusterManager)
    "transitionToDedicatedConfigServer": [[("cluster", "transitionToDedicatedConfigServer")]],
    "listShards": [[("cluster", "listShards")]],
    "flushRouterConfig": [[("cluster", "flushRouterConfig")]],
    "find": [[("{ns}", "find")]],
    "count": [[("{ns}", "find")]],
    "dataSize": [[("{ns}", "find")]],  # cluster_data_size_cmd.cpp: find on the namespace
    "distinct": [[("{ns}", "find")]],
    "aggregate": [[("{ns}", "find")]],
    "listCollections": [[("{ns}", "listCollections")]],
    "collStats": [[("{ns}", "collStats")]],
    # cluster_db_stats_cmd.cpp checkAuthForOperation: dbStats on the database
    "dbStats": [[("{ns}", "dbStats")]],
    "listIndexes": [[("{ns}", "listIndexes")]],
    "insert": [[("{ns}", "insert")]],
    "update": [[("{ns}", "update")]],
    "delete": [[("{ns}", "remove")]],
    "findAndModify": [[("{ns}", "find"), ("{ns}", "update")]],
    "createIndexes": [[("{ns}", "createIndex")]],
    "create": [[("{ns}", "createCollection")]],
    "collMod": [[("{ns}", "collMod")]],
    "drop": [[("{ns}", "dropCollection")]],
    "dropDatabase": [[("{ns}", "dropDatabase")]],
    "listDatabases": [],  # filtered to what the user may see (authorizedDatabases)
    "serverStatus": [[("cluster", "serverStatus")]],
    "getCmdLineOpts": [[("cluster", "getCmdLineOpts")]],
    "getLog": [[("cluster", "getLog")]],
    "hostInfo": [[("cluster", "hostInfo")]],
    "getParameter": [[("cluster", "getParameter")]],
}
# Commands any authenticated user may run (no privilege check in their command classes).
OPEN_TO_AUTHENTICATED = frozenset(
    {
        "ping", "buildInfo", "connectionStatus", "endSessions", "whatsmyuri", "getMore",
        "killCursors", "logout", "hello", "isMaster", "saslStart", "saslContinue",
        "getnonce", "authenticate", "listCommands", "startSession", "killSessions",
    }
)  # fmt: skip


def check(spec: CommandSpec, request: Request) -> None:
    """Raise Unauthorized as MongoDB words it; called by dispatch only when auth is on."""
    session = request.session
    if session.user is None:
        if spec.requires_auth:
            raise CommandError.of("Unauthorized", f"command {spec.name} requires authentication")
        return
    if "root@admin" in session.roles or spec.name in OPEN_TO_AUTHENTICATED:
        return
    allowed = spec.authorize(request) if spec.authorize else _allowed_by_table(spec, request)
    if not allowed:
        raise CommandError.of(
            "Unauthorized",
            f"not authorized on {request.db} to execute command {shell_repr(_snipped(request))}",
        )


def _allowed_by_table(spec: CommandSpec, request: Request) -> bool:
    need = COMMAND_PRIVILEGES.get(spec.name)
    if need is None:
        return False  # unknown to the table: only root may run it
    if not need:
        return True
    ns = command_namespace(request)
    return any(
        all(is_allowed(request.session.roles, ns if r == "{ns}" else r, a) for r, a in alt)
        for alt in need
    )


def command_namespace(request: Request) -> str:
    """The namespace a command acts on: "db.coll" for collection commands, "db." else."""
    arg = request.body.get(request.name)
    if isinstance(arg, str) and arg:
        return arg if "." in arg and request.db == "admin" else f"{request.db}.{arg}"
    return f"{request.db}."


def _snipped(request: Request) -> Mapping[str, Any]:
    # Command::snipForLogging replaces sensitive fields (passwords, SASL payloads) with "xxx".
    return {k: ("xxx" if k in ("pwd", "payload") else v) for k, v in request.body.items()}


def shell_repr(value: Any) -> str:
    """BSONObj::toString formatting: `{ a: "x", n: 1, d: 1.5, b: true }`."""
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}: {shell_repr(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    if isinstance(value, list | tuple):
        return "[ " + ", ".join(shell_repr(v) for v in value) + " ]" if value else "[]"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, str):
        return '"' + value + '"'
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, Int64 | int):
        return str(int(value))
    if isinstance(value, ObjectId):
        return f"ObjectId('{value}')"
    if isinstance(value, Timestamp):
        return f"Timestamp({value.time}, {value.inc})"
    if isinstance(value, MinKey):
        return "MinKey"
    if isinstance(value, MaxKey):
        return "MaxKey"
    if isinstance(value, uuid.UUID):
        return f'UUID("{value}")'
    if isinstance(value, Binary):
        if value.subtype == 4 and len(value) == 16:
            return f'UUID("{uuid.UUID(bytes=bytes(value))}")'
        return f"BinData({value.subtype}, {bytes(value).hex().upper()})"
    return str(value)


AuthorizeFn = Callable[[Request], bool]


def requires(*pairs: tuple[str, str]) -> AuthorizeFn:
    """An `authorize=` callable for CommandSpec: every (resource, action) must be granted;
    "{ns}" stands for the command's namespace."""

    def authorize(request: Request) -> bool:
        ns = command_namespace(request)
        return all(is_allowed(request.session.roles, ns if r == "{ns}" else r, a) for r, a in pairs)

    return authorize
