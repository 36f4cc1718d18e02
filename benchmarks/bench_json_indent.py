"""Issue 41: writing `plan --format json` at 10,000 collections. Times
`json.dumps(doc, indent=2, ensure_ascii=False)` (Python 3.11's pure-Python encoder once an
indent is given) against zonectl.render.json_indent.dumps_indented on the same document,
checks the two texts are equal, and prints the best of --repeat runs of each, alternating.

The document is a saved plan (`plan --save-plan FILE` or `--format json` output) when a
path is given, else a plan-shaped one of --ops operations made here (each op with its args,
bounds, command and impact, and a forecast row per namespace, as a 10,000-collection plan
has).

    python benchmarks/bench_json_indent.py [PLAN.json] [--ops 10000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from zonectl.render.json_indent import dumps_indented


def plan_shaped(ops: int) -> dict[str, Any]:
    def bounds(n: int) -> dict[str, Any]:
        return {"x": {"$minKey": 1}} if n % 2 else {"x": {"$numberInt": str(n)}}

    return {
        "format_version": 1,
        "ops": [
            {
                "kind": "assign_zone_range",
                "description": f"assign [{{ x: MinKey }}, {{ x: MaxKey }}) of db.t{i:05} to hot",
                "namespace": f"db.t{i:05}",
                "destructive": False,
                "args": {"ns": f"db.t{i:05}", "zone": "hot", "min": bounds(i), "max": bounds(i)},
                "database": "admin",
                "command": {"updateZoneKeyRange": f"db.t{i:05}", "min": bounds(i), "zone": "hot"},
                "impact": {"chunks": 4, "migrating": 2, "bytes": 67108864},
            }
            for i in range(ops)
        ],
        "forecast": {
            "namespaces": [
                {"ns": f"db.t{i:05}", "chunks": 2, "migrate_seconds": 1.5, "eta": None}
                for i in range(ops)
            ]
        },
    }


def timed(call: Callable[[], str], runs: list[float]) -> str:
    start = time.perf_counter()
    text = call()
    runs.append(time.perf_counter() - start)
    return text


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("plan", nargs="?", type=Path, help="a saved plan (JSON)")
    parser.add_argument("--ops", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    doc = json.loads(args.plan.read_text(encoding="utf-8")) if args.plan else plan_shaped(args.ops)
    stdlib: list[float] = []
    writer: list[float] = []
    for _ in range(args.repeat):
        expected = timed(lambda: json.dumps(doc, indent=2, ensure_ascii=False), stdlib)
        got = timed(lambda: dumps_indented(doc, ensure_ascii=False), writer)
        assert got == expected, "dumps_indented differs from json.dumps"
    size = len(expected.encode())
    lines = expected.count("\n") + 1
    print(f"document: {size / 1e6:.1f} MB, {lines:,} lines; best of {args.repeat}")
    print(f"json.dumps(indent=2)  {min(stdlib):7.3f} s")
    print(f"dumps_indented        {min(writer):7.3f} s")
    print(f"ratio                 {min(stdlib) / min(writer):7.2f}x  (texts equal)")


if __name__ == "__main__":
    main()
