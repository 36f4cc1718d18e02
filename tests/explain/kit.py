"""A sandbox served over TCP holding one collection per reason, explain run through the
CLI, and the balancer's rounds driven step by step on the sandbox's frozen clock, so a
test can check that what explain predicted is what the balancer then does."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

NOON = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)  # a Monday
MB = 1024 * 1024
SHARDS = ("shard0", "shard1", "shard2")


@dataclass
class Kit:
    handle: Any  # tests/conftest.SandboxHandle

    @property
    def sandbox(self) -> Any:
        return self.handle.sandbox

    @property
    def cluster(self) -> Any:
        return self.handle.sandbox.cluster

    @property
    def admin(self) -> Any:
        return self.handle.client.admin

    def collection(
        self,
        ns: str,
        points: Sequence[int],
        placement: Sequence[str],
        mb: float = 0.5,
        sizes_mb: Sequence[float] | None = None,
    ) -> None:
        """A collection on {x: 1} split at `points`, chunk i on placement[i]."""
        edges = [{"x": MinKey()}, *({"x": p} for p in points), {"x": MaxKey()}]
        n = len(edges) - 1
        assert len(placement) == n
        sizes = [int(s * MB) for s in (sizes_mb or [mb] * n)]
        self.cluster.create_collection(
            ns, {"x": 1}, bounds=edges, shards=list(placement), sizes=sizes, counts=[100] * n
        )

    def zone_range(self, ns: str, lo: int, hi: int, zone: str) -> None:
        self.admin.command("updateZoneKeyRange", ns, min={"x": lo}, max={"x": hi}, zone=zone)

    def jumbo(self, ns: str, *indices: int) -> None:
        store = self.cluster.chunks(ns)
        for i in indices:
            store.set_jumbo(i, True)

    def setting(self, _id: str, **fields: Any) -> None:
        """$set on a config.settings document, as mongosh's helpers write it."""
        coll = self.cluster.coll("config.settings")
        coll.put({**(coll.get(_id) or {"_id": _id}), **fields})

    def placement(self, ns: str) -> dict[str, tuple[int, int]]:
        """Bytes and documents per shard: what a migration changes and a merge does not."""
        totals = self.cluster.chunks(ns).shard_totals()
        return {s: (size, docs) for s, (_, size, docs) in totals.items() if docs or size}

    def placements(self) -> dict[str, dict[str, tuple[int, int]]]:
        return {ns: self.placement(ns) for ns in self.cluster.sharded_namespaces()}

    def rounds(self, n: int = 30) -> None:
        """Up to `n` balancer rounds, each one's migrations run to their commits, until a
        round changes nothing."""
        balancer = self.sandbox.balancer
        for _ in range(n):
            result = balancer.run_round()
            balancer.complete_migrations()
            if not result.changed:
                return

    def explain(self, *args: str, code: int = 0) -> Any:
        result = CliRunner().invoke(
            app, ["explain", "--uri", self.handle.uri, "-f", "json", *args], catch_exceptions=False
        )
        assert result.exit_code == code, result.stderr + result.stdout
        return json.loads(result.stdout) if code == 0 else result

    def states(self, *args: str) -> dict[str, tuple[str, list[str]]]:
        """ns -> (state, reason codes)."""
        doc = self.explain(*args)
        return {
            c["ns"]: (c["state"], [r["code"] for r in c["reasons"]]) for c in doc["collections"]
        }


def make_kit(sandbox_server: Any, version: str, *, chunksize_mb: int = 1) -> Kit:
    handle = sandbox_server(version)
    handle.sandbox.clock.set(NOON)
    for n, shard in enumerate(SHARDS):
        handle.sandbox.cluster.add_shard(shard, f"rs{n}/localhost:{27018 + n}")
    kit = Kit(handle)
    kit.setting("chunksize", value=chunksize_mb)
    return kit
