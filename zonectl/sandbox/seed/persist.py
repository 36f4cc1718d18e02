"""Save the whole sandbox state to a file and load it back, so a demo survives restarts.

Format: a header line, then BSON records: one `meta`, one per plain collection, per
sharded collection a `store` record followed by one record per chunk (its served document,
size and count), and last one `volumes` record (the shards' disks, the collections' storage
figures and each file's allocated size: catalog/volumes.py). Records are encoded with the
codec the wire uses (sandbox/codec.py), so every value a client stored comes back as it was:
a UUID, a time-zone-aware date, a date outside Python's range. Written to a temporary file
in the same directory, fsynced, then renamed over the target: a failed save keeps the
previous file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import bson
from bson.binary import UuidRepresentation
from bson.codec_options import CodecOptions
from bson.raw_bson import RawBSONDocument

from zonectl.atomic import replacing
from zonectl.errors import ZonectlError
from zonectl.sandbox.catalog.chunk_doc import DocForm
from zonectl.sandbox.catalog.chunks import ChunkStore
from zonectl.sandbox.catalog.store import MemoryCollection
from zonectl.sandbox.codec import CODEC

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

HEADER = b"ZONECTL-SANDBOX-STATE 1\n"
_RAW = CodecOptions(document_class=RawBSONDocument)
# Plain collections read back as the wire decodes (time-zone-aware dates, a date beyond
# datetime's range as DatetimeMS), but a UUID as the subtype-4 Binary the sandbox's own
# documents hold (config.collections' uuid, which collection_uuid and the chunk views expect).
# A client's UUID (uuid.UUID after the wire's decode) comes back as that same Binary: it
# compares (model.keys) and encodes the same.
_PLAIN = CODEC.with_options(uuid_representation=UuidRepresentation.UNSPECIFIED)


class StateFileError(ZonectlError):
    """A state file that cannot be read back."""


class StateSaveError(ZonectlError):
    """The state could not be written; the file that was there is left as it was."""


def save(sandbox: Sandbox, path: str | Path) -> None:
    """Atomically write the sandbox state to `path` (holds the sandbox lock while copying).
    Raises StateSaveError (one line, naming the file) when the file cannot be written."""
    path = Path(path)
    try:
        _write(sandbox, path)
    except OSError as exc:
        kept = "its previous content is kept" if path.exists() else "nothing was written"
        raise StateSaveError(
            f"{path}: could not save the sandbox state ({exc.strerror or exc}); {kept}",
            hint="free space or choose another state file (--state / state=)",
        ) from None


def _write(sandbox: Sandbox, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    # Owner-only, as it always was: the file holds every document clients stored.
    with replacing(path, mode=0o600) as out, sandbox.lock:
        out.write(HEADER)
        for record in _records(sandbox):
            out.write(bson.encode(record, codec_options=CODEC))


def _records(sandbox: Sandbox) -> Iterator[dict[str, Any]]:
    cluster = sandbox.cluster
    meta = {"t": "meta", "version": sandbox.version.major_minor, "ts": list(cluster.ts_state())}
    # spareShards: the replica sets addShard reaches (absent: any host answers).
    spares = {} if cluster.spares is None else {"spares": cluster.spares}
    yield {**meta, "clock": sandbox.clock.now(), **spares}
    for ns in sandbox.catalog.namespaces():
        coll = sandbox.catalog.get(ns)
        if isinstance(coll, MemoryCollection):
            yield {"t": "coll", "ns": ns, "docs": list(coll), "meta": coll.meta}
    for store in cluster.stores():
        yield {
            "t": "store",
            "ns": store.ns,
            "uuid": store.uuid,
            "epoch": store.epoch,
            "byUuid": store.form.by_uuid,
            "ocss": store.form.on_current_shard_since,
            "n": len(store),
        }
        sizes, counts = store.sizes()
        for i, raw in enumerate(store.raw_slice()):
            yield {"d": RawBSONDocument(raw), "s": sizes[i], "c": counts[i]}
    yield {"t": "volumes", **cluster.volumes.state()}


def read_version(path: str | Path) -> str | None:
    """The server version a state file was saved with (None if the file does not exist)."""
    path = Path(path)
    if not path.exists():
        return None
    with path.open("rb") as f:
        records = _iter_records(f, path)
        meta = next(records, None)
    if meta is None or meta.get("t") != "meta":
        raise StateFileError(f"{path}: not a zonectl sandbox state file (no meta record)")
    return str(meta["version"])


def load(sandbox: Sandbox, path: str | Path) -> None:
    """Replace the (fresh) sandbox's metadata with the state saved in `path`."""
    path = Path(path)
    cluster = sandbox.cluster
    with sandbox.lock, path.open("rb") as f:
        records = _iter_records(f, path)
        for record in records:
            kind = record.get("t")
            if kind == "meta":
                ts = record.get("ts")
                if ts:
                    cluster.restore_ts(int(ts[0]), int(ts[1]))
                _restore_clock(sandbox, record.get("clock"))
                if "spares" in record:
                    spares = bson.decode(record.raw, _PLAIN)["spares"]
                    cluster.spares = [{"name": d["name"], "host": d["host"]} for d in spares]
            elif kind == "coll":
                plain = bson.decode(record.raw, _PLAIN)
                coll = MemoryCollection(record["ns"], plain["docs"], plain.get("meta"))
                sandbox.catalog.mount(record["ns"], coll)
            elif kind == "store":
                store = ChunkStore(
                    record["ns"],
                    record["uuid"],
                    record["epoch"],
                    DocForm(by_uuid=record["byUuid"], on_current_shard_since=record["ocss"]),
                )
                raws, sizes, counts = [], [], []
                for _ in range(int(record["n"])):
                    chunk = next(records, None)
                    if chunk is None:
                        raise StateFileError(f"{path}: truncated chunk list of {store.ns}")
                    raws.append(chunk["d"].raw)
                    sizes.append(int(chunk["s"]))
                    counts.append(int(chunk["c"]))
                store.load_documents(raws, sizes, counts)
                cluster.attach_store(store)
            elif kind == "volumes":  # after the stores: their files keep the saved sizes
                cluster.volumes.restore(bson.decode(record.raw, _PLAIN))
            else:
                raise StateFileError(f"{path}: unknown record {kind!r}")


def _restore_clock(sandbox: Sandbox, saved: Any) -> None:
    """A virtual clock resumes where the last run left it when that is later than now: the
    migrations a command simulated moved it ahead of real time, and a cluster's clock never
    runs backwards (else the changelog they wrote would be dated in the next run's future).
    A real-time clock (`zonectl sandbox --time-scale`) keeps following this host's."""
    if isinstance(saved, dt.datetime):
        aware = saved if saved.tzinfo else saved.replace(tzinfo=dt.UTC)
        sandbox.clock.advance_to(aware)


def _iter_records(f: BinaryIO, path: Path) -> Iterator[RawBSONDocument]:
    if f.read(len(HEADER)) != HEADER:
        raise StateFileError(f"{path}: not a zonectl sandbox state file")
    try:
        yield from bson.decode_file_iter(f, codec_options=_RAW)
    except bson.errors.InvalidBSON as exc:
        raise StateFileError(f"{path}: corrupt state file: {exc}") from None
