"""What a twin is made of, before anything is written: the config documents read from a live
cluster (mongo/twin_read.py) or a dump (dump.py), as data, and which collections count. The
writing is write.py's."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


def is_user_collection(doc: Mapping[str, Any]) -> bool:
    """A user sharded collection (reference-config-dump P5): not the sessions collection,
    not an 8.0 unsplittable tracked one, no resharding temp, no pre-5.0 dropped entry."""
    ns = str(doc.get("_id", ""))
    return not (
        ns == "config.system.sessions"
        or doc.get("unsplittable")
        or doc.get("dropped") is True
        or ".system.resharding." in ns
        or "key" not in doc
    )


@dataclass
class Capture:
    """Everything but the chunks, as config documents (hosts are never written)."""

    captured_from: str
    shards: list[dict[str, Any]]
    databases: list[dict[str, Any]]
    collections: list[dict[str, Any]]  # user sharded collections' config.collections entries
    tags: list[dict[str, Any]] = field(default_factory=list)
    settings: list[dict[str, Any]] = field(default_factory=list)
    server_version: str | None = None
    version_source: str = "buildInfo"
    fcv: str | None = None
    sizes: str = ""
    costs: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)
    captured_at: dt.datetime | None = None
    history: list[dict[str, Any]] = field(default_factory=list)  # history.sanitize'd
    # config.queryAnalyzers (7.0+): each collection's query sampling configuration.
    analyzers: list[dict[str, Any]] = field(default_factory=list)
    # dbStats (zonectl/mongo/volumes_read.py): shard -> (fsUsedSize, fsTotalSize), and
    # database -> (storageSize / size, index bytes per document) of what its data holds now.
    volumes: dict[str, tuple[int, int]] = field(default_factory=dict)
    storage: dict[str, tuple[float, float]] = field(default_factory=dict)
    # (shard, namespace) -> [bytes, documents] of the chunks written to the twin, for the
    # baseline each shard's disk gets: its fsUsedSize less what the twin's data takes there.
    held: dict[tuple[str, str], list[int]] = field(default_factory=dict)
    # Unsharded collections: {ns, type, and but for a view: shard, bytes, docs} (live only).
    unsharded: list[dict[str, Any]] = field(default_factory=list)
