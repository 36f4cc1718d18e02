"""`zonectl twin --archive FILE` reads mongodump's archive format (written here block by
block as shared/reference/config-dump.md §2 describes it, gzipped): it plans the same ops as
the cluster; an archive of another database or one cut short exits 3 and writes nothing."""

from __future__ import annotations

import gzip
import struct
from pathlib import Path
from typing import Any

import bson
from test_dump import _cluster
from twin_util import NEXT, ops, run

MAGIC = struct.pack("<I", 0x8199E26D)
TERM = b"\xff\xff\xff\xff"


def _archive(db: str, docs: dict[str, list[dict[str, Any]]]) -> bytes:
    out = [
        MAGIC,
        bson.encode(
            {
                "concurrent_collections": 4,
                "version": "0.1",
                "server_version": "7.0.16",
                "tool_version": "100.10.0",
            }
        ),
    ]
    for name in docs:
        out.append(bson.encode({"db": db, "collection": name, "metadata": "", "size": 0}))
    out.append(TERM)
    for name, items in docs.items():  # two blocks per namespace, interleaving allowed
        half = len(items) // 2
        for part in (items[:half], items[half:]):
            out.append(bson.encode({"db": db, "collection": name, "EOF": False, "CRC": 0}))
            out += [bson.encode(d) for d in part]
            out.append(TERM)
    for name in docs:
        out.append(bson.encode({"db": db, "collection": name, "EOF": True, "CRC": 0}))
        out.append(TERM)
    return b"".join(out)


def test_an_archive_plans_the_same_and_bad_archives_exit_3(tmp_path: Path) -> None:
    real, docs = _cluster(tmp_path)
    archive = tmp_path / "config.archive.gz"
    archive.write_bytes(gzip.compress(_archive("config", docs)))
    twin = tmp_path / "a.yaml"
    out = run("twin", "--archive", str(archive), "-o", str(twin))
    assert out.exit_code == 0, out.output
    assert "the archive header" in twin.read_text()  # the header's server_version
    (tmp_path / "next.yaml").write_text(NEXT)
    nxt = str(tmp_path / "next.yaml")
    assert ops(nxt, f"sandbox:{twin}") == ops(nxt, real)
    other = tmp_path / "app.archive"
    other.write_bytes(_archive("app", {"users": [{"_id": 1}]}))
    res = run("twin", "--archive", str(other), "-o", str(tmp_path / "b.yaml"))
    assert res.exit_code == 3 and "an archive of app, not of the config database" in res.output
    cut = tmp_path / "cut.archive"
    cut.write_bytes(_archive("config", docs)[:-4000])
    res = run("twin", "--archive", str(cut), "-o", str(tmp_path / "c.yaml"))
    assert res.exit_code == 3 and "truncated archive" in res.output
    assert not (tmp_path / "b.yaml").exists() and not (tmp_path / "c.yaml").exists()
