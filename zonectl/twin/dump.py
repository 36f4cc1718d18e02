"""Read a `mongodump --db config` (a directory of .bson and .metadata.json, gzipped or not,
or an `--archive` file) into a twin's `Capture` (shared/reference/config-dump.md). A dump
has no sizes (chunks are half the maximum chunk size, said so) and no clock; a dump without
config.changelog gets assumed costs, one without admin.system.version an inferred version."""

from __future__ import annotations

import datetime as dt
import gzip
import json
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any, cast

import bson
from bson.binary import UuidRepresentation
from bson.codec_options import CodecOptions

from zonectl.forecast.learn import learn
from zonectl.forecast.units import DEFAULT_COPY_RATE
from zonectl.model.keys import sort_key
from zonectl.twin import coverage, history
from zonectl.twin.archive import read_archive
from zonectl.twin.capture import Capture, is_user_collection
from zonectl.twin.chunkfile import ChunkWriter, CollectionChunks
from zonectl.twin.costs import section
from zonectl.twin.errors import TwinError
from zonectl.twin.write import COLLECTION_FIELDS, ChunkReader

OPTS: CodecOptions[dict[str, Any]] = CodecOptions(
    uuid_representation=UuidRepresentation.STANDARD, tz_aware=True
)
REQUIRED = ("collections", "chunks")
_DEFAULT_MB = {4: 64, 5: 64}
Docs = dict[str, list[dict[str, Any]]]


def _open(path: Path) -> IO[bytes]:
    return cast(IO[bytes], gzip.open(path, "rb") if path.suffix == ".gz" else path.open("rb"))


def _bson_file(path: Path) -> list[dict[str, Any]]:
    try:
        with _open(path) as f:
            return list(bson.decode_file_iter(f, codec_options=OPTS))
    except (bson.errors.InvalidBSON, OSError, EOFError) as exc:
        raise TwinError(f"{path}: truncated or corrupt BSON ({exc}); take the dump again") from None


def _find(folder: Path, name: str) -> Path | None:
    for candidate in (folder / f"{name}.bson", folder / f"{name}.bson.gz"):
        if candidate.exists():
            return candidate
    return None


def _read_dir(root: Path) -> tuple[Docs, dict[str, Any]]:
    folder = root / "config" if (root / "config").is_dir() else root
    if _find(folder, "chunks") is None and _find(folder, "collections") is None:
        raise TwinError(
            f"{root}: not a config dump: no config/chunks.bson or config/collections.bson "
            "(take it with `mongodump --db config` through a mongos)"
        )
    docs: Docs = {}
    for path in sorted(folder.glob("*.bson*")):
        name = path.name.split(".bson")[0]
        if path.name.endswith((".bson", ".bson.gz")):
            docs[name] = _bson_file(path)
    extra: dict[str, Any] = {}
    admin = folder.parent / "admin"
    version_file = _find(admin, "system.version") if admin.is_dir() else None
    if version_file is not None:
        docs["admin.system.version"] = _bson_file(version_file)
    for prelude in (
        folder / "prelude.json",
        folder / "prelude.json.gz",
        folder.parent / "prelude.json",
    ):
        if prelude.exists():
            with _open(prelude) as f:
                extra["ServerVersion"] = json.loads(f.read()).get("ServerVersion")
            break
    return docs, extra


def _read(dump: Path | None, archive: Path | None) -> tuple[Docs, dict[str, Any], str]:
    if archive is not None:
        header, by_ns = read_archive(archive, OPTS)
        docs = {coll: d for (db, coll), d in by_ns.items() if db == "config"}
        if not docs:
            dbs = sorted({db for db, _ in by_ns if db})
            raise TwinError(
                f"{archive}: an archive of {', '.join(dbs) or 'nothing'}, not of the config "
                "database (take it with `mongodump --db config --archive`)"
            )
        if ("admin", "system.version") in by_ns:
            docs["admin.system.version"] = by_ns[("admin", "system.version")]
        return (
            docs,
            {"ServerVersion": header.get("server_version"), "VersionSource": "the archive header"},
            f"mongodump archive {archive.name}",
        )
    assert dump is not None
    if not dump.is_dir():
        raise TwinError(f"{dump}: not a directory (--dump takes mongodump's output directory)")
    docs, extra = _read_dir(dump)
    return docs, extra, "mongodump directory"


