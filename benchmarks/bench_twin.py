"""Issue 32: a twin of a 200,000-chunk cluster. Prints the capture time against
`zonectl status` on the same cluster (target <= 2x) and the capture's peak memory, the time
a sandbox takes to be ready from the twin against the same cluster generated from a compact
cluster file (target <= 2x), and the rehearsal error: `apply --migrate` on the twin of a
cluster whose copy rate zonectl is not told, against the real run (target <= 20 %).

    python benchmarks/bench_twin.py [--chunks 200000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox import uri as sandbox_uri

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "migrate_time"))
from six_shards import CLUSTER, POLICY  # noqa: E402

CLUSTER_FILE = """version: "7.0"
shards: [{{name: s0}}, {{name: s1}}, {{name: s2}}, {{name: s3}}]
collections:
  - ns: app.events
    key: {{x: 1}}
    chunks: {chunks}
    keys: {{type: int, start: 0, step: 100}}
    chunkSize: {{bytes: 1048576, docs: 100}}
"""


# The child reports its own peak (VmHWM, Linux): ru_maxrss survives execve, so a child forked
# from this process (which holds the 200,000-chunk sandbox) would report this one's size.
_CHILD = (
    "import runpy, sys; sys.argv = ['zonectl', *sys.argv[1:]]\n"
    "try:\n    runpy.run_module('zonectl', run_name='__main__')\n"
    "finally:\n    hwm = [l for l in open('/proc/self/status') if l.startswith('VmHWM')]\n"
    "    print(hwm[0].split()[1], file=sys.stderr)"
)


def zonectl(*args: str) -> tuple[float, int]:
    """Seconds and peak RSS (KiB) of one `zonectl` run in a child process."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", _CHILD, *args], env=env, check=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)  # fmt: skip
    took = time.perf_counter() - start
    return took, int(done.stderr.strip().splitlines()[-1])


def ready(uri: str) -> float:
    start = time.perf_counter()
    sandbox_uri.build_sandbox(sandbox_uri.parse(uri))
    return time.perf_counter() - start


def scale(tmp: Path, chunks: int) -> None:
    cluster = tmp / "big.yaml"
    cluster.write_text(CLUSTER_FILE.format(chunks=chunks))
    generated = ready(f"sandbox:{cluster}")
    twin = tmp / "big.twin.yaml"
    with sandbox_uri.start(f"sandbox:{cluster}") as handle:
        # The capture first: RUSAGE_CHILDREN's peak is over every child waited for so far.
        capture_s, rss_kib = zonectl("twin", "--uri", handle.uri, "-o", str(twin))
        status_s, status_kib = zonectl("status", "--uri", handle.uri)
    served = ready(f"sandbox:{twin}")
    side = tmp / "big.twin.chunks.bson"
    print(f"chunks                 {chunks}")
    print(f"status                 {status_s:.2f} s, peak RSS {status_kib / 1024:.0f} MiB")
    print(f"twin capture           {capture_s:.2f} s  ({capture_s / status_s:.2f}x status; "
          f"target <= 2x), peak RSS {rss_kib / 1024:.0f} MiB, sidecar "
          f"{side.stat().st_size / 2**20:.1f} MiB")  # fmt: skip
    print(f"ready, generated       {generated:.2f} s")
    print(f"ready, twin            {served:.2f} s  ({served / generated:.2f}x; target <= 2x)")


def rehearsal(tmp: Path) -> None:
    if not app.registered_commands:
        register(app)

    def run(*args: str) -> None:
        assert CliRunner().invoke(app, list(args), catch_exceptions=False).exit_code == 0

    slow = CLUSTER.replace(
        "{name: c2, zones: [cold]}", "{name: c2, zones: [cold], copyRate: 3MiB/s}"
    )
    (tmp / "six.yaml").write_text(slow)
    (tmp / "first.yaml").write_text(POLICY)
    (tmp / "next.yaml").write_text(POLICY.replace("1300", "2000"))
    real = f"sandbox:{tmp / 'six.yaml'}?state={tmp / 'real.state'}"
    run("apply", str(tmp / "first.yaml"), "--uri", real, "--yes", "--migrate")
    with sandbox_uri.start(real) as handle:
        run("twin", "--uri", handle.uri, "-o", str(tmp / "six.twin.yaml"))
    twin = f"sandbox:{tmp / 'six.twin.yaml'}?state={tmp / 'twin.state'}"
    spans = {}
    for name, uri in (("real", real), ("twin", twin)):
        with sandbox_uri.start(uri) as h:
            seen = {d["_id"] for d in h.sandbox.cluster.coll("config.changelog")}
        run("apply", str(tmp / "next.yaml"), "--uri", uri, "--yes", "--migrate")
        with sandbox_uri.start(uri) as h:
            log = [d for d in h.sandbox.cluster.coll("config.changelog") if d["_id"] not in seen]
        starts = [d["time"] for d in log if d["what"] == "moveChunk.start"]
        ends = [d["time"] for d in log if d["what"] == "moveChunk.from"]
        spans[name] = (max(ends) - min(starts)).total_seconds()
    error = spans["twin"] / spans["real"] - 1
    print(f"rehearsal              real {spans['real']:.1f} s, twin {spans['twin']:.1f} s "
          f"simulated: error {error:+.1%} (target within 20 %)")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--chunks", type=int, default=200_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        scale(Path(tmp), args.chunks)
        rehearsal(Path(tmp))


if __name__ == "__main__":
    main()
