"""Reading the live state a plan needs: config.shards, config.tags, config.collections of
the managed namespaces, the balancer settings and balancerStatus. Never config.chunks."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import ClusterState, LiveBalancer, LiveCollection, LiveRange, LiveShard
from zonectl.mongo.connect import Connection

Doc = Mapping[str, Any]


def build_cluster_state(
    *,
    version: str,
    fcv: str | None,
    shards: Sequence[Doc],
    tags: Sequence[Doc],
    collections: Sequence[Doc],
    balancer: Doc | None,
    status: Doc | None = None,
) -> ClusterState:
    """ClusterState from config documents as the server stores them (reference §2)."""
    status = status or {}
    settings = balancer or {}  # a missing balancer document means mode full (§2.5)
    window = settings.get("activeWindow")
    return ClusterState(
        version=version,
        fcv=fcv,
        shards=tuple(
            LiveShard(
                id=str(d["_id"]),
                host=str(d.get("host", "")),
                zones=tuple(d.get("tags") or ()),
                draining=bool(d.get("draining", False)),
            )
            for d in sorted(shards, key=lambda d: str(d["_id"]))
        ),
        # 4.4 keeps dropped collections' entries with dropped: true (§2.4).
        collections={
            str(d["_id"]): LiveCollection(
                namespace=str(d["_id"]),
                key=dict(d["key"]),
                uuid=d.get("uuid"),
                unique=bool(d.get("unique", False)),
                no_balance=bool(d.get("noBalance", False)),
            )
            for d in collections
            if not d.get("dropped")
        },
        ranges=tuple(
            LiveRange(str(d["ns"]), str(d["tag"]), dict(d["min"]), dict(d["max"])) for d in tags
        ),
        balancer=LiveBalancer(
            mode=str(settings.get("mode", status.get("mode", "full"))),
            stopped=bool(settings.get("stopped", False)),
            active_window=(
                {"start": str(window["start"]), "stop": str(window["stop"])}
                if isinstance(window, Mapping)
                else None
            ),
            in_round=bool(status.get("inBalancerRound", False)),
        ),
    )


def read_cluster_state(conn: Connection, namespaces: Collection[str]) -> ClusterState:
    """Seven small reads whatever the cluster's size: shards, all zone ranges (few, and the
    unmanaged report needs them), the collection entries of `namespaces`, balancer settings
    and status."""
    config = conn.client.config
    try:
        shards = list(config.shards.find({}))
        tags = list(config.tags.find({}, {"_id": 0, "ns": 1, "min": 1, "max": 1, "tag": 1}))
        collections = list(config.collections.find({"_id": {"$in": sorted(namespaces)}}))
        balancer = config.settings.find_one({"_id": "balancer"})
        try:
            status: Doc | None = conn.client.admin.command({"balancerStatus": 1})
        except OperationFailure:
            status = None
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config metadata failed: {redact(str(exc))}"
        ) from None
    return build_cluster_state(
        version=conn.version,
        fcv=conn.fcv,
        shards=shards,
        tags=tags,
        collections=collections,
        balancer=balancer,
        status=status,
    )
