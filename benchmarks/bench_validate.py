"""Benchmark: `zonectl validate` on 100,000 ranges across 100 namespaces, next to the time
ruamel.yaml alone takes to load the same file (goal: checks add <= 50% on top of parsing).
zonectl composes nodes (they keep line:col) from ruamel.yaml.clib's C parser where the text
allows (zonectl/policy/fast_compose.py; ruamel's Python composer otherwise) and builds
values itself, so its own work is what validate takes beyond zonectl's composing; ruamel's
Python compose is printed beside it. Timings on a busy machine are noisy.

    python benchmarks/bench_validate.py [--ranges 100000] [--namespaces 100]

The ranges are one-hour date windows, alternating between two zones, in a shuffled order
so the overlap check really sorts. Prints one line per measurement and the overhead.
"""

from __future__ import annotations

import argparse
import datetime as dt
import random
import tempfile
import time
from pathlib import Path

from ruamel.yaml import YAML

from zonectl.policy import load_policy
from zonectl.policy.fast_compose import compose_fast
from zonectl.policy.source import compose_documents


def make_policy(ranges: int, namespaces: int) -> str:
    per_ns = ranges // namespaces
    start = dt.datetime(2020, 1, 1, tzinfo=dt.UTC)
    rng = random.Random(42)
    lines = [
        "apiVersion: zonectl/v1",
        "kind: ZonePolicy",
        "shards:",
        "  shard-fast-0: [hot]",
        "  shard-std-0: [archive]",
        "collections:",
    ]
    for n in range(namespaces):
        lines += [f"  db{n}.events:", "    key: {ts: 1, _id: 1}", "    ranges:"]
        order = list(range(per_ns))
        rng.shuffle(order)
        for i in order:
            low = (start + dt.timedelta(hours=i)).strftime("%Y-%m-%dT%H:%M:%SZ")
            high = (start + dt.timedelta(hours=i + 1)).strftime("%Y-%m-%dT%H:%M:%SZ")
            zone = "hot" if i % 2 else "archive"
            lines.append(
                f'      - {{zone: {zone}, min: {{ts: {{$date: "{low}"}}}}, '
                f'max: {{ts: {{$date: "{high}"}}}}}}'
            )
    return "\n".join(lines) + "\n"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ranges", type=int, default=100_000)
    parser.add_argument("--namespaces", type=int, default=100)
    args = parser.parse_args()

    text = make_policy(args.ranges, args.namespaces)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "big.yaml"
        path.write_text(text)
        print(f"policy: {args.ranges:,} ranges, {args.namespaces} namespaces, {len(text):,} bytes")

        started = time.perf_counter()
        YAML(typ="rt").load(path.read_text())
        load_s = time.perf_counter() - started
        print(f"ruamel.yaml round-trip load only : {load_s:8.2f} s")

        started = time.perf_counter()
        YAML(typ="rt").compose(path.read_text())
        compose_s = time.perf_counter() - started
        print(f"ruamel.yaml compose only         : {compose_s:8.2f} s  (its Python composer)")
        started = time.perf_counter()
        _, problems = compose_documents(str(path), path.read_text())
        compose_s = time.perf_counter() - started
        assert not problems, problems
        how = "C parser's events" if compose_fast(text) is not None else "ruamel's Python composer"
        print(f"zonectl compose                  : {compose_s:8.2f} s  (zonectl parses: {how})")

        started = time.perf_counter()
        desired = load_policy([path]).desired
        validate_s = time.perf_counter() - started
        print(f"zonectl load_policy (validate)   : {validate_s:8.2f} s")

    count = sum(len(c.ranges) for c in desired.collections.values())
    assert count == args.ranges // args.namespaces * args.namespaces, count
    own = max(validate_s - compose_s, 0.0)
    print(f"zonectl's own work (validate - compose): {own:.2f} s")
    print(
        f"validate / ruamel load = {validate_s / load_s:.2f}x; zonectl's own work adds "
        f"{own / load_s * 100:.1f}% of ruamel's load time (goal: <= 50%)"
    )


if __name__ == "__main__":
    main()
