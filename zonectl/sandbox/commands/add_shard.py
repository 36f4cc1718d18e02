"""addShard: the server's checks against the shards it has, then whether the host answers.

Existing shards (`_checkIfShardExists`, mongo:src/mongo/db/s/config/
sharding_catalog_manager_shard_operations.cpp, `getExistingShard` in topology_change_helpers
from 8.0): the same replica set with the same options is a no-op answering the existing
name; the same set under another name, a member host of another shard, or a taken name is
IllegalOperation. Then the host must answer: a sandbox seeded from a cluster file reaches
only the replica sets it declares as `spareShards`; any other set does not answer, and the
mongos's replica set monitor gives up finding its primary (FailedToSatisfyReadPreference,
"Could not find host matching read preference { mode: "primary" } for set <set>"). A
sandbox built by commands alone (no cluster file) reaches any host, as it always did.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog import zone_rules as rules
from zonectl.sandbox.catalog.cluster import Cluster
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError


def split_host(host: str) -> tuple[str, list[str]]:
    """ "rs/h1:1,h2:2" -> ("rs", ["h1:1", "h2:2"]); a host without a set name -> ("", [host])."""
    name, slash, members = host.partition("/")
    if not slash:
        return "", [host]
    return name, [m for m in members.split(",") if m]


@command("addShard", aliases=("addshard",), admin_only=True)
def add_shard(request: Request) -> dict[str, Any]:
    host = request.arg
    if not isinstance(host, str) or not host:
        raise rules.wrong_type(request.name, "string", host)
    name = request.body.get("name")
    if name is not None and not isinstance(name, str):
        raise rules.wrong_type("name", "string", name)
    if name == "":
        raise CommandError.of("BadValue", "shard name cannot be empty")
    cluster = request.sandbox.cluster
    existing = _existing(cluster, host, name)
    if existing is not None:
        return {"shardAdded": existing}
    set_name, _ = split_host(host)
    stored = _reach(cluster, host)
    if name is None:
        name = set_name or _next_shard_name(cluster)
    cluster.add_shard(name, stored)
    cluster.log_change("addShard", "", {"name": name, "host": stored})
    return {"shardAdded": name}


def _existing(cluster: Cluster, host: str, name: str | None) -> str | None:
    """The existing shard this request repeats, None for a new one, or the refusal."""
    set_name, servers = split_host(host)
    for doc in cluster.shard_docs():
        existing_set, existing_servers = split_host(str(doc.get("host", "")))
        same = (name is None or name == doc["_id"]) and existing_set == set_name
        if set_name and existing_set == set_name:
            if same:
                return str(doc["_id"])
            raise CommandError.of(
                "IllegalOperation",
                f"A shard already exists containing the replica set '{set_name}'",
            )
        for member in existing_servers:
            if member in servers:
                if same:
                    return str(doc["_id"])
                raise CommandError.of(
                    "IllegalOperation",
                    f"'{member}' is already a member of the existing shard '{doc['host']}' "
                    f"({doc['_id']}).",
                )
        if name is not None and name == doc["_id"]:
            raise CommandError.of("IllegalOperation", f"A shard named {name} already exists")
    return None


def _reach(cluster: Cluster, host: str) -> str:
    """The connection string the shard is recorded with (the replica set's own members,
    as validateHostAsShard builds it from `hello`), or the error of a host that does not
    answer."""
    if cluster.spares is None:
        return host
    set_name, servers = split_host(host)
    for spare in cluster.spares:
        spare_set, members = split_host(spare["host"])
        if set_name and spare_set == set_name and set(servers) <= set(members):
            return str(spare["host"])
    if set_name:
        preference = '{ mode: "primary" }'
        raise CommandError.of(
            "FailedToSatisfyReadPreference",
            f"Could not find host matching read preference {preference} for set {set_name}",
        )
    # A single host (no replica set): the connection is refused (wording inferred).
    raise CommandError.of(
        "HostUnreachable", f"Error connecting to {host} :: caused by :: Connection refused"
    )


def _next_shard_name(cluster: Cluster) -> str:
    """generateNewShardName: "shard" and four digits, one above the highest."""
    names = set(cluster.shard_names())
    i = 0
    while f"shard{i:04d}" in names:
        i += 1
    return f"shard{i:04d}"
