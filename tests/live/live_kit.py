"""What the live tests share: the target cluster, a scratch area on it (databases, zones,
one sharded collection), the CLI run against it, and policies written for the scratch area."""

from __future__ import annotations

import contextlib
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from pymongo.errors import OperationFailure
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register

if not app.registered_commands:
    register(app)

PREFIX = "zonectl_live_"


@dataclass
class LiveTarget:
    uri: str
    client: Any
    sandbox: Any = None  # the in-process Sandbox, or None for a real (or separate) mongos

    def needs_sandbox(self, why: str) -> Any:
        """The in-process sandbox, or skip: fail points and a settable clock exist only
        there (a real cluster would need enableTestCommands and root on every node)."""
        if self.sandbox is None:
            pytest.skip(f"needs the in-process sandbox ({why}); ZONECTL_TEST_URI is set")
        return self.sandbox


@dataclass
class Result:
    code: int
    out: str
    err: str


@dataclass
class Scratch:
    """Databases `<name>` (collections) and `<name>_meta` (zonectl's own: lease, journal),
    zones `<name>_hot` / `<name>_cold` on two shards, and `<name>.events` sharded on {n: 1}."""

    target: LiveTarget
    name: str
    shards: tuple[str, str]
    namespaces: list[str] = field(default_factory=list)

    @classmethod
    def create(cls, target: LiveTarget) -> Scratch:
        shards = sorted(
            str(d["_id"]) for d in target.client.config.shards.find({}) if not d.get("draining")
        )
        if len(shards) < 2:
            pytest.skip("the live kit needs a cluster with at least two shards")
        s = cls(target, PREFIX + uuid.uuid4().hex[:8], (shards[0], shards[1]))
        s.shard("events", {"n": 1})
        return s

    @property
    def meta(self) -> str:
        return f"{self.name}_meta"

    @property
    def hot(self) -> str:
        return f"{self.name}_hot"

    @property
    def cold(self) -> str:
        return f"{self.name}_cold"

    def ns(self, coll: str = "events") -> str:
        return f"{self.name}.{coll}"

    def shard(self, coll: str, key: dict[str, Any]) -> str:
        admin = self.target.client.admin
        with contextlib.suppress(OperationFailure):  # implicit from 6.0
            admin.command({"enableSharding": self.name})
        admin.command({"shardCollection": self.ns(coll), "key": key})
        self.namespaces.append(self.ns(coll))
        return self.ns(coll)

    def zonectl(self, *args: str) -> Result:
        env = {"ZONECTL_URI": self.target.uri, "ZONECTL_DATABASE": self.meta}
        result = CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)
        return Result(result.exit_code, result.stdout, result.stderr)

    def policy(self, tmp_path: Path, collections: str, *, shards: bool = True) -> Path:
        """A policy file: the two scratch zones on the two shards, plus `collections`."""
        text = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
        if shards:
            text += (
                f"shards:\n  {self.shards[0]}: [{self.hot}]\n  {self.shards[1]}: [{self.cold}]\n"
            )
        text += "collections:\n" + collections
        path = tmp_path / f"{self.name}.yaml"
        path.write_text(text)
        return path

    def ranges(self, coll: str = "events") -> list[tuple[Any, Any, str]]:
        docs = self.target.client.config.tags.find({"ns": self.ns(coll)})
        return sorted(((d["min"], d["max"], d["tag"]) for d in docs), key=lambda r: r[2])

    def zones_of(self, shard: str) -> list[str]:
        doc = self.target.client.config.shards.find_one({"_id": shard}) or {}
        return [z for z in doc.get("tags") or () if str(z).startswith(self.name)]

    def no_balance(self, coll: str = "events") -> bool:
        doc = self.target.client.config.collections.find_one({"_id": self.ns(coll)}) or {}
        return bool(doc.get("noBalance", False))

    def remove(self) -> None:
        """Everything the test created: ranges, zones, collections, both databases."""
        client = self.target.client
        for tag in client.config.tags.find({"ns": {"$in": self.namespaces}}):
            client.admin.command(
                {"updateZoneKeyRange": tag["ns"], "min": tag["min"], "max": tag["max"],
                 "zone": None}
            )  # fmt: skip
        for shard in client.config.shards.find({}):
            for zone in shard.get("tags") or ():
                if str(zone).startswith(self.name):
                    client.admin.command({"removeShardFromZone": shard["_id"], "zone": zone})
        for ns in self.namespaces:
            db, _, coll = ns.partition(".")
            client[db].drop_collection(coll)
        client.drop_database(self.name)
        client.drop_database(self.meta)


def ranges_policy(s: Scratch, tmp_path: Path) -> Path:
    """The scratch zones on their shards, and `events` split at {n: 100}: hot below, cold
    above."""
    return s.policy(
        tmp_path,
        f"  {s.ns()}:\n"
        "    key: {n: 1}\n"
        "    ranges:\n"
        f"      - {{zone: {s.hot}, min: {{n: {{$minKey: 1}}}}, max: {{n: 100}}}}\n"
        f"      - {{zone: {s.cold}, min: {{n: 100}}, max: {{n: {{$maxKey: 1}}}}}}\n",
    )
