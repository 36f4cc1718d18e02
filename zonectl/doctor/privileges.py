"""Which privileges each zonectl command needs, from what it actually sends, and which of
them a user's connectionStatus privileges lack.

Actions per command: the zone commands' router files (reference §1.1: `enableSharding` on
the cluster, or `update` on config.shards / find on config.shards + find, update, remove on
config.tags), balancerStart/Stop/Status (§3.1: update / find on config.settings), plain
find/update on config.* and on zonectl's own database (the lease's findAndModify upsert
needs find, insert and update; its release needs remove), and moveChunk/moveRange (action
`moveChunk`) and split (`splitChunk`) on the namespace for `apply --migrate`.
Matching follows mongo:src/mongo/db/auth/resource_pattern_search_list.h.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.doctor.facts import Privilege

# (resource, action); resource "cluster", "db.coll", "{db}.coll" (zonectl's own database)
# or "{ns}" (each managed namespace).
Pair = tuple[str, str]


@dataclass(frozen=True)
class Need:
    """What one step needs: any one of `alternatives`, each a set of pairs all required."""

    what: str
    alternatives: tuple[tuple[Pair, ...], ...]
    optional: bool = False  # the command copes without it (a warning, not a failure)


def _one(what: str, *pairs: Pair, optional: bool = False) -> Need:
    return Need(what, (pairs,), optional)


_READ_CONFIG = _one(
    "read the config metadata",
    ("config.shards", "find"), ("config.tags", "find"), ("config.collections", "find"),
    ("config.settings", "find"), ("config.chunks", "find"),
)  # fmt: skip
_BALANCER_STATUS = _one("balancerStatus", ("config.settings", "find"))
_ZONE_MEMBERSHIP = Need(
    "addShardToZone/removeShardFromZone",
    ((("cluster", "enableSharding"),), (("config.shards", "update"),)),
)
_ZONE_RANGES = Need(
    "updateZoneKeyRange",
    (
        (("cluster", "enableSharding"),),
        (("config.shards", "find"), ("config.tags", "find"), ("config.tags", "update"),
         ("config.tags", "remove")),
    ),
)  # fmt: skip
_NO_BALANCE = _one("pause a collection's balancing (noBalance)", ("config.collections", "update"))
_BALANCER_SWITCH = _one(
    "balancerStart/balancerStop and the active window",
    ("config.settings", "update"), ("config.settings", "insert"),
)  # fmt: skip
_MIGRATIONS = _one("wait for migrations in flight", ("config.migrations", "find"))
_LEASE = _one(
    "the lease in zonectl's database",
    ("{db}.locks", "find"), ("{db}.locks", "insert"), ("{db}.locks", "update"),
    ("{db}.locks", "remove"),
)  # fmt: skip
_JOURNAL = _one(
    "the journal and audit in zonectl's database",
    ("{db}.journal", "find"), ("{db}.journal", "insert"), ("{db}.journal", "update"),
    ("{db}.audit", "insert"),
)  # fmt: skip
_READ_OWN = _one(
    "read the lease and journal", ("{db}.locks", "find"), ("{db}.journal", "find"), optional=True
)
_MOVE = _one(
    "apply --migrate: moveChunk/moveRange and split",
    ("{ns}", "moveChunk"), ("{ns}", "splitChunk"), optional=True,
)  # fmt: skip
_COLLECTION_STATUS = _one("balancerCollectionStatus", ("{ns}", "enableSharding"), optional=True)
_DATA_DISTRIBUTION = _one(
    "$shardedDataDistribution (6.0.3+)", ("cluster", "shardedDataDistribution"), optional=True
)
# The forecast learns the cluster's migration speed from config.changelog; without it the
# rate is assumed (docs/migration.md).
_HISTORY = _one("the forecast's migration history", ("config.changelog", "find"), optional=True)

# Query sampling (7.0+): `sampling:` in a policy is written by configureQueryAnalyzer (its
# action on the exact namespace: configure_query_analyzer_cmd.cpp) after reading
# config.queryAnalyzers; analyze's workload figures come from analyzeShardKey, and the
# samples behind them are listed by $listSampledQueries (clusterMonitor's action).
_READ_ANALYZERS = _one(
    "read config.queryAnalyzers (sampling:, 7.0+)",
    ("config.queryAnalyzers", "find"),
    optional=True,
)
_QUERY_ANALYZER = _one(
    "configureQueryAnalyzer (sampling:, 7.0+)", ("{ns}", "configureQueryAnalyzer"), optional=True
)
_ANALYZE_KEY = _one("analyzeShardKey (7.0+)", ("{ns}", "analyzeShardKey"), optional=True)
_LIST_SAMPLED = _one(
    "$listSampledQueries: the samples behind analyze's read/write figures (7.0+)",
    ("cluster", "listSampledQueries"),
    optional=True,
)

_WRITE = (_READ_CONFIG, _BALANCER_STATUS, _LEASE, _JOURNAL, _MIGRATIONS, _ZONE_MEMBERSHIP,
          _ZONE_RANGES, _NO_BALANCE, _BALANCER_SWITCH)  # fmt: skip
COMMANDS: Mapping[str, tuple[Need, ...]] = {
    "plan": (_READ_CONFIG, _BALANCER_STATUS, _HISTORY, _READ_ANALYZERS),
    "apply": (*_WRITE, _MOVE, _READ_ANALYZERS, _QUERY_ANALYZER),
    "rotate": _WRITE,
    "status": (
        _READ_CONFIG,
        _BALANCER_STATUS,
        _READ_OWN,
        _COLLECTION_STATUS,
        _DATA_DISTRIBUTION,
        _HISTORY,
    ),
    "export": (_READ_CONFIG, _BALANCER_STATUS),
    "recover": (_BALANCER_STATUS, _LEASE, _JOURNAL, _NO_BALANCE, _BALANCER_SWITCH),
    "analyze": (_READ_CONFIG, _ANALYZE_KEY, _READ_ANALYZERS, _LIST_SAMPLED, _DATA_DISTRIBUTION),
}


@dataclass(frozen=True)
class Missing:
    need: Need
    lacking: tuple[Pair, ...]  # of the alternative closest to being granted


def is_granted(held: Iterable[Privilege], resource: str, action: str) -> bool:
    """True when some privilege grants `action` on `resource` ("cluster" or "db.coll")."""
    return any(action in p.actions and _matches(p.resource, resource) for p in held)


def _matches(doc: Mapping[str, Any], resource: str) -> bool:
    if doc.get("anyResource") is True:
        return True
    if resource == "cluster":
        return doc.get("cluster") is True
    if "db" not in doc or "collection" not in doc:
        return False
    db, _, coll = resource.partition(".")
    want_db, want_coll = str(doc["db"]), str(doc["collection"])
    if coll.startswith("system."):  # only an exact or any-db pattern names a system collection
        return want_coll == coll and want_db in ("", db)
    if not want_db and not want_coll:  # every normal resource: never config or local
        return db not in ("config", "local")
    if not want_coll:
        return want_db == db
    return want_coll == coll and want_db in ("", db)


def find_missing(
    held: Sequence[Privilege], needs: Sequence[Need], *, database: str, namespaces: Sequence[str]
) -> list[Missing]:
    """The needs no alternative of which `held` grants in full; `{ns}` is checked for every
    one of `namespaces` (a need on `{ns}` with no namespaces is skipped)."""
    missing: list[Missing] = []
    for need in needs:
        best: tuple[Pair, ...] | None = None
        for alternative in need.alternatives:
            resolved = _resolve(alternative, database, namespaces)
            if resolved is None:
                best = ()
                break
            lacking = tuple(pair for pair in resolved if not is_granted(held, *pair))
            if best is None or len(lacking) < len(best):
                best = lacking
        if best:
            missing.append(Missing(need, best))
    return missing


def _resolve(
    alternative: tuple[Pair, ...], database: str, namespaces: Sequence[str]
) -> tuple[Pair, ...] | None:
    out: list[Pair] = []
    for resource, action in alternative:
        if resource == "{ns}":
            if not namespaces:
                return None
            out.extend((ns, action) for ns in namespaces)
        else:
            out.append((resource.replace("{db}", database), action))
    return tuple(out)
