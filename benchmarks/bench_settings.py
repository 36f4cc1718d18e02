"""Issue 30: planning the balancer settings adds at most one round trip per scope (the
cluster's config.settings documents in one read, the collections' balancing fields in the
config.collections read the plan already makes), measured over the latency proxy of P12.

The cluster of bench_many (7.0, four shards, N pinned collections of four chunks) is
planned twice through benchmarks/latency_proxy.py (2.5 ms each way), as a subprocess, the
command a user runs: with the policy as it is, and with every cluster setting and every
collection's chunkSizeMB and autoMerger named. Prints the commands each sent on the wire
by name, and the difference.

    python benchmarks/bench_settings.py [--collections 200] [--delay-ms 2.5]
"""

from __future__ import annotations

import argparse
import multiprocessing
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_many import run
from latency_proxy import LatencyProxy
from many_kit import names, policy_text, serve_cluster

CLUSTER_SETTINGS = (
    "balancer:\n  chunkSizeMB: 64\n  secondaryThrottle: {w: majority, wtimeout: 60000}\n"
    "  waitForDelete: true\n  attemptToBalanceJumboChunks: true\n  autoMerger: false\n"
)
GOAL_EXTRA = 1  # round trips the settings may add per scope they read beyond the plan's own


def with_settings(text: str, n: int) -> str:
    """The policy with every cluster setting and two settings on every collection."""
    for ns in names(n):
        text = text.replace(f"  {ns}:\n", f"  {ns}:\n    chunkSizeMB: 32\n    autoMerger: false\n")
    return text.replace("shards:\n", CLUSTER_SETTINGS + "shards:\n", 1)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--collections", type=int, default=200)
    parser.add_argument("--delay-ms", type=float, default=2.5, help="added each way")
    args = parser.parse_args()
    n = args.collections
    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve_cluster, args=(n, "pinned", child))
    server.start()
    sent: dict[str, Counter[str]] = {}
    try:
        port = parent.recv()
        with (
            LatencyProxy(("127.0.0.1", port), args.delay_ms / 1000) as proxy,
            tempfile.TemporaryDirectory() as tmp,
        ):
            uri = f"mongodb://127.0.0.1:{proxy.port}/"
            for label, text in (
                ("without settings", policy_text(n, "pinned")),
                ("with every setting", with_settings(policy_text(n, "pinned"), n)),
            ):
                policy = Path(tmp) / f"{label.replace(' ', '-')}.yaml"
                policy.write_text(text, encoding="utf-8")
                wall, _cpu, wire, _out = run(["plan", str(policy), "--uri", uri], proxy)
                wire.pop("hello", None)
                wire.pop("isMaster", None)
                sent[label] = wire
                print(
                    f"  zonectl plan, {n} collections, {label:<18}: {wall:6.2f} s, "
                    f"{sum(wire.values())} commands {dict(sorted(wire.items()))}"
                )
    finally:
        parent.send("stop")
        server.join(60)
    extra = sent["with every setting"].copy()
    extra.subtract(sent["without settings"])
    added = sum(v for v in extra.values() if v > 0)
    verdict = "OK" if added <= GOAL_EXTRA * 2 else "OVER GOAL"
    print(
        f"issue 30: the settings of {n} collections and the cluster add {added} command(s) "
        f"(difference by name: { ({k: v for k, v in extra.items() if v}) }; goal <= one per "
        f"scope, {2 * GOAL_EXTRA}) {verdict}"
    )


if __name__ == "__main__":
    main()
