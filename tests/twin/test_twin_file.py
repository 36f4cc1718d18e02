"""A twin edited by hand with overlapping chunks or a gap is refused by `sandbox --cluster`
with the chunk named (exit 3); an anonymized twin shows no names or bound values and still
lays out the same chunks."""

from __future__ import annotations

from pathlib import Path

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
