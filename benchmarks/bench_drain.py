"""Issue 39, Performance: the drain forecast against the measured drain, side by side.

A 7.0 sandbox cluster of 4 shards (s0-s3), a sharded collection spread over them in chunks of
skewed sizes (log-normal, 1-128 MiB), a database whose primary is s3; s3 is removed. The
sandbox's costs are its own (sandbox/balancer/costs.py): zonectl is not told them. A warm-up
of 48 moves of another collection (every shard giving and taking) fills config.changelog
first, so zonectl learns the cost of a migration from it, as it would after a first small
`apply --migrate` or a few balancer migrations.

Per case, in simulated time from the same start:
- forecast: `zonectl plan` (JSON, no --copy-rate, --at the sandbox's clock) of a policy
  that sets s3 `state: removed`, its `forecast.drains` entry. Where this zonectl does not
  plan a removal yet, the same pure forecast (zonectl.forecast.drain) is fed by hand (the
  learned cost model from config.changelog, the shard's chunks and bytes as
  $shardedDataDistribution gives them) and the row says so ("lib").
- (a) the sandbox's balancer: `removeShard` through pymongo, movePrimary of s3's database,
  balancer rounds until s3 holds no chunk, `removeShard` again until `completed`.
- (b) `zonectl apply --migrate --yes` of the same policy, timed around the command, on a
  fresh copy of the same cluster (warmed up the same way); where this zonectl does not plan
  the removal, the row says it was not available.
- the serial lower bound: the durations of the draining shard's moves end to end (donor
  step timings in config.changelog, summed): "bound" of run (a)'s, and apply's time over
  the bound of its own moves (app/bnd; a shard takes part in one migration at a time, so
  no schedule drains it sooner).

Cases: 16 MiB/s, no window; 4 MiB/s inside a 01:00-01:20 window that closes and reopens
before the drain ends; 16 MiB/s with a per-document cost and 10 % jitter; 16 MiB/s with one
recipient (s1) at a third of it.

    python benchmarks/bench_drain.py [--chunks 400] [--chunk-mib 32] [--only win]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymongo
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.forecast.balancer_window import ActiveWindow, parse_hhmm
from zonectl.forecast.drain import DrainAssumptions, forecast_drain
from zonectl.forecast.learn import choose_model, learn
from zonectl.forecast.units import DEFAULT_COPY_RATE, format_duration, parse_rate
from zonectl.model.shard_lifecycle import DrainCollection, ShardDrain
from zonectl.sandbox.balancer.main_loop import run_rounds_until
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

NS = "bench.data"
WARM = "bench.warm"
SIDE = "side"  # a database whose primary is the shard removed: movePrimary
WARM_CHUNKS = 48
SHARDS = ["s0", "s1", "s2", "s3"]
GONE = "s3"
# Today 00:00 UTC: zonectl reads the changelog of the 30 days before this host's now.
START = dt.datetime.now(dt.UTC).replace(hour=0, minute=0, second=0, microsecond=0)
MIB = 1024**2


@dataclass(frozen=True)
class Case:
    name: str
    slug: str
    copy_rate: str
    window: tuple[str, str] | None = None
    per_doc_us: float = 0.0
    jitter: float = 0.0
    slow: str | None = None  # a shard at a third of the copy rate


def cluster_yaml(chunks: int, case: Case) -> str:
    slow_rate = f"{parse_rate(case.copy_rate) / 3 / MIB:.3f}MiB/s"
    shards = "\n".join(
        f"  - {{name: {s}" + (f", copyRate: {slow_rate}" if s == case.slow else "") + "}"
        for s in SHARDS
    )
    costs = f"copyRate: {case.copy_rate}, perDocumentMicros: {case.per_doc_us}"
    costs += f", jitter: {case.jitter}, jitterSeed: 39"
    if case.window:
        costs += f', activeWindow: {{start: "{case.window[0]}", stop: "{case.window[1]}"}}'
    return f"""version: "7.0"
shards:
{shards}
databases:
  - {{name: bench, primary: s0}}
  - {{name: {SIDE}, primary: {GONE}}}
collections:
  - ns: {NS}
    key: {{k: 1}}
    chunks: {chunks}
    keys: {{type: int, start: 0, step: 1000}}
  - ns: {WARM}
    key: {{w: 1}}
    chunks: {WARM_CHUNKS}
    keys: {{type: int, start: 0, step: 10}}
