"""Users, built-in roles and the one table saying which privileges each command needs.

Role privileges follow MongoDB's built-in roles (mongo:src/mongo/db/auth/
role_graph_builtin_roles.cpp; manual "Built-In Roles"): `readAnyDatabase` and
`readWriteAnyDatabase` do NOT cover `config`/`local` since 3.4; `clusterMonitor` and
`clusterManager` do read (and clusterManager writes) the `config` database. The messages come
from mongo:src/mongo/db/commands.cpp (`checkAuthorizationImplPreParse`,
`CommandInvocation::checkAuthorization`).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bson import Binary, Int64, ObjectId, Timestamp
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.registry import CommandSpec, Request
from zonectl.sandbox.scram import Credentials, make_credentials


@dataclass(frozen=True)
class User:
    name: str
    db: str
    password: str
    # Each role is "role" (on the user's db), "role@db", or a (role, db) pair.
    roles: tuple[str | tuple[str, str], ...] = ()

    def role_names(self) -> tuple[str, ...]:
        """Roles as "role@db" strings (what `Session.roles` holds)."""
        out = []
        for role in self.roles:
            if isinstance(role, tuple):
                out.append(f"{role[0]}@{role[1]}")
            elif "@" in role:
                out.append(role)
            else:
                out.append(f"{role}@{self.db}")
        return tuple(out)


@dataclass
class AuthConfig:
    users: Sequence[User] = ()
    iterations_sha256: int = 15000  # scramIterationCount defaults (SCRAM-SHA-256 / SHA-1)
    iterations_sha1: int = 10000
    _creds: dict[tuple[str, str, str], Credentials] = field(default_factory=dict, repr=False)

    def find(self, name: str, db: str) -> User | None:
        return next((u for u in self.users if u.name == name and u.db == db), None)

    def credentials(self, user: User, mechanism: str) -> Credentials:
        key = (user.db, user.name, mechanism)
        if key not in self._creds:
            iterations = (
                self.iterations_sha256 if mechanism == "SCRAM-SHA-256" else self.iterations_sha1
            )
            self._creds[key] = make_credentials(user.name, user.password, mechanism, iterations)
        return self._creds[key]


# --- privileges ---------------------------------------------------------------------------

READ = frozenset(
    {"find", "listCollections", "listIndexes", "collStats", "dbStats", "dbHash", "killCursors"}
)
WRITE = frozenset(
    {"insert", "update", "remove", "createCollection", "dropCollection", "createIndex"}
)
MONITOR_CLUSTER = frozenset(
    {
        "serverStatus", "listShards", "getParameter", "hostInfo", "getCmdLineOpts", "getLog",
        "listDatabases", "connPoolStats", "inprog", "netstat", "top", "getShardMap",
        # 6.0.3+: $shardedDataDistribution's own action, in clusterMonitor (SERVER-95999)
        "shardedDataDistribution",
    }
)  # fmt: skip
MANAGER_CLUSTER = frozenset(
    {
        "addShard", "removeShard", "listShards", "flushRouterConfig", "enableSharding",
        "setFeatureCompatibilityVersion", "cleanupOrphaned", "listSessions",
    }
)  # fmt: skip
MANAGER_ANY_DB = frozenset(
    {
        "enableSharding", "moveChunk", "splitChunk", "splitVector", "clearJumboFlag",
        "refineCollectionShardKey", "reshardCollection",
        # 7.0+: clusterManager's database action set has analyzeShardKey (and
        # configureQueryAnalyzer): mongo:src/mongo/db/auth/builtin_roles (clusterManager)
        "analyzeShardKey",
    }
)  # fmt: skip

# A pattern is "cluster", "any" (root), "anyNormal" (every db but config/local),
# or "db:<name>" (the non-system collections of one database).
Privileges = tuple[tuple[str, frozenset[str]], ...]


def _manager() -> Privileges:
    return (
        ("cluster", MANAGER_CLUSTER),
        ("anyNormal", MANAGER_ANY_DB),
        ("db:config", READ | WRITE | MANAGER_ANY_DB),
    )


def _monitor() -> Privileges:
    return (("cluster", MONITOR_CLUSTER), ("db:config", READ), ("db:local", READ))


def role_privileges(role: str, db: str) -> Privileges:
    """Privileges one built-in role grants when defined on `db`."""
    if role == "read":
        return ((f"db:{db}", READ),)
    if role in ("readWrite", "dbOwner"):
        return ((f"db:{db}", READ | WRITE),)
    if db != "admin":
        return ()  # every other built-in role exists only on admin
    if role == "readAnyDatabase":
        return (("anyNormal", READ), ("cluster", frozenset({"listDatabases"})))
    if role == "readWriteAnyDatabase":
        return (("anyNormal", READ | WRITE), ("cluster", frozenset({"listDatabases"})))
    if role == "clusterMonitor":
        return _monitor()
    if role == "clusterManager":
        return _manager()
    if role == "clusterAdmin":
        return (*_manager(), *_monitor(), ("anyNormal", frozenset({"dropDatabase"})))
    if role == "root":
        return (("any", frozenset({"*"})),)
    return ()


def is_allowed(roles: Iterable[str], resource: str, action: str) -> bool:
    """`resource` is "cluster" or a namespace "db.coll"."""
    for spec in roles:
        role, _, db = spec.partition("@")
        for pattern, actions in role_privileges(role, db):
            if "*" not in actions and action not in actions:
                continue
            if _matches(pattern, resource):
                return True
    return False


def _matches(pattern: str, resource: str) -> bool:
    if pattern == "any":
        return True
    if resource == "cluster" or pattern == "cluster":
        return pattern == resource
    db, _, coll = resource.partition(".")
    if coll.startswith("system."):
        return False
    if pattern == "anyNormal":
        return db not in ("config", "local")
    return pattern == f"db:{db}"


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
    "clearJumboFlag": [[("{ns}", "clearJumboFlag")]],
    "enableSharding": [[("{ns}", "enableSharding")]],
    "shardCollection": [[("{ns}", "enableSharding")]],
    "addShard": [[("cluster", "addShard")]],
    "removeShard": [[("cluster", "removeShard")]],
    "listShards": [[("cluster", "listShards")]],
    "flushRouterConfig": [[("cluster", "flushRouterConfig")]],
    "find": [[("{ns}", "find")]],
    "count": [[("{ns}", "find")]],
    "distinct": [[("{ns}", "find")]],
    "aggregate": [[("{ns}", "find")]],
    "listCollections": [[("{ns}", "listCollections")]],
    "listIndexes": [[("{ns}", "listIndexes")]],
    "insert": [[("{ns}", "insert")]],
    "update": [[("{ns}", "update")]],
    "delete": [[("{ns}", "remove")]],
    "findAndModify": [[("{ns}", "find"), ("{ns}", "update")]],
    "createIndexes": [[("{ns}", "createIndex")]],
    "create": [[("{ns}", "createCollection")]],
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