def capture_dump(dump: Path | None, archive: Path | None) -> tuple[Capture, ChunkReader]:
    docs, extra, what = _read(dump, archive)
    source = str(archive or dump)
    for name in REQUIRED:
        if name not in docs:
            raise TwinError(
                f"{source}: no config.{name} in the dump; take it with `mongodump --db config`"
            )
    if not docs.get("shards"):
        raise TwinError(
            f"{source}: no config.shards: a dump of a replica set or of a config database "
            "without shards, not of a sharded cluster"
        )
    notes: list[str] = []
    version, version_source, fcv = _version(docs, extra, notes)
    major = int(version.split(".")[0]) if version else 7
    colls = sorted(
        (c for c in docs["collections"] if is_user_collection(c)), key=lambda c: str(c["_id"])
    )
    settings = list(docs.get("settings", []))
    chunk_mb = next(
        (int(s["value"]) for s in settings if s.get("_id") == "chunksize" and s.get("value")), None
    )
    chunk_mb = chunk_mb or _DEFAULT_MB.get(major, 128)
    by_key: dict[Any, list[dict[str, Any]]] = {}
    for ch in docs["chunks"]:
        key = ("uuid", sort_key(ch["uuid"])) if "uuid" in ch else ("ns", ch.get("ns"))
        by_key.setdefault(key, []).append(ch)
    costs = _costs(docs, notes)
    capture = Capture(
        captured_from=what,
        shards=[{k: s[k] for k in ("_id", "tags", "draining") if k in s} for s in docs["shards"]],
        databases=[d for d in docs.get("databases", []) if d.get("_id") not in ("admin", "config")],
        collections=[
            {k: c[k] for k in ("_id", "key", "unique", "noBalance", *COLLECTION_FIELDS) if k in c}
            for c in colls
        ],
        tags=[{k: t[k] for k in ("ns", "min", "max", "tag")} for t in docs.get("tags", [])],
        settings=settings,
        server_version=version,
        version_source=version_source,
        fcv=fcv,
        sizes=f"assumed: a dump has no sizes; each chunk half the maximum size ({chunk_mb} MB)",
        costs=costs,
        notes=notes,
        captured_at=None,
        history=history.newest(docs.get("changelog", [])),
        analyzers=_analyzers(docs, major, notes),
    )
    full = {str(c["_id"]): c for c in colls}

    def key_of(c: Mapping[str, Any]) -> tuple[str, Any]:
        """5.0+ entries (with `timestamp`) own their chunks by uuid, older ones by ns (§3.4)."""
        if "timestamp" in c and "uuid" in c:
            return ("uuid", sort_key(c["uuid"]))
        return ("ns", c["_id"])

    owned = {key_of(c) for c in colls}
    orphans = sum(len(v) for k, v in by_key.items() if k not in owned)
    if orphans:
        notes.append(
            f"{orphans} chunks of no sharded collection in the dump skipped (config.system."
            "sessions, dropped or unsplittable collections, or a DDL caught mid-way)"
        )

    def read_chunks(coll: Mapping[str, Any], writer: ChunkWriter) -> None:
        c = full[str(coll["_id"])]
        chunks = sorted(by_key.get(key_of(c), []), key=lambda d: sort_key(d["min"]))
        _check(str(c["_id"]), c["key"], chunks, source)
        half = int(c.get("maxChunkSizeBytes") or chunk_mb * 1024 * 1024) // 2
        for d in chunks:
            size = int(d.get("estimatedDataSizeBytes") or half)
            writer.chunk(d["min"], d["max"], str(d["shard"]), size, 0, bool(d.get("jumbo")))

    return capture, read_chunks


def _check(ns: str, key: Mapping[str, Any], chunks: list[dict[str, Any]], source: str) -> None:
    """A dump has no snapshot across documents (reference P6): chunks that overlap or leave
    a gap are reported with the chunk named, never repaired."""
    listed = CollectionChunks(ns, [d["min"] for d in chunks], [d["max"] for d in chunks])
    listed.shards = [str(d["shard"]) for d in chunks]
    try:
        coverage.check(listed, key, source)
    except TwinError as exc:
        raise TwinError(
            f"{exc} (a dump taken while chunks migrated, split or merged: take it again)"
        ) from None


def _version(
    docs: Docs, extra: Mapping[str, Any], notes: list[str]
) -> tuple[str | None, str, str | None]:
    fcv_doc = next(
        (
            d
            for d in docs.get("admin.system.version", [])
            if d.get("_id") == "featureCompatibilityVersion"
        ),
        None,
    )
    fcv = str(fcv_doc["version"]) if fcv_doc and isinstance(fcv_doc.get("version"), str) else None
    if extra.get("ServerVersion"):
        version = str(extra["ServerVersion"])
        source = str(extra.get("VersionSource", "mongodump's prelude.json"))
        source += " (the binary mongodump read: through a mongos, the mongos)"
    elif docs.get("mongos"):
        version, source = str(docs["mongos"][0].get("mongoVersion")), "config.mongos"
    elif fcv is not None:
        version, source = fcv, "admin.system.version (the FCV)"
    else:
        version, source = _infer(docs), "inferred from the config documents' fields"
    if fcv is None:
        notes.append(
            "no admin.system.version in the dump (a `--db config` dump never has it): the FCV "
            f"is not known; the twin runs at its version's default; version {version} {source}"
        )
    return version, source, fcv


def _infer(docs: Docs) -> str:
    """The newest release the field markers prove (reference §3.7), at least 5.0."""
    colls, chunks = docs.get("collections", []), docs.get("chunks", [])
    if any(c.get("unsplittable") for c in colls) or any(
        s.get("_id") == "config" for s in docs.get("shards", [])
    ):
        return "8.0"
    if any(s.get("_id") == "automerge" for s in docs.get("settings", [])) or any(
        "enableAutoMerge" in c for c in colls
    ):
        return "7.0"
    if any("onCurrentShardSince" in c for c in chunks[:100]):
        return "7.0"
    if any("timestamp" in c for c in colls):
        return "6.0" if any("maxChunkSizeBytes" in c for c in colls) else "5.0"
    return "5.0"


def _analyzers(docs: Docs, major: int, notes: list[str]) -> list[dict[str, Any]]:
    """config.queryAnalyzers (7.0+); a dump without it (older mongo-tools) is said so."""
    found = docs.get("queryAnalyzers")
    if found is None and major >= 7:
        notes.append(
            "no config.queryAnalyzers in the dump: query sampling is not captured "
            "(the twin samples nothing)"
        )
    return list(found or [])


def _costs(docs: Docs, notes: list[str]) -> dict[str, Any]:
    entries = docs.get("changelog")
    if entries is None:
        notes.append(
            "no config.changelog in the dump (older mongo-tools keep 7 config collections): "
            "costs assumed"
        )
        return section(None, "no config.changelog in the dump")
    times = [e["time"] for e in entries if isinstance(e.get("time"), dt.datetime)]
    now = max(times) if times else dt.datetime.now(dt.UTC)
    return section(learn(entries, now, float(DEFAULT_COPY_RATE)))
