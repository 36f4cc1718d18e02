"""A cluster that keeps migrating while it is captured: the collection version moves during
each read, so the collection is read again, and after the retries the twin is still
written with a warning naming the collection."""

from __future__ import annotations

import threading
from pathlib import Path

from twin_util import SLOW, run

from zonectl.sandbox import uri as sandbox_uri


def test_a_collection_that_moves_during_capture_is_retried_then_warned(tmp_path: Path) -> None:
    big = SLOW.replace("chunks: 24", "chunks: 20000")
    (tmp_path / "cluster.yaml").write_text(big)
    stop = threading.Event()
    moves = 0
    with sandbox_uri.start(f"sandbox:{tmp_path / 'cluster.yaml'}") as real:
        sandbox = real.sandbox
        store = sandbox.cluster.chunks("app.e")
        assert store is not None

        def migrate() -> None:
            nonlocal moves
            while not stop.wait(0.002):
                with sandbox.lock:
                    i = moves % len(store)
                    to = "h1" if store.shard_at(i) != "h1" else "h2"
                    store.move(i, to, sandbox.cluster.now_ts())
                moves += 1

        mover = threading.Thread(target=migrate, daemon=True)
        mover.start()
        try:
            out = run("twin", "--uri", real.uri, "-o", str(tmp_path / "t.yaml"))
        finally:
            stop.set()
            mover.join()
    assert out.exit_code == 0, out.output
    assert "app.e: the collection version moved while it was read 3 times" in out.output
    assert moves >= 3
    with sandbox_uri.start(f"sandbox:{tmp_path / 't.yaml'}") as twin:
        assert len(twin.sandbox.cluster.chunks("app.e")) == 20000
