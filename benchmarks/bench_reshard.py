"""Issue 20: the three routes of a zone change, side by side in simulated time, with the
forecast of each. 8 shards, an 8.0 sandbox, zones A (s0-s3) and B (s4-s7), ~100 GiB with
skewed chunk sizes (log-normal, as bench_migrate.py has).

Scenarios:
  big      a zone change that moves 3/4 of the collection
  jumbo    the same with jumbo chunks in the moving part
  small    a change of a few chunks
  newshard s7 (no zone, empty) joins zone B

Routes, each from the same start on a fresh sandbox, through the CLI a user runs:
  balancer  `zonectl apply` (ranges), then the sandbox balancer's rounds alone
  migrate   `zonectl apply --migrate`
  reshard   `zonectl apply` of the policy with `migrate: reshard` (one reshardCollection
            with forceRedistribution); its duration is the sandbox's own resharding model
            (zonectl/sandbox/balancer/resharding_time.py), never zonectl's forecast.
The forecasts come from `zonectl plan -f json` (forecast.migrate, .balancer, .reshard);
zonectl's forecast covers zone compliance only, so "newshard" (a balancing move, not a zone
violation) has no CLI forecast for the balancer and --migrate: it says so.

The reshard forecast twice: in the table with `--copy-rate` the sandbox's rate and no
resharding in the history (so its phases are zonectl's assumptions, not the sandbox's), and
below it from a history alone: on a fourth sandbox, 12 moveChunks and one resharding of
another collection (bench.hist, 64 GiB) first, then `plan` without `--copy-rate`, so the
copy rate and the phases are learned from config.changelog.

    python benchmarks/bench_reshard.py [--chunks 1600] [--chunk-mib 64] [--copy-rate 16MiB/s]
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pymongo
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.forecast.units import format_duration, parse_rate
from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.main_loop import run_rounds_until
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

NS = "bench.data"
HIST = "bench.hist"  # the history sandbox's other collection: moved and resharded first
SHARDS = [f"s{i}" for i in range(8)]
START = dt.datetime(2026, 3, 2, 0, 0, tzinfo=dt.UTC)
MIB, GIB = 1024**2, 1024**3
MIN, MAX = "{$minKey: 1}", "{$maxKey: 1}"
INF = float("inf")


@dataclass(frozen=True)
class Scenario:
    name: str
    zones_now: dict[str, str]  # shard -> zone in the cluster file ("" for none)
    zones_after: dict[str, str]  # shard -> zone in the policy
    ranges: Callable[[int], list[tuple[str, str, str]]]  # q -> [(zone, min, max)] wanted
    jumbo: int = 0  # chunks flagged jumbo in the moving part
    spread: bool = False  # done when s7 holds its share of zone B (no zone violation)


def _ab(n: int = 8) -> dict[str, str]:
    return {s: ("A" if i < 4 else "B") for i, s in enumerate(SHARDS[:n])}


def _big(q: int) -> list[tuple[str, str, str]]:
    # B [min, 1.5q), A [1.5q, 3.5q), B [3.5q, max): 3q of 4q change zone.
    return [("B", MIN, str(3 * q // 2)), ("A", str(3 * q // 2), str(7 * q // 2)),
            ("B", str(7 * q // 2), MAX)]  # fmt: skip


def _small(q: int) -> list[tuple[str, str, str]]:
    # 4 chunks of A's part go to B.
    return [("B", MIN, "4000"), ("A", "4000", str(2 * q)), ("B", str(2 * q), MAX)]


def _halves(q: int) -> list[tuple[str, str, str]]:
    return [("A", MIN, str(2 * q)), ("B", str(2 * q), MAX)]


SCENARIOS = [
    Scenario("big (3/4 moves)", _ab(), _ab(), _big),
    Scenario("big + 24 jumbo", _ab(), _ab(), _big, jumbo=24),
    Scenario("small (4 chunks)", _ab(), _ab(), _small),
    Scenario("s7 joins B", {**_ab(), "s7": ""}, _ab(), _halves, spread=True),
]


def cluster_yaml(s: Scenario, chunks: int, history: bool = False) -> str:
    q = chunks // 4 * 1000
    hist = (
        f"""  - ns: {HIST}
    key: {{h: 1}}
    chunks: 64
    keys: {{type: int, start: 0, step: 1000}}
    chunkSize: {{bytes: {GIB}, docs: 1000}}
"""
        if history
        else ""
    )
    shards = "\n".join(
        f"  - {{name: {name}, zones: [{z}]}}" if z else f"  - {{name: {name}}}"
        for name, z in s.zones_now.items()
    )
    return f"""version: "8.0"
