"""Write a twin: the cluster file the sandbox serves (`zonectl sandbox --cluster`) and its
chunk sidecar, from what a live cluster or a config dump gave (`Capture`, capture.py) and a
per-collection chunk reader. The cluster file's YAML is written by the caller's `render`
(the module that reads that format, sandbox/seed/cluster_yaml.py). The sidecar and the YAML
each go to a temporary file renamed over the target once complete, so a failure never leaves a
half-written twin."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bson import json_util
from bson.json_util import JSONMode, JSONOptions

from zonectl.atomic import write_atomically
from zonectl.twin import chunkfile, volumes
from zonectl.twin.anonymize import Anonymizer, BoundMap
from zonectl.twin.capture import Capture
from zonectl.twin.costs import rename

_RELAXED = JSONOptions(json_mode=JSONMode.RELAXED, tz_aware=True)
# config.collections fields the sandbox keeps per collection (reference §3.3).
COLLECTION_FIELDS = (
    "maxChunkSizeBytes",
    "enableAutoMerge",
    "defragmentCollection",
    "noAutoSplit",
    "permitMigrations",
    "allowMigrations",
)


# Writes one collection's chunks (key order) with `writer.chunk(...)`.
ChunkReader = Callable[[Mapping[str, Any], chunkfile.ChunkWriter], None]


@dataclass
class Written:
    yaml: Path
    chunks: Path
    collections: int
    total_chunks: int


def plain(value: Any) -> Any:
    """A BSON value as YAML-safe relaxed Extended JSON ({$date}, {$minKey}, {$oid}...)."""
    return json.loads(json_util.dumps(value, json_options=_RELAXED))


def sidecar_path(out: Path, jsonl: bool) -> Path:
    stem = out.name[: -len(out.suffix)] if out.suffix else out.name
    return out.with_name(f"{stem}.chunks.{'jsonl' if jsonl else 'bson'}")


def write_twin(
    capture: Capture,
    read_chunks: ChunkReader,
    out: Path,
    *,
    render: Callable[[Mapping[str, Any]], str],
    jsonl: bool = False,
    anonymize: bool = False,
) -> Written:
    side = sidecar_path(out, jsonl)
    counts: dict[str, int] = {}
    plain_side = side.with_name(f".{side.name}.plain.bson") if anonymize else side
    with chunkfile.ChunkWriter(plain_side) as writer:
        for coll in capture.collections:
            ns = str(coll["_id"])
            before = writer.chunks
            writer.collection(ns)
            read_chunks(coll, writer)
            counts[ns] = writer.chunks - before
        if not anonymize:
            for entry in capture.history:
                writer.history(entry)
        writer.commit()
    anon: Anonymizer | None = None
    if anonymize:
        anon = _anonymize_chunks(capture, plain_side, side)
        if capture.history:
            capture.notes.append(
                f"anonymized: the {len(capture.history)} changelog entries the costs were "
                "learned from are left out (their bounds and names); the costs are kept"
            )
    doc = _yaml_doc(capture, counts, side, anon)
    out.parent.mkdir(parents=True, exist_ok=True)
    write_atomically(out, render(doc))
    return Written(out, side, len(counts), sum(counts.values()))


def _anonymize_chunks(capture: Capture, plain_side: Path, side: Path) -> Anonymizer:
    anon = Anonymizer(
        (str(s["_id"]) for s in capture.shards),
        (str(t["tag"]) for t in capture.tags),
        (str(c["_id"]) for c in capture.collections),
    )
    keys = {str(c["_id"]): dict(c["key"]) for c in capture.collections}
    maps: dict[str, BoundMap] = {}
    try:
        with chunkfile.ChunkWriter(side) as writer:
            for chunks in chunkfile.read(plain_side):
                zones = [
                    b for t in capture.tags if t["ns"] == chunks.ns for b in (t["min"], t["max"])
                ]
                bmap = BoundMap(keys[chunks.ns], [*chunks.mins, *chunks.maxs[-1:], *zones])
                maps[chunks.ns] = bmap
                writer.collection(anon.ns(chunks.ns))
                jumbo = set(chunks.jumbo)
                for i in range(len(chunks)):
                    writer.chunk(
                        bmap(chunks.mins[i]),
                        bmap(chunks.maxs[i]),
                        anon.shard(chunks.shards[i]),
                        chunks.sizes[i],
                        chunks.counts[i],
                        i in jumbo,
                    )
            writer.commit()
    finally:
        plain_side.unlink(missing_ok=True)
    for t in capture.tags:
        bmap = maps.get(str(t["ns"])) or BoundMap(keys.get(str(t["ns"]), {}), [t["min"], t["max"]])
        t["min"], t["max"] = bmap(t["min"]), bmap(t["max"])
    return anon


ANALYZER_FIELDS = ("mode", "samplesPerSecond", "startTime", "stopTime")


def query_analyzers(capture: Capture, anonymized: bool) -> dict[str, dict[str, Any]]:
    """namespace -> its config.queryAnalyzers document as the cluster file holds it (the
    `_id`, the collection's UUID, is the twin's own). Documents of collections the twin does
    not hold (unsharded ones) are named in the notes (counted when anonymized)."""
    sharded = {str(c["_id"]) for c in capture.collections}
    out = {}
    for d in capture.analyzers:
        ns = str(d.get("ns"))
        if ns in sharded:
            out[ns] = {f: plain(d[f]) for f in ANALYZER_FIELDS if d.get(f) is not None}
    others = sorted({str(d.get("ns")) for d in capture.analyzers} - sharded)
    if others:
        which = f"{len(others)} unsharded collections" if anonymized else ", ".join(others)
        capture.notes.append(
            f"not captured: query sampling (config.queryAnalyzers) of {which}: "
            "a twin's unsharded collections carry no query sampling"
        )
    return out


def unsharded_entry(
    capture: Capture,
    u: Mapping[str, Any],
    primaries: Mapping[str, Any],
    shard: Callable[[str], str],
    ns_of: Callable[[str], str],
) -> dict[str, Any]:
    """An unsharded collection as the cluster file's `unsharded:` entry: `shard` only where
    it is not on its database's primary (an 8.0 moveCollection put it there)."""
    entry: dict[str, Any] = {"ns": ns_of(str(u["ns"]))}
    if u["type"] != "collection":
        entry["type"] = u["type"]
    for figure in ("bytes", "docs"):
        if figure in u:
            entry[figure] = int(u[figure])
    if "shard" in u and u["shard"] != primaries.get(str(u["ns"]).split(".", 1)[0]):
        entry["shard"] = shard(str(u["shard"]))
    if u["type"] != "view":
        entry.update(volumes.collection_fields(capture, str(u["ns"])))
    return entry


