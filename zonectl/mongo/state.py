"""Reading the live state a plan needs: config.shards, config.tags, config.collections of
the managed namespaces, the balancer settings and balancerStatus. Never config.chunks."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.errors import ClusterError, redact
from zonectl.model.cluster import (
    ClusterState,
    LiveBalancer,
    LiveCollection,
    LiveRange,
    LiveShard,
    day_windows_in_force,
)
from zonectl.mongo.connect import Connection

Doc = Mapping[str, Any]
WHOLE = 1 << 20  # a batch size no reply reaches: the server fills the first one to 16 MiB


def build_cluster_state(
    *,
    version: str,
    fcv: str | None,
    shards: Sequence[Doc],
    tags: Sequence[Doc],
    collections: Sequence[Doc],
    balancer: Doc | None,
    status: Doc | None = None,
    analyzers: Sequence[Doc] | None = None,
    settings_docs: Mapping[str, Doc] | None = None,
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
        collections={
            str(d["_id"]): LiveCollection(
                namespace=str(d["_id"]),
                key=dict(d["key"]),
                uuid=d.get("uuid"),
                unique=bool(d.get("unique", False)),
                no_balance=bool(d.get("noBalance", False)),
                settings={k: d[k] for k in COLLECTION_FIELDS if k in d},
            )
            for d in collections
            if is_sharded_entry(d)
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
            day_windows=day_windows_in_force(settings.get("activeWindowDOW"), version, fcv),
        ),
        samplers=None if analyzers is None else active_samplers(analyzers),
        settings=dict(settings_docs or ({"balancer": balancer} if balancer else {})),
    )


# What the settings table reads: config.settings documents, config.collections fields.
SETTINGS_DOCS = sorted({"balancer", *(r.doc for r in CLUSTER)})
COLLECTION_FIELDS = (*(r.field for r in COLLECTION), "defragmentationPhase")


def active_samplers(analyzers: Sequence[Doc]) -> dict[str, float]:
    """namespace -> samplesPerSecond of the config.queryAnalyzers documents in mode full
    (mode "off" keeps the document with a stopTime: configure_query_analyzer_cmd.cpp)."""
    return {
        str(d["ns"]): float(d.get("samplesPerSecond", 0))
        for d in analyzers
        if d.get("mode") == "full" and "ns" in d
    }


def is_sharded_entry(doc: Doc) -> bool:
    """A config.collections entry of a sharded collection: 4.4 keeps dropped collections'
    entries with `dropped: true`, 8.0 lists tracked unsharded ones as `unsplittable` (§2.4)."""
    return not doc.get("dropped") and not doc.get("unsplittable")


@dataclass(frozen=True)
class EntriesRead:
    """What one read of config.collections and config.settings returned, for the readers
    that come after it in the same run (ChunkSizes): every entry of the namespaces it asked
    about (`asked`; None: every namespace), dropped and unsplittable ones included, by _id;
    and the config.settings documents of `settings_asked`, by _id."""

    asked: frozenset[str] | None
    entries: Mapping[str, Mapping[str, Any]]
    settings_asked: frozenset[str]
    settings: Mapping[str, Mapping[str, Any]]

    def knows(self, ns: str) -> bool:
        """Whether the read answered for `ns` (its entry, or that it has none)."""
        return self.asked is None or ns in self.asked

    def setting(self, name: str) -> tuple[bool, Mapping[str, Any] | None]:
        """(whether the read asked for config.settings `name`, its document or None)."""
        return name in self.settings_asked, self.settings.get(name)


@dataclass(frozen=True)
class ConfigDocuments:
    """The config documents zonectl reads, as the server stores them."""

    shards: list[dict[str, Any]]
    tags: list[dict[str, Any]]
    collections: list[dict[str, Any]]  # sharded collections only
    balancer: dict[str, Any] | None
    status: dict[str, Any] | None  # balancerStatus; None when the server refused it
    status_error: str | None = None
    analyzers: list[dict[str, Any]] | None = None  # config.queryAnalyzers; None: not read
    settings: dict[str, dict[str, Any]] | None = None  # config.settings by _id
    read: EntriesRead | None = None  # what the read saw, for the run's later readers

    def cluster_state(self, conn: Connection) -> ClusterState:
        return build_cluster_state(
            version=conn.version,
            fcv=conn.fcv,
            shards=self.shards,
            tags=self.tags,
            collections=self.collections,
            balancer=self.balancer,
            status=self.status,
            analyzers=self.analyzers,
            settings_docs=self.settings,
        )


def read_config_documents(
    conn: Connection, namespaces: Collection[str] | None = None
) -> ConfigDocuments:
    """Small reads whatever the cluster's size: shards, all zone ranges (few, and the
    unmanaged report needs them), the collection entries of `namespaces` (None: all),
    the balancer settings and status."""
    config = conn.client.config
    wanted = {} if namespaces is None else {"_id": {"$in": sorted(namespaces)}}
    try:
        # One reply each where it fits (16 MiB): no getMore per 101 documents, so the
        # round trips stay the same however many collections and ranges there are.
        shards = list(config.shards.find({}, batch_size=WHOLE))
        fields = {"_id": 0, "ns": 1, "min": 1, "max": 1, "tag": 1}
        tags = list(config.tags.find({}, fields, batch_size=WHOLE))
        entries = list(config.collections.find(wanted, batch_size=WHOLE))
        collections = [d for d in entries if is_sharded_entry(d)]
        # The balancer, chunk size and automerge documents in one read (the settings table).
        settings = {str(d["_id"]): d for d in config.settings.find({"_id": {"$in": SETTINGS_DOCS}})}
        balancer = settings.get("balancer")
        status: dict[str, Any] | None = None
        status_error = None
        try:
            status = dict(conn.client.admin.command({"balancerStatus": 1}))
        except OperationFailure as exc:
            status_error = redact(str(exc.details or exc))
    except PyMongoError as exc:
        raise ClusterError(
            f"{conn.uri}: reading config metadata failed: {redact(str(exc))}"
        ) from None
    analyzers = read_analyzers(conn)
    read = EntriesRead(
        None if namespaces is None else frozenset(namespaces),
        {str(d["_id"]): d for d in entries},
        frozenset(SETTINGS_DOCS),
        settings,
    )
    return ConfigDocuments(
        shards, tags, collections, balancer, status, status_error, analyzers, settings, read
    )


def read_analyzers(conn: Connection) -> list[dict[str, Any]] | None:
    """config.queryAnalyzers on 7.0+ (query sampling); None before 7.0 or when refused
    (`zonectl doctor` names the missing privilege)."""
    if _major(conn.version) < 7:
        return None
    try:
        return list(conn.client.config.queryAnalyzers.find({}))
    except OperationFailure:
        return None


def _major(version: str) -> int:
    head = version.split(".")[0]
    return int(head) if head.isdigit() else 7


def read_cluster_state(conn: Connection, namespaces: Collection[str]) -> ClusterState:
    """What a plan needs: the config documents of the managed `namespaces`, as a value."""
    return read_config_documents(conn, namespaces).cluster_state(conn)
