"""Built-in roles and the privileges they grant: may these roles do `action` on `resource`?

Role privileges follow MongoDB's built-in roles (mongo:src/mongo/db/auth/
role_graph_builtin_roles.cpp; manual "Built-In Roles"): `readAnyDatabase` and
`readWriteAnyDatabase` do NOT cover `config`/`local` since 3.4; `clusterMonitor` and
`clusterManager` do read (and clusterManager writes) the `config` database.
"""

from __future__ import annotations

from collections.abc import Iterable

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
        # 7.0+: $listSampledQueries (manual: "requires the clusterMonitor role")
        "listSampledQueries",
        # 8.0.10+/8.1: $listClusterCatalog on admin (mongo's jstest "privileges of using
        # $listClusterCatalog": clusterMonitor may run it on admin, `read` on admin may not)
        "listClusterCatalog",
    }
)  # fmt: skip
MANAGER_CLUSTER = frozenset(
    {
        "addShard", "removeShard", "listShards", "flushRouterConfig", "enableSharding",
        "setFeatureCompatibilityVersion", "cleanupOrphaned", "listSessions",
        "transitionToDedicatedConfigServer",
    }
)  # fmt: skip
MANAGER_ANY_DB = frozenset(
    {
        "enableSharding", "moveChunk", "splitChunk", "splitVector", "clearJumboFlag",
        "refineCollectionShardKey", "reshardCollection", "abortReshardCollection",
        "commitReshardCollection",
        # 7.0+: clusterManager's database action set has analyzeShardKey (and
        # configureQueryAnalyzer): mongo:src/mongo/db/auth/builtin_roles (clusterManager)
        "analyzeShardKey", "configureQueryAnalyzer",
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


# clusterMonitor's actions on any database (role_graph_builtin_roles.cpp:
# clusterMonitorRoleDatabaseActions, granted on forAnyNormalResource()).
MONITOR_ANY_DB = frozenset({"collStats", "dbStats", "indexStats"})


def _monitor() -> Privileges:
    return (
        ("cluster", MONITOR_CLUSTER),
        ("anyNormal", MONITOR_ANY_DB),
        ("db:config", READ),
        ("db:local", READ),
    )


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