def _yaml_doc(
    capture: Capture, counts: Mapping[str, int], side: Path, anon: Anonymizer | None
) -> dict[str, Any]:
    shard = anon.shard if anon else str
    zone = anon.zone if anon else str
    ns_of = anon.ns if anon else str
    db_of = anon.db if anon else str
    doc: dict[str, Any] = {}
    if capture.server_version:
        doc["version"] = ".".join(capture.server_version.split(".")[:2])
    if capture.fcv:
        doc["featureCompatibilityVersion"] = capture.fcv
    doc["shards"] = [
        {
            "name": shard(str(s["_id"])),
            "zones": [zone(str(z)) for z in s.get("tags", [])],
            **volumes.disk(capture, str(s["_id"])),
            # a shard caught mid-drain keeps draining in the twin (removeShard was run)
            **({"draining": True} if s.get("draining") else {}),
        }
        for s in capture.shards
    ]
    doc["databases"] = [
        {"name": db_of(str(d["_id"])), "primary": shard(str(d["primary"]))}
        for d in capture.databases
        if d.get("primary") is not None
    ]
    analyzers = query_analyzers(capture, anon is not None)
    doc["collections"] = [
        {
            "ns": ns_of(str(c["_id"])),
            "key": plain(dict(c["key"])),
            "unique": bool(c.get("unique", False)),
            "noBalance": bool(c.get("noBalance", False)),
            "chunks": max(1, counts.get(str(c["_id"]), 1)),
            **({"queryAnalyzer": analyzers[str(c["_id"])]} if str(c["_id"]) in analyzers else {}),
            **volumes.collection_fields(capture, str(c["_id"])),
        }
        for c in capture.collections
    ]
    primaries = {str(d["_id"]): d.get("primary") for d in capture.databases}
    doc["unsharded"] = [
        unsharded_entry(capture, u, primaries, shard, ns_of) for u in capture.unsharded
    ]
    doc["zones"] = [
        {
            "ns": ns_of(str(t["ns"])),
            "min": plain(t["min"]),
            "max": plain(t["max"]),
            "zone": zone(str(t["tag"])),
        }
        for t in capture.tags
    ]
    fields = {
        ns_of(str(c["_id"])): {f: plain(c[f]) for f in COLLECTION_FIELDS if f in c}
        for c in capture.collections
    }
    twin: dict[str, Any] = {
        "format": 1,
        "capturedFrom": capture.captured_from,
        "capturedAt": (capture.captured_at or dt.datetime.now(dt.UTC)).isoformat(),
        "serverVersion": capture.server_version,
        "versionSource": capture.version_source,
        "chunks": side.name,
        "sizes": capture.sizes,
        "anonymized": anon is not None,
        "settings": [plain(s) for s in capture.settings],
        "collectionFields": {ns: f for ns, f in fields.items() if f},
        "notes": list(capture.notes),
        "history": 0 if anon else len(capture.history),
    }
    if capture.costs is not None:
        twin["costs"] = rename(capture.costs, shard) if anon else capture.costs
    doc["twin"] = twin
    return doc
