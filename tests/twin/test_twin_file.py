"""A twin edited by hand with overlapping chunks or a gap is refused by `sandbox --cluster`
with the chunk named (exit 3); an anonymized twin shows no names or bound values and still
lays out the same chunks."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

import pytest
from twin_util import SLOW, run

from zonectl.sandbox import uri as sandbox_uri


def _twin(tmp_path: Path, *flags: str) -> Path:
    (tmp_path / "cluster.yaml").write_text(SLOW)
    twin = tmp_path / "t.yaml"
    with sandbox_uri.start(f"sandbox:{tmp_path / 'cluster.yaml'}") as handle:
        assert run("twin", "--uri", handle.uri, "-o", str(twin), *flags).exit_code == 0
    return twin


def test_overlap_and_gap_are_refused_with_the_chunk_named(tmp_path: Path) -> None:
    twin = _twin(tmp_path, "--jsonl")
    side = tmp_path / "t.chunks.jsonl"
    lines = side.read_text().splitlines()
    original = list(lines)
    lines[5] = lines[5].replace('"$numberInt": "400"', '"$numberInt": "450"', 1)  # chunk 3's max
    side.write_text("\n".join(lines) + "\n")
    res = run("sandbox", "--cluster", str(twin), "--port", "0")
    assert res.exit_code == 3, res.output
    assert "app.e chunk 4" in res.output and "overlaps the chunk before it" in res.output
    lines = list(original)
    lines[5] = lines[5].replace('"$numberInt": "400"', '"$numberInt": "350"', 1)
    side.write_text("\n".join(lines) + "\n")
    res = run("sandbox", "--cluster", str(twin), "--port", "0")
    assert res.exit_code == 3 and "app.e chunk 4" in res.output and "gap" in res.output


def test_an_anonymized_twin_keeps_the_layout_and_hides_names_and_values(tmp_path: Path) -> None:
    twin = _twin(tmp_path, "--anonymize", "--jsonl")
    text = twin.read_text() + (tmp_path / "t.chunks.jsonl").read_text()
    for secret in ("app.e", "h0", "c2", "hot", "cold", '"1300"', '"2300"'):
        assert secret not in text
    with sandbox_uri.start(f"sandbox:{tmp_path / 'cluster.yaml'}") as real:
        want = sorted(real.sandbox.cluster.chunks("app.e").chunk_counts().values())
    with sandbox_uri.start(f"sandbox:{twin}") as anon:
        store = anon.sandbox.cluster.chunks("db1.c1")
        assert store is not None and sorted(store.chunk_counts().values()) == want
        assert len(anon.sandbox.cluster.zone_ranges("db1.c1")) == 2


# The capture reads the migration history of the weeks before the cluster's clock: pinned near
# the entry's date, or the test would pass only in the weeks after 2026-11-02.
NOW = "2026-11-10T00:00:00Z"


@pytest.mark.parametrize("flags", [(), ("--jsonl",)], ids=["bson", "jsonl"])
def test_a_twin_written_by_zonectl_twin_loads_chunk_for_chunk(
    tmp_path: Path, flags: tuple[str, ...]
) -> None:
    """zonectl.twin writes the chunk sidecar and the sandbox reads it with its own reader
    (zonectl/sandbox/seed/twin_chunks.py): every bound, owner, size, count and jumbo flag,
    and the migration history, come back as captured."""
    (tmp_path / "cluster.yaml").write_text(SLOW)
    twin = tmp_path / "t.yaml"
    entry = {
        "_id": "m1", "server": "cfg0", "what": "moveChunk.commit", "ns": "app.e",
        "time": dt.datetime(2026, 11, 2, 3, 4, 5, tzinfo=dt.UTC),
        "details": {"min": {"x": 100}, "max": {"x": 200}, "from": "h0", "to": "c0"},
    }  # fmt: skip
    with sandbox_uri.start(f"sandbox:{tmp_path / 'cluster.yaml'}?now={NOW}") as real:
        store = real.sandbox.cluster.chunks("app.e")
        assert store is not None
        store.set_jumbo(5, True)
        real.sandbox.cluster.coll("config.changelog").put(entry)
        want = [_chunk(store.document(i)) for i in range(len(store))]
        assert run("twin", "--uri", real.uri, "-o", str(twin), *flags).exit_code == 0
    with sandbox_uri.start(f"sandbox:{twin}") as served:
        got_store = served.sandbox.cluster.chunks("app.e")
        assert got_store is not None
        assert [_chunk(got_store.document(i)) for i in range(len(got_store))] == want
        assert [i for i in range(len(got_store)) if got_store.jumbo_at(i)] == [5]
        log = [d for d in served.sandbox.cluster.coll("config.changelog") if d["ns"] == "app.e"]
    assert [(d["what"], d["details"]) for d in log] == [(entry["what"], entry["details"])]
    assert "server" not in log[0]


def _chunk(doc: Any) -> tuple[Any, ...]:
    return (doc["min"], doc["max"], doc["shard"], doc.get("jumbo", False))