shards:
{shards}
databases:
  - {{name: bench, primary: s0}}
collections:
  - ns: {NS}
    key: {{k: 1}}
    chunks: {chunks}
    keys: {{type: int, start: 0, step: 1000}}
    chunkSize: {{bytes: {64 * MIB}, docs: 1000}}
{hist}zones:
  - {{ns: {NS}, min: {{k: {MIN}}}, max: {{k: {2 * q}}}, zone: A}}
  - {{ns: {NS}, min: {{k: {2 * q}}}, max: {{k: {MAX}}}, zone: B}}
"""


def policy_yaml(s: Scenario, chunks: int, reshard: bool) -> str:
    q = chunks // 4 * 1000
    shards = "\n".join(f"  {name}: [{z}]" for name, z in s.zones_after.items())
    ranges = "\n".join(
        f"      - {{zone: {z}, min: {{k: {lo}}}, max: {{k: {hi}}}}}" for z, lo, hi in s.ranges(q)
    )
    route = "    migrate: reshard\n" if reshard else ""
    return f"""apiVersion: zonectl/v1
kind: ZonePolicy
balancer:
  enabled: true
shards:
{shards}
collections:
  {NS}:
    key: {{k: 1}}
{route}    ranges:
{ranges}
"""


def make_sandbox(s: Scenario, cluster_file: Path, rate: float, median: int) -> Sandbox:
    """Skewed chunk sizes (log-normal around `median`, 1-128 MiB, seeded: every route sees
    the same sizes), placed balanced over each zone's shards by bytes; optional jumbo flags
    on chunks of the moving part."""
    sandbox = Sandbox("8.0", clock=Clock.virtual(START))
    seed.seed(sandbox, load_cluster_file(cluster_file), str(cluster_file))
    sandbox.balancer.copy_rate = rate
    store = sandbox.cluster.chunks(NS)
    assert store is not None
    rng = random.Random(20)
    for i in range(len(store)):
        size = int(min(128 * MIB, max(MIB, median * rng.lognormvariate(0, 1))))
        store.set_size(i, size, max(1, size // 1024))
    half = len(store) // 2
    zone_of = {name: z for name, z in s.zones_now.items() if z}
    for lo, hi, zone in ((0, half, "A"), (half, len(store), "B")):
        holders = [name for name, z in zone_of.items() if z == zone]
        load = dict.fromkeys(holders, 0)
        for i in range(lo, hi):
            target = min(holders, key=lambda h: (load[h], h))
            load[target] += store.size_at(i)
            if store.shard_at(i) != target:
                store.move(i, target, sandbox.cluster.now_ts())
    for k in range(s.jumbo):  # in [0, 1.5q): A today, B after the change
        store.set_jumbo(1 + k * (3 * len(store) // 8 - 2) // max(s.jumbo, 1), True)
    return sandbox


def make_history(sandbox: Sandbox, uri: str) -> None:
    """What a cluster that has worked before would hold in config.changelog: 12 moveChunks
    of bench.hist (8-107 MiB, under the 128 MiB chunk size: sizes apart, so the fixed part
    and the rate separate), then one resharding of it to the same key (forceRedistribution),
    all on the virtual clock."""
    store = sandbox.cluster.chunks(HIST)
    assert store is not None
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(uri)
    try:
        for i in range(12):
            size = (8 + 9 * i) * MIB
            store.set_size(i, size, max(1, size // 1024))
            to = SHARDS[(SHARDS.index(store.shard_at(i)) + 1) % len(SHARDS)]
            client.admin.command("moveChunk", HIST, find={"h": i * 1000 + 1}, to=to)
        reshard = {"reshardCollection": HIST, "key": {"h": 1}, "forceRedistribution": True}
        client.admin.command(reshard)
    finally:
        client.close()


def outside_zone(sandbox: Sandbox) -> int:
    coll = view.collection_view(sandbox.cluster, NS, sandbox.balancer.current_settings())
    assert coll is not None
    zones = {s.id: s.zones for s in view.shard_views(sandbox.cluster)}
    return sum(1 for sh, z in zip(coll.shards, coll.zones, strict=True) if z and z not in zones[sh])


def spread_done(sandbox: Sandbox) -> bool:
    """s7 holds at least 90 % of its fair share of zone B's bytes."""
    store = sandbox.cluster.chunks(NS)
    assert store is not None
    b = {"s4", "s5", "s6", "s7"}
    per: dict[str, int] = {}
    for i in range(len(store)):
        if store.shard_at(i) in b:
            per[store.shard_at(i)] = per.get(store.shard_at(i), 0) + store.size_at(i)
    return per.get("s7", 0) >= 0.9 * sum(per.values()) / 4


