"""Rotate test kit: the firehose cluster (one 10x shard, ten ordinary ones) seeded and
served over TCP, the CLI in-process (stdin not a TTY, as under cron), and a tap that
records every command the sandbox dispatches, to prove what was (not) sent."""

from __future__ import annotations

import datetime as dt
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from zonectl.cli.app import app  # noqa: E402
from zonectl.cli.commands import register  # noqa: E402
from zonectl.sandbox.seed import build as seed  # noqa: E402
from zonectl.sandbox.state import Sandbox  # noqa: E402

FIXTURES = HERE / "fixtures"
POLICY = FIXTURES / "firehose-policy.yaml"
CLUSTER = Path(seed.__file__).resolve().parent / "data" / "firehose.yaml"
HOT = "shard-10x"

# Commands that change the cluster or zonectl's own records (lease, journal, audit).
WRITES = frozenset(
    {
        "insert",
        "update",
        "delete",
        "findAndModify",
        "updateZoneKeyRange",
        "addShardToZone",
        "removeShardFromZone",
        "configureCollectionBalancing",
        "balancerStart",
        "balancerStop",
        "moveChunk",
        "moveRange",
        "split",
        "mergeChunks",
    }
)

HANDSHAKE = frozenset({"hello", "isMaster", "ismaster", "endSessions"})

if not app.registered_commands:
    register(app)


@dataclass
class Result:
    code: int
    out: str
    err: str


def zonectl(*args: str) -> Result:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


@dataclass
class Firehose:
    sandbox: Sandbox
    uri: str
    client: Any
    sent: list[tuple[str, str]] = field(default_factory=list)  # (command, namespace)

    def rotate(self, *args: str, policy: Path = POLICY) -> Result:
        return zonectl("rotate", str(policy), "--uri", self.uri, *args)

    def commands(self) -> list[str]:
        """What was sent, without the handshakes and heartbeats of any client's monitor."""
        return [name for name, _ in self.sent if name not in HANDSHAKE]

    def writes(self) -> list[str]:
        return [name for name, _ in self.sent if name in WRITES]

    def chunks(self, ns: str) -> list[dict[str, Any]]:
        """config.chunks of `ns` in key order, read through pymongo like any client."""
        uuid = self.client.config.collections.find_one({"_id": ns})["uuid"]
        return list(self.client.config.chunks.find({"uuid": uuid}).sort("min", 1))

    def tags(self, ns: str) -> list[tuple[Any, Any, str]]:
        docs = self.client.config.tags.find({"ns": ns}).sort("min", 1)
        return [(d["min"], d["max"], d["tag"]) for d in docs]

    def hot_min(self) -> dt.datetime:
        """The lower bound of app.events' hot range: where the window's boundary stands."""
        (lo,) = [lo for lo, _, zone in self.tags("app.events") if zone == "hot"]
        value = lo["ts"]
        assert isinstance(value, dt.datetime)
        return value


def midnight(instant: dt.datetime) -> dt.datetime:
    return instant.replace(hour=0, minute=0, second=0, microsecond=0)


def tap(sandbox: Sandbox, sent: list[tuple[str, str]]) -> None:
    points = sandbox.failpoints
    original = points.evaluate

    def evaluate(names: tuple[str, ...], namespace: str, app_name: str) -> Any:
        sent.append((names[0], namespace))
        return original(names, namespace, app_name)

    points.evaluate = evaluate  # type: ignore[method-assign]


def seeded(cluster: Path = CLUSTER, version: str = "7.0") -> Sandbox:
    sb = Sandbox(version)
    seed.seed(sb, seed.load(cluster), str(cluster))
    return sb
