"""Clusters of many small collections for bench_many (P12): N sharded collections of four
chunks, one per shard, served in a child process; pinned (plan, status) or with a firehose
window already in place (rotate with nothing due: the cron run of most minutes)."""

from __future__ import annotations

import datetime as dt
from multiprocessing.connection import Connection

from bson.max_key import MaxKey
from bson.min_key import MinKey

SHARDS = {"fast-0": "hot", "fast-1": "hot", "std-0": "archive", "std-1": "archive"}
CHUNK_BYTES = 32 * 1024 * 1024
T0 = 1_600_000_000 - 1_600_000_000 % 3600  # an hour tick: the windows' live boundary
AT = dt.datetime.fromtimestamp(T0 + 1800, dt.UTC)  # rotate's --at: half an hour later


def names(n: int) -> list[str]:
    return [f"tenants.t{i:04d}" for i in range(n)]


def serve_cluster(n: int, kind: str, pipe: Connection) -> None:
    """Child process: the cluster (windows in place for `rotate`); serve until told. The
    collector runs at the CLI's thresholds, as in `zonectl sandbox` (zonectl/cli/app.py)."""
    import gc

    import pymongo

    from zonectl.cli.app import GC_THRESHOLDS
    from zonectl.sandbox.launch import serve

    gc.set_threshold(*GC_THRESHOLDS)
    from zonectl.sandbox.state import Sandbox

    sb = Sandbox("7.0")
    for shard, zone in SHARDS.items():
        sb.cluster.add_shard(shard, f"{shard}/{shard}-a:27018", (zone,))
    field = "ts" if kind == "rotate" else "x"
    cuts = (T0 - 7200, T0, T0 + 3600) if kind == "rotate" else (100, 200, 300)
    bounds = [{field: MinKey()}, *({field: c} for c in cuts), {field: MaxKey()}]
    owners = ["std-0", "std-1", "fast-0", "fast-1"] if kind == "rotate" else list(SHARDS)
    for ns in names(n):
        sb.cluster.create_collection(
            ns, {field: 1}, bounds=bounds, shards=owners,
            sizes=[CHUNK_BYTES] * 4, counts=[1000] * 4,
        )  # fmt: skip
    with serve(sb) as server:
        if kind == "rotate":
            with pymongo.MongoClient(server.uri) as client:
                for ns in names(n):
                    for zone, lo, hi in (("archive", MinKey(), T0), ("hot", T0, MaxKey())):
                        client.admin.command(
                            {"updateZoneKeyRange": ns, "min": {"ts": lo},
                             "max": {"ts": hi}, "zone": zone}
                        )  # fmt: skip
        pipe.send(server.port)
        pipe.recv()


def policy_text(n: int, kind: str) -> str:
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n"
    text += "".join(f"  {s}: [{z}]\n" for s, z in SHARDS.items()) + "collections:\n"
    for i, ns in enumerate(names(n)):
        if kind == "rotate":
            text += (
                f"  {ns}:\n    key: {{ts: 1}}\n    firehose:\n      field: ts\n"
                "      type: epochSeconds\n      schedule: '0 * * * *'\n      timezone: UTC\n"
                "      keep: 1\n      hot: hot\n      cold: archive\n"
            )
        else:
            text += f"  {ns}:\n    key: {{x: 1}}\n    pin: {'hot' if i % 2 == 0 else 'archive'}\n"
    return text