def zonectl(*args: str) -> Any:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    if result.exit_code != 0:
        raise SystemExit(f"zonectl {' '.join(args)} failed: {result.stderr}")
    return result


def done_check(s: Scenario, sandbox: Sandbox) -> bool:
    return spread_done(sandbox) if s.spread else outside_zone(sandbox) == 0


def run_scenario(s: Scenario, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    rate = parse_rate(args.copy_rate)
    median = args.chunk_mib * MIB
    cluster_file = tmp / "cluster.yaml"
    cluster_file.write_text(cluster_yaml(s, args.chunks))
    plain, route = tmp / "policy.yaml", tmp / "policy-reshard.yaml"
    plain.write_text(policy_yaml(s, args.chunks, reshard=False))
    route.write_text(policy_yaml(s, args.chunks, reshard=True))
    out: dict[str, Any] = {"scenario": s}
    history_file = tmp / "cluster-history.yaml"
    history_file.write_text(cluster_yaml(s, args.chunks, history=True))

    def fresh(path: Path = cluster_file) -> tuple[Sandbox, Any]:
        sandbox = make_sandbox(s, path, rate, median)
        return sandbox, serve(sandbox)

    sandbox, server = fresh()
    try:
        store = sandbox.cluster.chunks(NS)
        assert store is not None
        out["gib"] = sum(store.sizes()[0]) / GIB
        flags = ["-f", "json", "--copy-rate", args.copy_rate, "--at", START.isoformat()]
        if args.measure_chunks is not None:  # else the plan's default sample
            flags += ["--measure-chunks", str(args.measure_chunks)]
        forecast = json.loads(zonectl("plan", str(plain), "--uri", server.uri, *flags).stdout)
        f = forecast["forecast"]
        out["f_migrate"] = f["migrate"]["seconds"] if f["namespaces"] else None
        out["f_balancer"] = f["balancer"]["seconds"] if f["namespaces"] else None
        routes = f.get("reshard") or []
        out["f_reshard"] = routes[0]["seconds"] if routes else None
        out["moving_gib"] = f["bytes"] / GIB
        t0 = sandbox.clock.now()
        zonectl("apply", str(plain), "--uri", server.uri, "--migrate", "--yes")
        out["migrate"] = (sandbox.clock.now() - t0).total_seconds()
        if not done_check(s, sandbox):
            out["migrate"] = INF
    finally:
        server.close()

    sandbox, server = fresh()
    try:
        zonectl("apply", str(plain), "--uri", server.uri, "--yes")
        t0 = sandbox.clock.now()
        finished = run_rounds_until(
            sandbox.balancer, lambda: done_check(s, sandbox), limit=dt.timedelta(days=3)
        )
        out["balancer"] = (finished - t0).total_seconds() if finished else INF
    finally:
        server.close()

    sandbox, server = fresh(history_file)
    try:
        make_history(sandbox, server.uri)
        flags = ["-f", "json"]
        if args.measure_chunks is not None:
            flags += ["--measure-chunks", str(args.measure_chunks)]
        learned = json.loads(zonectl("plan", str(plain), "--uri", server.uri, *flags).stdout)
        routes = learned["forecast"].get("reshard") or []
        out["f_reshard_hist"] = routes[0]["seconds"] if routes else None
        out["hist_phases"] = routes[0]["phases"] if routes else None
        out["hist_rate"] = learned["forecast"]["cost"]["copy_rate_bytes_per_s"]
    finally:
        server.close()

    sandbox, server = fresh()
    try:
        t0 = sandbox.clock.now()
        zonectl("apply", str(route), "--uri", server.uri, "--yes")
        out["reshard"] = (sandbox.clock.now() - t0).total_seconds()
        if not done_check(s, sandbox):
            out["reshard"] = INF
    finally:
        server.close()
    return out


def _recommended(r: dict[str, Any]) -> str | None:
    options = {k: r[f"f_{k}"] for k in ("migrate", "balancer", "reshard") if r[f"f_{k}"]}
    if r["f_migrate"] is None:
        return None  # nothing out of zone: zonectl forecasts no balancing, so no comparison
    if r["scenario"].jumbo and r["f_reshard"]:
        return "reshard"  # forecast/reshard.recommend: only resharding moves jumbo chunks
    return min(options, key=lambda k: options[k]) if options else None


def _fmt(seconds: float | None) -> str:
    if seconds is None:
        return "n/a"
    return "never" if seconds == INF else format_duration(seconds)


def _err(forecast: float | None, actual: float) -> str:
    if forecast is None or actual in (INF, 0):
        return "   -  "
    return f"{forecast / actual - 1:+6.1%}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=1600)
    parser.add_argument("--chunk-mib", type=int, default=64, help="median chunk size")
    parser.add_argument("--copy-rate", default="16MiB/s")
    parser.add_argument("--only", help="run one scenario (a prefix of its name)")
    parser.add_argument(
        "--measure-chunks",
        type=int,
        help="plan's dataSize budget (default: the plan's own, 16); the balancer route's "
        "forecast of skewed chunk sizes depends on it: a round lasts its largest migration",
    )
    args = parser.parse_args()
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for s in SCENARIOS:
            if args.only and not s.name.startswith(args.only):
                continue
            rows.append(run_scenario(s, args, Path(tmp)))
    head = (f"{'scenario':18} {'size':>7} {'moving':>7} | {'balancer':>9} {'fc':>9} {'err':>6} | "
            f"{'migrate':>9} {'fc':>9} {'err':>6} | {'reshard':>9} {'fc':>9} {'err':>6} | "
            f"{'fastest':>8} {'recomm.':>8}")  # fmt: skip
    print(head)
    ok = True
    for r in rows:
        sim = {k: r[k] for k in ("balancer", "migrate", "reshard")}
        fastest = min(sim, key=lambda k: sim[k])
        rec = _recommended(r)
        print(
            f"{r['scenario'].name:18} {r['gib']:5.0f}Gi {r['moving_gib']:5.0f}Gi | "
            f"{_fmt(r['balancer']):>9} {_fmt(r['f_balancer']):>9} "
            f"{_err(r['f_balancer'], r['balancer'])} | "
            f"{_fmt(r['migrate']):>9} {_fmt(r['f_migrate']):>9} "
            f"{_err(r['f_migrate'], r['migrate'])} | "
            f"{_fmt(r['reshard']):>9} {_fmt(r['f_reshard']):>9} "
            f"{_err(r['f_reshard'], r['reshard'])} | {fastest:>8} {rec or 'n/a':>8}"
        )
        ok &= rec is None or sim[rec] <= sim[fastest]  # a tie counts as the fastest
        for k in ("balancer", "migrate", "reshard"):
            f = r[f"f_{k}"]
            if f is not None and sim[k] not in (INF, 0):
                ok &= abs(f / sim[k] - 1) <= 0.15
    print()
    print("the reshard forecast without and with a history (sandbox: the simulated route)")
    print(f"{'scenario':18} | {'reshard':>9} | {'no history':>10} {'err':>6} | "
          f"{'history':>9} {'err':>6} | learned")  # fmt: skip
    for r in rows:
        ph = r["hist_phases"]
        said = (
            f"{r['hist_rate'] / MIB:.1f} MiB/s, {ph['source']} from {ph['reshardings']} "
            f"resharding(s): catch-up {ph['catch_up_share']:.1%}, {ph['critical_seconds']:.0f}s"
            if ph
            else "n/a"
        )
        print(
            f"{r['scenario'].name:18} | {_fmt(r['reshard']):>9} | {_fmt(r['f_reshard']):>10} "
            f"{_err(r['f_reshard'], r['reshard'])} | {_fmt(r['f_reshard_hist']):>9} "
            f"{_err(r['f_reshard_hist'], r['reshard'])} | {said}"
        )
        f = r["f_reshard_hist"]
        if f is not None and r["reshard"] not in (INF, 0):
            ok &= abs(f / r["reshard"] - 1) <= 0.15
    big = rows[0]
    if big["scenario"] is not SCENARIOS[0]:
        print(f"goals (forecasts within +-15%): {'MET' if ok else 'NOT MET'}")
        return
    print(
        f"reshard / --migrate on the big change: {big['reshard'] / big['migrate']:.2f} "
        f"({_fmt(big['reshard'])} vs {_fmt(big['migrate'])}), {len(SHARDS)} shards, "
        f"copy rate {args.copy_rate} per shard (the sandbox's model for both)"
    )
    print(
        "goals: the recommended route is the fastest simulated one, every forecast within "
        f"+-15%: {'MET' if ok else 'NOT MET'} (n/a: zonectl forecasts zone compliance only)"
    )


if __name__ == "__main__":
    main()
