"""`zonectl twin --dump DIR`: a mongodump-style directory (written here with bson.encode, as
mongodump writes it) plans the same ops as the cluster it came from; bad dumps exit 3 with
what is missing named, and leave no twin behind."""

from __future__ import annotations

import gzip
from pathlib import Path
from typing import Any

import bson
from twin_util import NEXT, POLICY, SLOW, config_docs, ops, run

from zonectl.sandbox import uri as sandbox_uri


def _write(folder: Path, docs: dict[str, list[dict[str, Any]]], gz: bool = False) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name, items in docs.items():
        data = b"".join(bson.encode(d) for d in items)
        if gz:
            (folder / f"{name}.bson.gz").write_bytes(gzip.compress(data))
        else:
            (folder / f"{name}.bson").write_bytes(data)
        (folder / f"{name}.metadata.json").write_text(f'{{"indexes":[],"collectionName":"{name}"}}')


def _cluster(tmp_path: Path) -> tuple[str, dict[str, list[dict[str, Any]]]]:
    (tmp_path / "cluster.yaml").write_text(SLOW)
    (tmp_path / "first.yaml").write_text(POLICY)
    real = f"sandbox:{tmp_path / 'cluster.yaml'}?state={tmp_path / 'real.state'}"
    assert (
        run("apply", str(tmp_path / "first.yaml"), "--uri", real, "--yes", "--migrate").exit_code
        == 0
    )
    with sandbox_uri.start(real) as handle:
        docs = config_docs(handle.sandbox)
    return real, docs


def test_a_twin_from_a_dump_directory_plans_the_same_ops(tmp_path: Path) -> None:
    real, docs = _cluster(tmp_path)
    _write(tmp_path / "dump" / "config", docs, gz=True)
    twin = tmp_path / "case.twin.yaml"
    out = run("twin", "--dump", str(tmp_path / "dump"), "-o", str(twin))
    assert out.exit_code == 0, out.output
    assert "learned from 12 migrations" in twin.read_text()
    assert "no admin.system.version in the dump" in out.output
    text = twin.read_text()
    assert "versionSource: inferred from the config documents' fields" in text
    assert "version: '7.0'" in text  # enableAutoMerge is a 7.0 marker
    (tmp_path / "next.yaml").write_text(NEXT)
    nxt = str(tmp_path / "next.yaml")
    assert ops(nxt, f"sandbox:{twin}") == ops(nxt, real)


def test_bad_dumps_exit_3_naming_what_is_missing(tmp_path: Path) -> None:
    _, docs = _cluster(tmp_path)
    out_file = tmp_path / "t.yaml"

    def twin(folder: Path) -> Any:
        return run("twin", "--dump", str(folder), "-o", str(out_file))

    (tmp_path / "empty").mkdir()
    res = twin(tmp_path / "empty")
    assert res.exit_code == 3 and "not a config dump" in res.output
    _write(tmp_path / "rs" / "config", {k: v for k, v in docs.items() if k != "shards"})
    res = twin(tmp_path / "rs")
    assert res.exit_code == 3 and "no config.shards" in res.output
    _write(tmp_path / "cut" / "config", docs)
    chunks = tmp_path / "cut" / "config" / "chunks.bson"
    chunks.write_bytes(chunks.read_bytes()[:-7])
    res = twin(tmp_path / "cut")
    assert res.exit_code == 3 and "chunks.bson: truncated" in res.output
    assert not out_file.exists()
    moving = [dict(c) for c in docs["chunks"]]
    third = next(c for c in moving if c["min"] == {"x": 300})
    third["max"] = {"x": 450}  # as a dump taken while a split committed might show it
    _write(tmp_path / "mid" / "config", {**docs, "chunks": moving})
    res = twin(tmp_path / "mid")
    assert res.exit_code == 3 and "app.e chunk 4" in res.output and "overlaps" in res.output
    assert "take it again" in res.output and not out_file.exists()
    _write(tmp_path / "old" / "config", {k: v for k, v in docs.items() if k != "changelog"})
    res = twin(tmp_path / "old")
    assert res.exit_code == 0 and "no config.changelog in the dump" in res.output
    assert "assumed" in out_file.read_text()
