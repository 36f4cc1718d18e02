"""reshardCollection (5.0+), abortReshardCollection and commitReshardCollection.

reshardCollection's checks (mongo:jstests/sharding/reshard_collection_basic.js; the config
server's mongo:src/mongo/db/s/config/configsvr_reshard_collection_cmd.cpp; the shard's
mongo:src/mongo/db/s/reshard_collection_coordinator.cpp), in order:
- `key` missing: IDLFailedToParse (40414); unknown fields are ignored (the IDL is
  `strict: false`), so before 7.2 `forceRedistribution` is silently dropped;
- a feature compatibility version below the feature (commands/fcv_gates.py): 5.0 at FCV 4.4
  CommandNotSupported; 8.0 at FCV 7.0 with `forceRedistribution` InvalidOptions;
- no such database or collection: NamespaceNotFound; unsharded (or 8.0 unsplittable):
  NamespaceNotSharded; a view: IllegalOperation (the coordinator's comment: views fail
  "with IllegalOperation" for compatibility); a sharded time-series collection:
  NotImplemented;
- a bad key pattern (two hashed fields...): BadValue; `unique: true`: BadValue "The unique
  field must be false"; a collation other than {locale: "simple"}: BadValue;
- 7.2+ `forceRedistribution: true` with another key: InvalidOptions;
- ranges in config.tags and no `zones`: BadValue "Must specify value for zones field";
- a zone no shard carries: 4952607; more chunks asked of an empty collection than its
  documents allow: 4952606;
- the same key as now (and no forceRedistribution): ok, nothing happens;
- another resharding (or moveCollection) running: ReshardCollectionInProgress (338); the
  same request again joins the running one.
The command answers when the resharding commits, or ReshardCollectionAborted (341) when it
is aborted. abortReshardCollection: NoSuchReshardCollection (339) when none runs for the
namespace, ReshardCollectionCommitted (340) once the decision is persisted
(mongo:src/mongo/db/s/config/configsvr_abort_reshard_collection_command.cpp).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.balancer import resharding
from zonectl.sandbox.catalog import unsharded
from zonectl.sandbox.catalog.shard_collection import parse_key
from zonectl.sandbox.commands.fcv_gates import reject_without_improvements, require_resharding
from zonectl.sandbox.commands.move_rules import typed_namespace
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import compare, encode
from zonectl.sandbox.tostring import to_string


def _has_force_redistribution(request: Request) -> bool:
    return request.sandbox.version.version_array[:2] >= [7, 2]


@command("reshardCollection", admin_only=True)
def reshard_collection(request: Request) -> dict[str, Any]:
    ns = typed_namespace(request)
    body = request.body
    if "key" not in body:
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'reshardCollection.key' is missing but a required field"
        )
    cluster = request.sandbox.cluster
    require_resharding(request, "reshardCollection")
    _check_namespace(request, ns)
    if "forceRedistribution" in body:
        reject_without_improvements(request, "forceRedistribution")
    key = parse_key(body, "reshardCollection")
    if body.get("unique", False):
        raise CommandError.of("BadValue", "The unique field must be false")
    collation = body.get("collation")
    if collation is not None and dict(collation) != {"locale": "simple"}:
        raise CommandError.of(
            "BadValue",
            "The collation for reshardCollection must be {locale: 'simple'}, but found: "
            f"{to_string(collation)}",
        )
    current = cluster.key_pattern(ns) or {}
    force = _has_force_redistribution(request) and bool(body.get("forceRedistribution"))
    if force and key != current:
        raise CommandError.of(
            "InvalidOptions",
            "The new shard key must be the same as the original shard key when using the "
            "forceRedistribution option. The forceRedistribution option is meant for "
            "redistributing the collection to a different set of shards.",
        )
    zones = _parse_zones(request, key)
    if cluster.zone_ranges(ns) and zones is None:
        raise CommandError.of("BadValue", "Must specify value for zones field")
    running = resharding.find(cluster, ns)
    if running is not None and running.key == key:
        return _await(request, running)  # the same request again joins the running one
    if key == current and not force:
        return {}  # "There isn't any work to be done by the resharding operation"
    _check_none_running(request)
    num = body.get("numInitialChunks")
    if num is not None:
        _check_cardinality(request, ns, key, int(num))
    costs = request.sandbox.balancer.costs
    op = resharding.start(cluster, ns, key, zones, int(num) if num else None, costs.rate)
    return _await(request, op)


def _check_namespace(request: Request, ns: str) -> None:
    cluster = request.sandbox.cluster
    kind = unsharded.kind_of(cluster, ns)
    if cluster.database_doc(ns.split(".", 1)[0]) is None and cluster.chunks(ns) is None:
        raise CommandError.of("NamespaceNotFound", f"database {ns.split('.', 1)[0]} not found")
    if kind == "view":
        raise CommandError.of("IllegalOperation", f"Can't reshard a view: {ns}")
    if not cluster.is_sharded(ns):  # unsharded, or 8.0 unsplittable
        raise CommandError.of("NamespaceNotSharded", "Collection has to be a sharded collection.")
    doc = cluster.collection_doc(ns) or {}
    if kind == "timeseries" or doc.get("timeseriesFields"):
        raise CommandError.of(
            "NotImplemented",
            "reshardCollection command of a sharded time-series collection is not supported",
        )


def _parse_zones(request: Request, key: Mapping[str, Any]) -> list[dict[str, Any]] | None:
    zones = request.body.get("zones")
    if zones is None:
        return None
    cluster = request.sandbox.cluster
    out = []
    for zone in zones:
        if not isinstance(zone, Mapping) or "min" not in zone or "max" not in zone:
            raise CommandError.of("BadValue", "each zone needs min, max and zone")
        lo, hi = dict(zone["min"]), dict(zone["max"])
        if list(lo) != list(key) or list(hi) != list(key):
            raise CommandError.of(
                "InvalidOptions",  # inferred: the zone must be written in the new key
                f"zone {to_string(lo)} -->> {to_string(hi)} does not match the new "
                f"shard key {to_string(key)}",
            )
        name = zone.get("zone")
        if name is not None and not cluster.shards_in_zone(str(name)):
            raise CommandError.assertion(4952607, f"Zone {name} does not exist on any shard")
        out.append({"zone": name, "min": lo, "max": hi})
    ordered = sorted(out, key=lambda z: encode(z["min"]))
    for a, b in itertools.pairwise(ordered):
        if compare(a["max"], b["min"]) > 0:
            raise CommandError.of(
                "BadValue",
                f"Zone range {to_string(b['min'])} -->> {to_string(b['max'])} overlaps "
                f"{to_string(a['min'])} -->> {to_string(a['max'])}",
            )
    return out


def _check_none_running(request: Request) -> None:
    cluster = request.sandbox.cluster
    for doc in cluster.coll(unsharded.RESHARDING_OPERATIONS):
        raise CommandError.of(
            "ReshardCollectionInProgress",
            "Only one resharding operation is allowed to be active at a time, aborting "
            f"resharding op for {doc.get('ns')}",
        )


def _check_cardinality(request: Request, ns: str, key: Mapping[str, Any], num: int) -> None:
    data = request.sandbox.cluster.catalog.get(ns)
    held = list(data) if data is not None else []
    size, _ = unsharded.size_of(request.sandbox.cluster, ns)
    if held or size == 0:
        distinct = {encode({f: d.get(f) for f in key}) for d in held}
        if num > max(len(distinct), 1):
            raise CommandError.assertion(
                4952606,
                "The shard key provided does not have enough cardinality to make the "
                f"required number of chunks of {num}, it can only have {max(len(distinct), 1)}"
                " chunks",
            )


def _await(request: Request, op: resharding.Resharding) -> dict[str, Any]:
    """Sleep through the phases (releasing the lock); answer when the resharding ends."""
    sandbox = request.sandbox
    cluster = sandbox.cluster
    while op.outcome is None:
        resharding.refresh(cluster, op)
        if op.outcome is not None:
            break
        sandbox.balancer.sleep_until(
            resharding.next_instant(cluster, op), lambda: op.outcome is not None
        )
    if op.outcome == "aborted":
        raise CommandError.of(
            "ReshardCollectionAborted", "Resharding operation was aborted by the user"
        )
    return {}


@command("abortReshardCollection", admin_only=True)
def abort_reshard_collection(request: Request) -> dict[str, Any]:
    ns = typed_namespace(request)
    require_resharding(request, "abortReshardCollection")
    cluster = request.sandbox.cluster
    op = resharding.find(cluster, ns)
    if op is not None:
        resharding.refresh(cluster, op)
    if op is None or op.outcome == "committed":
        if op is not None:
            raise CommandError.of(
                "ReshardCollectionCommitted",
                "Can't abort resharding operation after the decision has been persisted",
            )
        raise CommandError.of(
            "NoSuchReshardCollection", f"Could not find an active resharding operation for {ns}"
        )
    if not resharding.abort(cluster, op):
        raise CommandError.of(
            "ReshardCollectionCommitted",
            "Can't abort resharding operation after the decision has been persisted",
        )
    request.sandbox.balancer.wake()
    return {}


@command("commitReshardCollection", admin_only=True)
def commit_reshard_collection(request: Request) -> dict[str, Any]:
    ns = typed_namespace(request)
    require_resharding(request, "commitReshardCollection")
    cluster = request.sandbox.cluster
    op = resharding.find(cluster, ns)
    if op is None:
        raise CommandError.of(
            "NoSuchReshardCollection", f"Could not find an active resharding operation for {ns}"
        )
    resharding.request_commit(cluster, op)
    request.sandbox.balancer.wake()
    return _await(request, op)


def wait_while_writes_blocked(request: Request, ns: str) -> None:
    """A write to a collection in its resharding's critical section waits for the commit
    (manual: the resharding "blocks writes for two seconds or less" at the end)."""
    cluster = request.sandbox.cluster
    op = resharding.find(cluster, ns)
    if op is None:
        return
    resharding.refresh(cluster, op)
    if op.outcome is None and op.state_at(cluster.now()) == "blocking-writes":
        request.sandbox.balancer.sleep_until(op.phases.commit, lambda: op.outcome is not None)
        resharding.refresh(cluster, op)
