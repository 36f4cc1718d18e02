"""The cluster the volume tests share: shard `a` on a 20 GiB volume with 14 GiB used, shard `b`
on the sandbox's default disk, and one collection of 100 MiB chunks (1 KiB documents)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pymongo

GIB = 1024**3
MIB = 1024**2
NOW = "2026-11-02T10:00:00Z"
CHUNK = 100 * MIB  # logical bytes of each chunk, 102400 documents of 1 KiB
DOCS = 102400
# Stored per chunk: half its bytes (the default compression) and 64 bytes of index per document.
STORED = CHUNK // 2 + DOCS * 64  # 56.25 MiB
ON_A = 64
# 14 GiB used on a: the 64 chunks' files and a baseline for the rest.
BASELINE_A = 14 * GIB - ON_A * STORED
HOST_A, HOST_B = "a/a.sandbox:27018", "b/b.sandbox:27019"

CLUSTER = f"""version: "7.0"
shards:
  - {{name: a, zones: [hot], disk: {{size: 20GiB, baseline: {BASELINE_A // MIB}MiB}}}}
  - {{name: b, zones: [cold]}}
collections:
  - ns: app.events
    key: {{k: 1}}
    chunks: {ON_A + 4}
    distribution: listed
    placement: [{", ".join(["a"] * ON_A + ["b"] * 4)}]
    chunkSize: {{bytes: {CHUNK}, docs: {DOCS}}}
"""


def cluster_file(tmp_path: Path, extra: str = "", text: str = CLUSTER) -> Path:
    path = tmp_path / "cluster.yaml"
    path.write_text(text + extra)
    return path


def used(
    client: pymongo.MongoClient[dict[str, Any]], db: str = "app", **options: Any
) -> dict[str, Any]:
    """host -> (fsUsedSize, fsTotalSize) from dbStats on `db`."""
    raw = client[db].command({"dbStats": 1, **options})["raw"]
    return {host: (r["fsUsedSize"], r["fsTotalSize"]) for host, r in raw.items()}


def move(client: pymongo.MongoClient[dict[str, Any]], k: int, to: str) -> None:
    """Move the chunk holding {k} (chunk i starts at k = i * 1000) to shard `to`."""
    client.admin.command("moveChunk", "app.events", find={"k": k}, to=to)