unsharded:
  - {{ns: {SIDE}.notes, bytes: 1048576}}
balancer: {{{costs}}}
"""


def policy_yaml(case: Case) -> str:
    active = f'{{start: "{case.window[0]}", stop: "{case.window[1]}"}}' if case.window else "null"
    return f"""apiVersion: zonectl/v1
kind: ZonePolicy
balancer:
  enabled: true
  activeWindow: {active}
shards:
  s0: []
  s1: []
  s2: []
  {GONE}: {{state: removed}}
collections: {{}}
"""


def make_sandbox(cluster_file: Path, median_bytes: int, varied_docs: bool) -> Sandbox:
    """The seeded cluster with skewed chunk sizes (log-normal around `median_bytes`,
    1-128 MiB), seeded so every route sees the same sizes."""
    sandbox = Sandbox("7.0", clock=Clock.virtual(START))
    spec = load_cluster_file(cluster_file)
    seed.seed(sandbox, spec, str(cluster_file))
    rng = random.Random(39)
    for ns in (NS, WARM):
        store = sandbox.cluster.chunks(ns)
        assert store is not None
        for i in range(len(store)):
            size = int(min(128 * MIB, max(MIB, median_bytes * rng.lognormvariate(0, 1))))
            doc_bytes = rng.choice([256, 1024, 4096]) if varied_docs else 1024
            store.set_size(i, size, max(1, size // doc_bytes))
    return sandbox


def warm_up(sandbox: Sandbox, uri: str) -> None:
    """48 moves of the warm-up collection, every shard giving and taking as many as it
    takes (it stays balanced; its chunks left on the shard removed drain with it; not
    noBalance, which the balancer would honour by leaving them there)."""
    store = sandbox.cluster.chunks(WARM)
    assert store is not None
    chunks = [(store.min_at(i), store.max_at(i), store.shard_at(i)) for i in range(len(store))]
    with pymongo.MongoClient(uri) as client:
        for i, (lo, hi, donor) in enumerate(chunks):
            step = 1 + (i // len(SHARDS)) % (len(SHARDS) - 1)  # never the donor itself
            to = SHARDS[(SHARDS.index(donor) + step) % len(SHARDS)]
            client.admin.command({"moveChunk": WARM, "bounds": [lo, hi], "to": to})


def zonectl(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def on_shard(sandbox: Sandbox, shard: str) -> dict[str, tuple[int, int]]:
    """Every sharded collection's chunks and bytes on `shard` (config.system.sessions
    included: it drains too)."""
    out: dict[str, tuple[int, int]] = {}
    for ns in sandbox.cluster.sharded_namespaces():
        store = sandbox.cluster.chunks(ns)
        assert store is not None
        mine = [i for i in range(len(store)) if store.shard_at(i) == shard]
        if mine:
            out[ns] = (len(mine), sum(store.size_at(i) for i in mine))
    return out


def plan_forecast(policy: Path, uri: str, at: dt.datetime) -> tuple[dict[str, Any] | None, bool]:
    """`zonectl plan`'s drain forecast of the shard removed, and whether the plan removes
    it (an op `remove_shard`): (None, False) where this zonectl does not plan removals."""
    result = zonectl("plan", str(policy), "--uri", uri, "-f", "json", "--at", at.isoformat())
    if result.exit_code not in (0, 2) or not result.stdout.strip().startswith("{"):
        return None, False
    doc = json.loads(result.stdout)
    removes = any(op.get("kind") == "remove_shard" for op in doc.get("ops", []))
    drains = [d for d in doc["forecast"].get("drains", []) if d["shard"] == GONE]
    return (drains[0] if drains else None), removes


def library_forecast(sandbox: Sandbox, uri: str, case: Case) -> dict[str, Any]:
    """The same pure forecast, fed by hand: the cost model learned from config.changelog
    (as zonectl reads it: the last 30 days), the shard's chunks and owned bytes per
    collection (what $shardedDataDistribution answers), its database, the window."""
    now = sandbox.clock.now()
    with pymongo.MongoClient(uri, tz_aware=True) as client:
        since = dt.datetime.now(dt.UTC) - dt.timedelta(days=30)
        entries = list(client.config.changelog.find({"time": {"$gte": since}}))
    model, source = choose_model(learn(entries, now, float(DEFAULT_COPY_RATE)), None, 0.0)
    colls = [DrainCollection(ns, n, b) for ns, (n, b) in on_shard(sandbox, GONE).items()]
    drain = ShardDrain(GONE, False, tuple(colls), databases=(SIDE,))
    window = None
    if case.window:
        window = ActiveWindow(parse_hhmm(case.window[0]), parse_hhmm(case.window[1]))
    a = DrainAssumptions(
        model, source, tuple(s for s in SHARDS if s != GONE), window=window,
        max_chunk_bytes=128 * MIB,
    )  # fmt: skip
    f = forecast_drain(drain, a, now)
    return {
        "balancer": {"seconds": f.balancer.seconds},
        "migrate": {"seconds": f.migrate.seconds},
        "cost_source": source,
    }


def drain_by_balancer(sandbox: Sandbox, uri: str) -> tuple[float, float, int]:
    """(a): removeShard, movePrimary, balancer rounds until the shard is empty, removeShard
    until completed. (seconds, the serial bound of its moves, moves)."""
    t0, before = sandbox.clock.now(), changelog_ids(uri)
    with pymongo.MongoClient(uri, tz_aware=True) as client:
        reply = client.admin.command("removeShard", GONE)
        for db in reply.get("dbsToMove", []):
            client.admin.command({"movePrimary": db, "to": "s0"})
        done = run_rounds_until(
            sandbox.balancer, lambda: not on_shard(sandbox, GONE), limit=dt.timedelta(days=10)
        )
        if done is None:
            raise SystemExit("the sandbox balancer did not drain the shard within 10 days")
        state = client.admin.command("removeShard", GONE)["state"]
        if state != "completed":
            raise SystemExit(f"removeShard after the drain answered {state!r}")
        bound, moves = serial_bound(client, before)
    return (sandbox.clock.now() - t0).total_seconds(), bound, moves


def changelog_ids(uri: str) -> set[Any]:
    """The changelog entries already there (the warm-up's last move may commit at the very
    instant the drain starts: a time filter would count it)."""
    with pymongo.MongoClient(uri) as client:
        return {e["_id"] for e in client.config.changelog.find({}, {"_id": 1})}


def serial_bound(
    client: pymongo.MongoClient[dict[str, Any]], before: set[Any]
) -> tuple[float, int]:
    """The draining shard's moves end to end: each successful moveChunk.from off it not
    among the entries `before`, its donor step timings summed."""
    total, moves = 0.0, 0
    query = {"what": "moveChunk.from", "details.from": GONE}
    for e in client.config.changelog.find(query):
        if e["_id"] in before:
            continue
        d = e["details"]
        if d.get("note", "success") != "success":
            continue
        total += sum(float(d.get(f"step {i} of 6", 0)) for i in range(1, 7)) / 1000
        moves += 1
    return total, moves


def run_case(case: Case, chunks: int, chunk_bytes: int, tmp: Path) -> dict[str, Any]:
    cluster_file = tmp / f"{case.slug}-cluster.yaml"
    cluster_file.write_text(cluster_yaml(chunks, case))
    policy = tmp / f"{case.slug}-policy.yaml"
    policy.write_text(policy_yaml(case))
    varied = case.per_doc_us > 0
    row: dict[str, Any] = {"case": case}

    # The forecast, then (a) the sandbox balancer, on one copy.
    sandbox = make_sandbox(cluster_file, chunk_bytes, varied)
    server = serve(sandbox)
    try:
        warm_up(sandbox, server.uri)
        forecast, removes = plan_forecast(policy, server.uri, sandbox.clock.now())
        row["how"] = "plan"
        if forecast is None:
            forecast, row["how"] = library_forecast(sandbox, server.uri, case), "lib"
        row["forecast"], row["removes"] = forecast, removes
        row["balancer"], row["bound"], row["moves"] = drain_by_balancer(sandbox, server.uri)
    finally:
        server.close()

    # (b) apply --migrate, timed around the user's command, on a fresh copy.
    row["apply"] = row["apply_real"] = row["apply_bound"] = None
    row["apply_moves"] = 0
    if removes:
        sandbox = make_sandbox(cluster_file, chunk_bytes, varied)
        server = serve(sandbox)
        try:
            warm_up(sandbox, server.uri)
            before = changelog_ids(server.uri)
            t0, real0 = sandbox.clock.now(), time.perf_counter()
            result = zonectl("apply", str(policy), "--uri", server.uri, "--migrate", "--yes")
            row["apply_real"] = time.perf_counter() - real0
            if result.exit_code != 0:
                row["apply_error"] = (result.stderr or result.stdout).strip().splitlines()[-1:]
            else:
                row["apply"] = (sandbox.clock.now() - t0).total_seconds()
            with pymongo.MongoClient(server.uri, tz_aware=True) as client:
                row["removed"] = client.config.shards.find_one({"_id": GONE}) is None
                row["apply_bound"], row["apply_moves"] = serial_bound(client, before)
            if not row["removed"]:  # it started the drain and returned: not a measured drain
                row["apply_error"] = "the shard is still there after apply --migrate"
                row["apply"] = None
        finally:
            server.close()
    return row


def _ratio(forecast_s: float | None, measured: float | None) -> str:
    if forecast_s is None or not measured:
        return "-"
    return f"{forecast_s / measured:.4f}"


def _dur(seconds: float | None) -> str:
    return format_duration(seconds) if seconds is not None else "never"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=400, help="of the collection, all shards")
    parser.add_argument("--chunk-mib", type=int, default=32, help="median chunk size")
    parser.add_argument("--only", help="run one case (its slug: plain, win, jit, slow)")
    args = parser.parse_args()
    cases = [
        Case("16MiB/s, no window", "plain", "16MiB/s"),
        Case("4MiB/s, window 01:00-01:20", "win", "4MiB/s", ("01:00", "01:20")),
        Case("16MiB/s, per-doc, 10% jitter", "jit", "16MiB/s", None, 10.0, 0.1),
        Case("16MiB/s, s1 3x slower", "slow", "16MiB/s", slow="s1"),
    ]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for case in cases:
            if args.only and case.slug != args.only:
                continue
            rows.append(run_case(case, args.chunks, args.chunk_mib * MIB, Path(tmp)))
    print(f"{'case':30} {'from':>4} {'cost':>8} {'moves':>6} {'bound':>9} "
          f"{'fc bal':>9} {'balancer':>9} {'fc/bal':>7} "
          f"{'fc mig':>9} {'apply':>9} {'fc/app':>7} {'app/bnd':>8}")  # fmt: skip
    seconds = []
    for r in rows:
        f = r["forecast"]
        fb, fm = f["balancer"]["seconds"], f["migrate"]["seconds"]
        print(
            f"{r['case'].name:30} {r['how']:>4} {f['cost_source']:>8} {r['moves']:>6} "
            f"{_dur(r['bound']):>9} {_dur(fb):>9} {_dur(r['balancer']):>9} "
            f"{_ratio(fb, r['balancer']):>7} {_dur(fm):>9} {_dur(r['apply']):>9} "
            f"{_ratio(fm, r['apply']):>7} {_ratio(r['apply'], r['apply_bound']):>8}"
        )
        seconds.append(
            f"{r['case'].name}: seconds: balancer's moves end to end {r['bound']:.1f} "
            f"({r['moves']} moves), forecast balancer {fb}, balancer {r['balancer']:.1f}, "
            f"forecast migrate {fm}, apply {r['apply']}, apply's moves end to end "
            f"{r['apply_bound']} ({r['apply_moves']} moves)"
        )
    print("\n".join(seconds))
    print(
        f"{len(SHARDS)} shards, {GONE} removed; simulated time; forecasts learned from "
        "config.changelog, no --copy-rate. Goals: forecast within 20 % of the measured drain "
        "(fc/bal, fc/app in 0.8-1.2); apply --migrate <= 1.15x the serial bound (app/bnd)."
    )
    for r in rows:
        name = r["case"].name
        if r["how"] == "lib":
            print(
                f"{name}: this zonectl's plan does not forecast the removal (no drains in its "
                "JSON): the forecast shown is zonectl.forecast.drain fed by hand"
            )
        if not r["removes"]:
            print(
                f"{name}: apply --migrate not measured: this zonectl's plan has no "
                "remove_shard op for the policy's `state: removed`"
            )
        elif r["apply"] is None:
            print(
                f"{name}: apply --migrate not measured: {r.get('apply_error')} (this zonectl's "
                "apply does not drain with --migrate yet)"
            )
        else:
            print(
                f"{name}: apply --migrate took {r['apply_real']:.1f} s of wall time; the "
                f"shard is {'removed' if r.get('removed') else 'STILL THERE'}"
            )


if __name__ == "__main__":
    main()
