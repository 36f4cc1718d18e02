"""`twin --all -o DIR` writes one twin per inventory cluster, each named after its cluster."""

from __future__ import annotations

from pathlib import Path

from twin_util import SLOW, run

from zonectl.sandbox import uri as sandbox_uri


def test_one_twin_per_cluster(tmp_path: Path) -> None:
    (tmp_path / "cluster.yaml").write_text(SLOW)
    (tmp_path / "small.yaml").write_text(SLOW.replace("chunks: 24", "chunks: 5"))
    with (
        sandbox_uri.start(f"sandbox:{tmp_path / 'cluster.yaml'}") as east,
        sandbox_uri.start(f"sandbox:{tmp_path / 'small.yaml'}") as west,
    ):
        inventory = tmp_path / "clusters.yaml"
        inventory.write_text(
            "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
            f'  - name: east\n    uri: {{value: "{east.uri}"}}\n'
            f'  - name: west\n    uri: {{value: "{west.uri}"}}\n'
        )
        out = run("twin", "--inventory", str(inventory), "--all", "-o", str(tmp_path / "twins"))
    assert out.exit_code == 0, out.output
    names = sorted(p.name for p in (tmp_path / "twins").iterdir())
    assert names == [
        "east.twin.chunks.bson",
        "east.twin.yaml",
        "west.twin.chunks.bson",
        "west.twin.yaml",
    ]
    for name, chunks in (("east", 24), ("west", 5)):
        with sandbox_uri.start(f"sandbox:{tmp_path / 'twins' / f'{name}.twin.yaml'}") as twin:
            store = twin.sandbox.cluster.chunks("app.e")
            assert store is not None and len(store) == chunks
