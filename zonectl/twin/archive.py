"""Read a `mongodump --archive` stream (gzipped or not; shared/reference/config-dump.md §2):
the header, then each namespace's documents gathered across interleaved blocks. A stream
cut short or a bad length is a TwinError naming the file."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path
from typing import IO, Any, cast

import bson
from bson.codec_options import CodecOptions

from zonectl.twin.errors import TwinError

MAGIC, TERM = 0x8199E26D, 0xFFFFFFFF
MAX_DOC = 16 * 1024 * 1024


def _next(f: IO[bytes], path: Path) -> tuple[bytes | None, bool]:
    """(raw document, False), (None, True) at a terminator, (None, False) at the end."""
    head = f.read(4)
    if not head:
        return None, False
    if len(head) < 4:
        raise TwinError(f"{path}: truncated archive (a partial length)")
    (n,) = struct.unpack("<I", head)
    if n == TERM:
        return None, True
    if n < 5 or n > MAX_DOC:
        raise TwinError(f"{path}: corrupt archive (a document length of {n})")
    body = f.read(n - 4)
    if len(body) != n - 4 or body[-1:] != b"\x00":
        raise TwinError(f"{path}: truncated archive (a document cut short)")
    return head + body, False


def read_archive(
    path: Path, opts: CodecOptions[dict[str, Any]]
) -> tuple[dict[str, Any], dict[tuple[str, str], list[dict[str, Any]]]]:
    try:
        with path.open("rb") as p:
            gz = p.read(2) == b"\x1f\x8b"
        f = cast(IO[bytes], gzip.open(path, "rb") if gz else path.open("rb"))  # noqa: SIM115
    except OSError as exc:
        raise TwinError(f"{path}: cannot read: {exc.strerror}") from None
    try:
        with f:
            return _parse(f, path, opts)
    except (OSError, EOFError, bson.errors.InvalidBSON) as exc:
        raise TwinError(f"{path}: truncated or corrupt archive ({exc})") from None


def _parse(
    f: IO[bytes], path: Path, opts: CodecOptions[dict[str, Any]]
) -> tuple[dict[str, Any], dict[tuple[str, str], list[dict[str, Any]]]]:
    magic = f.read(4)
    if len(magic) < 4 or struct.unpack("<I", magic)[0] != MAGIC:
        raise TwinError(f"{path}: not a mongodump archive (no magic number)")
    raw, _ = _next(f, path)
    if raw is None:
        raise TwinError(f"{path}: truncated archive (no header)")
    header = bson.decode(raw)
    while True:
        raw, term = _next(f, path)
        if term:
            break
        if raw is None:
            raise TwinError(f"{path}: truncated archive (in the collection list)")
    docs: dict[tuple[str, str], list[dict[str, Any]]] = {}
    done: set[tuple[str, str]] = set()
    while True:
        raw, term = _next(f, path)
        if raw is None and not term:
            break
        if raw is None:
            continue
        nh = bson.decode(raw)
        ns = (str(nh.get("db", "")), str(nh.get("collection", "")))
        docs.setdefault(ns, [])
        if nh.get("EOF"):
            done.add(ns)
            if not _next(f, path)[1]:
                raise TwinError(f"{path}: corrupt archive (no terminator after {ns[0]}.{ns[1]})")
            continue
        while True:
            raw, term = _next(f, path)
            if term:
                break
            if raw is None:
                raise TwinError(f"{path}: truncated archive (inside {ns[0]}.{ns[1]})")
            docs[ns].append(bson.decode(raw, codec_options=opts))
    cut = sorted(f"{db}.{c}" for db, c in set(docs) - done if db)
    if cut:
        raise TwinError(f"{path}: truncated archive: {', '.join(cut)} never finished")
    return header, docs
