"""The simulated firehose week (issue 6 §3) as a printed table: the firehose sandbox (one
10x shard, ten ordinary ones), inserts growing the top chunk every 3 hours, `zonectl
rotate --at` five minutes after each midnight (the 4th day's run skipped) and again an
hour later, balancer rounds in between. Runs in seconds; no MongoDB needed.

    python benchmarks/week_demo.py [--days 7] [--skip 4] [--migrate]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "rotate"))

from bson import ObjectId
from rotate_kit import Firehose, seeded, tap
from week import NAMESPACES, Day, simulate

from zonectl.sandbox.launch import serve

COLUMNS = (
    ("day", 4),
    ("rotate at", 18),
    ("collection", 11),
    ("boundary", 17),
    ("hot before", 10),
    ("hot after", 9),
    ("off hot", 7),
    ("ops", 3),
    ("rounds", 6),
    ("rerun", 5),
)


def _instant(value: Any) -> str:
    when = value.generation_time if isinstance(value, ObjectId) else value
    return f"{when:%Y-%m-%d %H:%M}"


def _row(n: int, day: Day, ns: str) -> list[str]:
    first = ns == NAMESPACES[0]
    return [
        str(n) if first else "",
        (_instant(day.at) + ("" if day.rotated else " *")) if first else "",
        ns,
        _instant(day.boundary[ns]),
        str(day.before[ns].on_hot),
        str(day.after[ns].on_hot),
        str(day.after[ns].off_hot),
        str(day.ops) if first else "",
        str(day.rounds) if first else "",
        ("none" if not day.rerun_writes else "WRITE") if first and day.rotated else "",
    ]


def _print(cells: list[str]) -> None:
    print(
        "  ".join(
            c.rjust(w) if i >= 4 else c.ljust(w)
            for i, (c, (_, w)) in enumerate(zip(cells, COLUMNS, strict=True))
        ).rstrip()
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--skip", type=int, nargs="*", default=[4], help="days without a run")
    parser.add_argument("--migrate", action="store_true", help="rotate with --migrate")
    args = parser.parse_args()

    sandbox = seeded()
    server = serve(sandbox)
    import pymongo

    client: Any = pymongo.MongoClient(server.uri, tz_aware=True)
    fh = Firehose(sandbox, server.uri, client)
    tap(sandbox, fh.sent)
    rotate_args = ("--yes", "--migrate") if args.migrate else ("--yes",)
    print(
        "zonectl rotate, one simulated week: shard-10x carries zone hot, shard-00..09 zone "
        "archive;\nhot before/after = chunks on shard-10x right after rotate / after the "
        "balancer; * = run skipped\n"
    )
    _print([name for name, _ in COLUMNS])
    _print(["-" * w for _, w in COLUMNS])
    started = time.perf_counter()
    failed = False

    def show(day: Day) -> None:
        nonlocal failed
        n = len(rows) + 1
        rows.append(day)
        for ns in NAMESPACES:
            _print(_row(n, day, ns))
        if day.result is not None and day.result.code != 0:
            failed = True
            print(f"     rotate exited {day.result.code}: {day.result.err.strip()}")

    rows: list[Day] = []
    try:
        simulate(fh, args.days, skip=set(args.skip), rotate_args=rotate_args, on_day=show)
    finally:
        client.close()
        server.close()
    elapsed = time.perf_counter() - started
    old_on_hot = sum(d.after[ns].old_on_hot for d in rows for ns in NAMESPACES)
    new_off_hot = sum(d.after[ns].new_off_hot for d in rows for ns in NAMESPACES)
    reruns = sum(bool(d.rerun_writes) for d in rows)
    print(
        f"\n{args.days} days in {elapsed:.1f}s: chunks older than the boundary left on "
        f"shard-10x: {old_on_hot}; window chunks off shard-10x: {new_off_hot}; "
        f"second runs that wrote: {reruns}"
    )
    return 1 if failed or old_on_hot or new_off_hot or reruns else 0


if __name__ == "__main__":
    sys.exit(main())
