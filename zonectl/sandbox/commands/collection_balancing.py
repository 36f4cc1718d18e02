"""Per-collection balancing commands: balancerCollectionStatus, configureCollectionBalancing
(5.3/6.0+) and mergeAllChunksOnShard (7.0+); balancer-settings.md §3.4, §4, §5.3.

configureCollectionBalancing's mongos IDL is `strict: false` (mongo:src/mongo/s/request_types/
configure_collection_balancing.idl): a field the version does not know is ignored, so
`enableAutoSplitter` on 7.0+ and `enableBalancing` before 8.0.10 are no-ops. With no known
field 6.0 answers InvalidOptions and 7.0+ does nothing (ok, whatever the namespace).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bson import Int64

from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.merges import INT_MAX, merge_all_on_shard
from zonectl.sandbox.balancer.policy import compliance
from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.catalog import fcv
from zonectl.sandbox.catalog.sessions import MAX_CHUNK_SIZE_BYTES, SESSIONS
from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.versions import VersionProfile

MB = 1024 * 1024
_NUMBER = "'[long, int, decimal, double]'"


def _collection_doc(sandbox: Sandbox, ns: str) -> Mapping[str, Any]:
    cluster = sandbox.cluster
    if not cluster.is_sharded(ns):
        db = ns.split(".", 1)[0]
        if not sandbox.version.has_defragmentation:  # 5.0 (reference §3.3)
            if cluster.database_doc(db) is None:
                raise CommandError.of("NamespaceNotFound", f"database {db} not found")
            raise CommandError.of("NamespaceNotSharded", f"Collection {ns} is not sharded.")
        # 6.0+ config server: one message for unsharded and unknown (§5.3).
        raise CommandError.of("NamespaceNotSharded", "Collection unsharded or undefined")
    doc = cluster.collection_doc(ns)
    assert doc is not None
    return doc


def chunk_size_field(version: VersionProfile, nbytes: int) -> Any:
    """`chunkSize` in MB: a long (bytes / 1 MiB) through 7.0, in 8.x a double rounded up
    to 1/100 MB (§5.3; docs example `chunkSize: 0.2`)."""
    if version.chunk_size_status_double:
        return math.ceil(nbytes / MB * 100) / 100
    return Int64(nbytes // MB)


@command("balancerCollectionStatus", admin_only=True, supports_write_concern=False)
def balancer_collection_status(request: Request) -> dict[str, Any]:
    """`Balancer::getBalancerStatusForNs`: defragmentation first, then the policy."""
    sandbox = request.sandbox
    ns = move_rules.typed_namespace(request)
    version = sandbox.version
    doc = _collection_doc(sandbox, ns)
    balancer = sandbox.balancer
    # 6.0+: the chunk size comes from getMaxChunkSizeBytes (mongo:src/mongo/db/s/balancer/
    # balancer.cpp), which runs refreshAndCheck and fails the command with its error: while
    # config.settings holds `chunksize: 3.5` or `_waitForDelete: "yes"`, this command fails
    # (BadValue, TypeMismatch) until a valid value is set. 5.0 reads the cached settings.
    settings = (
        balancer.reload_settings() if version.version_array[0] >= 6 else balancer.current_settings()
    )
    reply: dict[str, Any] = {}
    if version.has_configure_collection_balancing:
        nbytes = view.max_chunk_size_bytes(sandbox.cluster, ns, settings)
        reply["chunkSize"] = chunk_size_field(version, nbytes)
    if version.has_defragmentation and doc.get("defragmentCollection"):
        reply["balancerCompliant"] = False
        reply["firstComplianceViolation"] = "defragmentingChunks"
        reply["details"] = balancer.defrag.report(ns)
        return reply
    coll = view.collection_view(sandbox.cluster, ns, settings)
    assert coll is not None
    violation = compliance(coll, view.shard_views(sandbox.cluster), balancer.params(settings))
    reply["balancerCompliant"] = violation is None
    if violation is not None:
        reply["firstComplianceViolation"] = violation
    return reply


def _fields(version: VersionProfile) -> dict[str, tuple[str, bool]]:
    """The request fields this version knows -> (config.collections field, inverted)."""
    out = {"defragmentCollection": ("defragmentCollection", False)}
    if version.has_auto_merger:
        out["enableAutoMerger"] = ("enableAutoMerge", False)
    else:
        out["enableAutoSplitter"] = ("noAutoSplit", True)
    if version.has_enable_balancing:
        out["enableBalancing"] = ("noBalance", True)
    return out


def _wrong_type(request: Request, name: str, expected: str) -> CommandError:
    return CommandError.of(
        "TypeMismatch",
        f"BSON field '{request.name}.{name}' is the wrong type "
        f"'{type_name(request.body[name])}', expected type{'s' if '[' in expected else ''} "
        f"{expected}",
    )


@command(
    "configureCollectionBalancing",
    admin_only=True,
    exists_in=lambda version: version.has_configure_collection_balancing,
)
def configure_collection_balancing(request: Request) -> dict[str, Any]:
    sandbox = request.sandbox
    version = sandbox.version
    ns = move_rules.typed_namespace(request)
    if fcv.below(sandbox.catalog, version, (5, 3)):  # a 6.0 binary at FCV 5.0 (§4.2)
        raise CommandError.of(
            "IllegalOperation",
            "_configsvrConfigureCollectionBalancing can only be run when the cluster is in "
            "feature compatibility versions greater or equal than 5.3.",
        )
    body = request.body
    flags = _fields(version)
    given = [name for name in ("chunkSize", *flags) if name in body]
    if not given:
        if version.version_array[0] >= 7:
            return {}  # 7.0+: nothing to configure is a no-op
        raise CommandError.of("InvalidOptions", "invalid configure collection balancing update")
    updates: dict[str, Any] = {}
    abort = False
    if "chunkSize" in body:
        size = body["chunkSize"]
        if isinstance(size, bool) or not isinstance(size, int | float):
            raise _wrong_type(request, "chunkSize", _NUMBER)
        size = int(size)  # safeInt
        if size != 0 and not 1 <= size <= 1024:
            raise CommandError.of("InvalidOptions", f"Chunk size '{size}' out of range [1MB, 1GB]")
        # 0: back to the default, which is the global one (unset) except for the sessions
        # collection's 200000 bytes (ShardingCatalogManager::configureCollectionBalancing;
        # ConfigureCollectionBalancingTest.SettingChunkSizeMBToZeroLogicalSessions).
        default = Int64(MAX_CHUNK_SIZE_BYTES) if ns == SESSIONS else None
        updates["maxChunkSizeBytes"] = Int64(size * MB) if size else default
    for name, (field, inverted) in flags.items():
        if name not in body:
            continue
        if not isinstance(body[name], bool):
            raise _wrong_type(request, name, "'bool'")
        if name == "defragmentCollection" and not body[name]:
            abort = True  # abortCollectionDefragmentation: no field written here
            continue
        updates[field] = (not body[name]) if inverted else body[name]
    if not sandbox.cluster.is_sharded(ns):
        raise CommandError.of(
            "NamespaceNotSharded",
            f'Expected to match one doc for query {{ _id: "{ns}" }} but matched 0',
        )
    for field, value in updates.items():
        sandbox.cluster.set_collection_field(ns, field, value)
    if abort:
        sandbox.balancer.defrag.abort(ns)
    details = {name: body[name] for name in given}
    sandbox.cluster.log_change("configureCollectionBalancing", ns, details)
    return {}


@command(
    "mergeAllChunksOnShard",
    admin_only=True,
    supports_write_concern=False,
    exists_in=lambda version: version.has_auto_merger,
)
def merge_all_chunks_on_shard(request: Request) -> dict[str, Any]:
    """cluster_merge_all_chunks_on_shard_cmd.cpp -> commitMergeAllChunksOnShard."""
    sandbox = request.sandbox
    ns = move_rules.typed_namespace(request)
    body = request.body
    if "shard" not in body:
        raise CommandError.of(
            "IDLFailedToParse",
            "BSON field 'mergeAllChunksOnShard.shard' is missing but a required field",
        )
    shard = body["shard"]
    if not isinstance(shard, str):
        raise _wrong_type(request, "shard", "'string'")
    limit = body.get("maxNumberOfChunksToMerge", INT_MAX)
    if isinstance(limit, bool) or not isinstance(limit, int):
        raise _wrong_type(request, "maxNumberOfChunksToMerge", "'int'")
    if sandbox.cluster.shard_doc(shard) is None:
        raise CommandError.of("ShardNotFound", f"Shard {shard} not found")
    move_rules.routing_store(sandbox.cluster, ns)
    merge_all_on_shard(sandbox.cluster, ns, shard, limit)
    return {}
