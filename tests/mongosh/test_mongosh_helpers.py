"""mongosh against the sandbox over TCP: the handshake, `sh.status()` and the `sh.*` helpers.

Issue 2: "Real clients must work unchanged: ... mongosh's `sh.*` helpers and `sh.status()`".
Each test runs the real mongosh (npm package `mongosh`) with `--eval` against a seeded
sandbox (the shipped demo cluster), then reads the resulting config.* documents back with
pymongo. mongosh is found through $ZONECTL_MONGOSH, then PATH, then the npm prefix that
.ci/run installs it into ($HOME/.cache/zonectl-mongosh); without it the module is skipped.

Script output is exchanged as lines `@@<name> <canonical EJSON>` so Python can decode
MinKey, Timestamp, UUID, ... exactly (bson.json_util).
"""

from __future__ import annotations

import datetime as dt
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import child_procs
import pytest
from bson import json_util
from bson.max_key import MaxKey
from bson.min_key import MinKey
from mongosh_kit import find_mongosh

from zonectl.sandbox.clock import Clock
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

MONGOSH = find_mongosh()
if MONGOSH is None:
    pytest.skip(
        "mongosh is not installed: `npm install --prefix ~/.cache/zonectl-mongosh mongosh` "
        "(what .ci/run does) or set ZONECTL_MONGOSH to its executable",
        allow_module_level=True,
    )

# Prepended to every script: `out(name, value)` prints one machine-readable line, and
# `res(r)` drops the gossiped cluster time so command results compare as plain documents.
PRELUDE = """
const out = (name, value) => print('@@' + name + ' ' + EJSON.stringify(value, {relaxed: false}));
const res = (r) => { const o = Object.assign({}, r); delete o.$clusterTime;
  delete o.operationTime; return o; };
const cfg = db.getSiblingDB('config');
"""


@dataclass
class Shell:
    """One finished mongosh run."""

    returncode: int
    stdout: str
    stderr: str

    @property
    def values(self) -> dict[str, Any]:
        found: dict[str, Any] = {}
        for line in self.stdout.splitlines():
            if line.startswith("@@"):
                name, _, payload = line[2:].partition(" ")
                found[name] = json_util.loads(payload)
        return found


@pytest.fixture(scope="session")
def mongosh_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """A private HOME (mongosh writes logs and history there) and telemetry off."""
    home = tmp_path_factory.mktemp("mongosh-home")
    conf = home / "mongosh.conf"
    # The global config file mongosh reads first; forceDisableTelemetry is its switch
    # (@mongosh/cli-repl cli-repl.js `forceDisableTelemetry`).
    conf.write_text("mongosh:\n  forceDisableTelemetry: true\n")
    return {
        **os.environ,
        "HOME": str(home),
        "MONGOSH_GLOBAL_CONFIG_FILE_FOR_TESTING": str(conf),
        "CI": "1",  # no update check (cli-repl.js fetchMongoshUpdateUrl)
        "NO_COLOR": "1",
    }


Runner = Callable[..., Shell]


@pytest.fixture
def demo(sandbox_server: Any) -> Iterator[Any]:
    """The shipped demo cluster served over TCP (7.0)."""
    sb = Sandbox("7.0")
    seed.seed(sb, seed.load(None))
    yield sandbox_server(sandbox=sb)


@pytest.fixture
def mongosh(mongosh_env: dict[str, str]) -> Runner:
    def run(uri: str, script: str, *, stdin: bool = False, check: bool = True) -> Shell:
        assert MONGOSH is not None
        args = [MONGOSH, uri, "--quiet", "--norc"]
        if stdin:  # interactive-style evaluation: errors print as Name[codeName]: message
            proc = child_procs.run(
                args, input=script, capture_output=True, text=True, timeout=120, env=mongosh_env
            )
        else:
            proc = child_procs.run(
                [*args, "--eval", PRELUDE + script],
                capture_output=True,
                text=True,
                timeout=120,
                env=mongosh_env,
            )
        shell = Shell(proc.returncode, proc.stdout, proc.stderr)
        if check:
            assert proc.returncode == 0, f"mongosh failed:\n{proc.stdout}\n{proc.stderr}"
        return shell

    return run


def _ok(doc: Any) -> None:
    assert doc.get("ok") == 1, doc


# ---------------------------------------------------------------- connection and status


@pytest.mark.parametrize("version", ["5.0", "6.0", "7.0", "8.0"])
def test_handshake_ping_version_and_status(sandbox_server: Any, mongosh: Runner, version: str):
    """The Node driver's legacy OP_QUERY hello, then OP_MSG commands; sh.status() renders."""
    sb = Sandbox(version)
    seed.seed(sb, seed.load(None))
    handle = sandbox_server(sandbox=sb)
    shell = mongosh(
        handle.uri,
        """
        out('ping', res(db.adminCommand({ping: 1})));
        out('version', db.version());
        out('hello', db.hello().msg);
        out('status', sh.status().value);
        """,
    )
    got = shell.values
    _ok(got["ping"])
    assert got["version"] == sb.version.version
    assert got["hello"] == "isdbgrid"
    status = got["status"]
    assert [s["_id"] for s in status["shards"]] == sorted(sb.cluster.shard_names())
    assert status["shardingVersion"]["_id"] == 1
    assert status["balancer"]["Currently enabled"] == "yes"
    assert status["balancer"]["Currently running"] == "no"
    # config.mongos, from the sandbox's uptime report (zonectl/sandbox/uptime.py)
    # ("active" while the report is under 60 s old by wall time, else "most recently active")
    mongoses = status.get("active mongoses", status.get("most recently active mongoses"))
    assert mongoses == [{sb.version.version: 1}]
    # $shardedDataDistribution exists from 6.0.3; mongosh shows undefined before
    if version == "5.0":
        assert status.get("shardedDataDistribution") is None
    else:
        # A real mongos lists MongoDB's own sharded config.system.sessions too (the manual's
        # sh.getShardedDataDistribution() example shows it).
        assert [d["ns"] for d in status["shardedDataDistribution"]] == [
            "app.audit", "app.events", "app.reports", "app.sessions", "app.users",
            "config.system.sessions",
        ]  # fmt: skip
    (app,) = [d for d in status["databases"] if d["database"]["_id"] == "app"]
    events = app["collections"]["app.events"]
    assert events["shardKey"] == {"ts": 1, "_id": 1}
    assert events["balancing"] is True
    assert sum(c["nChunks"] for c in events["chunkMetadata"]) == 2000
    assert {t["tag"] for t in events["tags"]} == {"archive", "hot"}
    assert len(events["chunks"]) == 21  # 20 chunks, then "too many chunks to print"


def test_status_prints_for_a_person(demo: Any, mongosh: Runner):
    """Plain `sh.status()` as a person types it: the report, no error."""
    shell = mongosh(demo.uri, "sh.status()")
    for text in ("shardingVersion", "shards", "shard-fast-0", "balancer", "app.events",
                 "tag: 'hot'", "too many chunks to print"):  # fmt: skip
        assert text in shell.stdout, text
    assert "Error" not in shell.stdout + shell.stderr


# ------------------------------------------------------------------------------- zones


def test_zone_helpers_assign(demo: Any, mongosh: Runner):
    shell = mongosh(
        demo.uri,
        """
        out('a1', res(sh.addShardToZone('shard-std-2', 'blue')));
        out('a2', res(sh.addShardTag('shard-std-3', 'blue')));
        out('again', res(sh.addShardToZone('shard-std-2', 'blue')));
        out('r1', res(sh.updateZoneKeyRange('app.sessions', {userId: MinKey}, {userId: 1000},
                                            'blue')));
        out('r2', res(sh.addTagRange('app.sessions', {userId: 1000}, {userId: MaxKey}, 'blue')));
        out('tags', cfg.tags.find({ns: 'app.sessions'}, {_id: 0}).sort({min: 1}).toArray());
        """,
    )
    got = shell.values
    for name in ("a1", "a2", "again", "r1", "r2"):
        _ok(got[name])
    cfg = demo.client.config
    assert cfg.shards.find_one({"_id": "shard-std-2"})["tags"] == ["blue"]
    assert cfg.shards.find_one({"_id": "shard-std-3"})["tags"] == ["blue"]
    expected = [
        {"ns": "app.sessions", "min": {"userId": MinKey()}, "max": {"userId": 1000}, "tag": "blue"},
        {"ns": "app.sessions", "min": {"userId": 1000}, "max": {"userId": MaxKey()}, "tag": "blue"},
    ]
    assert got["tags"] == expected
    stored = list(cfg.tags.find({"ns": "app.sessions"}, {"_id": 0}).sort("min", 1))
    assert stored == expected


def test_zone_helpers_remove(demo: Any, mongosh: Runner):
    cfg = demo.client.config
    admin = demo.client.admin
    admin.command("addShardToZone", "shard-std-2", zone="blue")
    admin.command("addShardToZone", "shard-std-3", zone="blue")
    for lo, hi in ((MinKey(), 1000), (1000, MaxKey())):
        admin.command(
            "updateZoneKeyRange", "app.sessions", min={"userId": lo}, max={"userId": hi},
            zone="blue",
        )  # fmt: skip
    shell = mongosh(
        demo.uri,
        """
        out('rr1', res(sh.removeRangeFromZone('app.sessions', {userId: MinKey},
                                              {userId: 1000})));
        // the zone argument of removeTagRange is ignored (reference §3.6)
        out('rr2', res(sh.removeTagRange('app.sessions', {userId: 1000}, {userId: MaxKey},
                                         'no-such-zone')));
        out('absent', res(sh.removeRangeFromZone('app.sessions', {userId: 5}, {userId: 6})));
        out('n', cfg.tags.countDocuments({ns: 'app.sessions'}));
        out('z1', res(sh.removeShardFromZone('shard-std-2', 'blue')));
        out('z2', res(sh.removeShardTag('shard-std-3', 'blue')));
        out('z3', res(sh.removeShardFromZone('shard-std-3', 'never-there')));
        """,
    )
    got = shell.values
    for name in ("rr1", "rr2", "absent", "z1", "z2", "z3"):
        _ok(got[name])
    assert got["n"] == 0
    assert cfg.tags.count_documents({"ns": "app.sessions"}) == 0
    assert cfg.shards.count_documents({"tags": "blue"}) == 0


def test_zone_errors_display_code_names(demo: Any, mongosh: Runner):
    """A failing helper: --eval exits 1 with the server's message on stderr; the
    interactive form shows `MongoServerError[codeName]`; a caught error carries code and
    codeName."""
    demo.client.admin.command(
        "updateZoneKeyRange", "app.sessions", min={"userId": 0}, max={"userId": 500},
        zone="archive",
    )  # fmt: skip
    overlap = "sh.updateZoneKeyRange('app.sessions', {userId: 100}, {userId: 700}, 'archive')"
    # Caught errors carry code and codeName; the last, uncaught one ends the --eval with
    # exit code 1 and the server's message on stderr.
    failed = mongosh(
        demo.uri,
        f"""
        try {{ {overlap}; out('e', null); }}
        catch (e) {{ out('e', {{code: e.code, codeName: e.codeName}}); }}
        try {{ sh.addShardToZone('no-such-shard', 'x'); out('s', null); }}
        catch (e) {{ out('s', {{code: e.code, codeName: e.codeName}}); }}
        try {{ db.adminCommand({{noSuchCommand: 1}}); out('c', null); }}
        catch (e) {{ out('c', {{code: e.code, codeName: e.codeName}}); }}
        {overlap};
        """,
        check=False,
    )
    got = failed.values
    assert got["e"] == {"code": 178, "codeName": "RangeOverlapConflict"}
    assert got["s"] == {"code": 70, "codeName": "ShardNotFound"}
    assert got["c"] == {"code": 59, "codeName": "CommandNotFound"}
    assert failed.returncode == 1
    assert "MongoServerError" in failed.stderr
    assert "overlapping with existing" in failed.stderr

    typed = mongosh(demo.uri, overlap + "\n", stdin=True, check=False)
    assert "MongoServerError[RangeOverlapConflict]" in typed.stdout + typed.stderr
    # nothing was written by the failed overlap
    assert demo.client.config.tags.count_documents({"ns": "app.sessions"}) == 1


# ---------------------------------------------------------------------------- balancer


def test_balancer_helpers(demo: Any, mongosh: Runner):
    shell = mongosh(
        demo.uri,
        """
        out('stop', res(sh.stopBalancer()));
        out('stateAfterStop', sh.getBalancerState());
        out('running', res(sh.isBalancerRunning()));
        out('settingsAfterStop', cfg.settings.findOne({_id: 'balancer'}));
        out('start', res(sh.startBalancer()));
        out('stateAfterStart', sh.getBalancerState());
        out('setFalse', res(sh.setBalancerState(false)));
        out('stateAfterSetFalse', sh.getBalancerState());
        out('setTrue', res(sh.setBalancerState(true)));
        out('stateAfterSetTrue', sh.getBalancerState());
        """,
    )
    got = shell.values
    for name in ("stop", "start", "setFalse", "setTrue"):
        _ok(got[name])
    assert got["stateAfterStop"] is False
    assert got["settingsAfterStop"]["stopped"] is True
    assert got["settingsAfterStop"]["mode"] == "off"
    running = got["running"]
    _ok(running)
    assert running["mode"] == "off"
    assert running["inBalancerRound"] is False
    assert got["stateAfterStart"] is True
    assert got["stateAfterSetFalse"] is False
    assert got["stateAfterSetTrue"] is True
    doc = demo.client.config.settings.find_one({"_id": "balancer"})
    assert doc["stopped"] is False
    assert doc["mode"] == "full"
    status = demo.client.admin.command("balancerStatus")
    assert status["mode"] == "full"


def test_collection_balancing_helpers(demo: Any, mongosh: Runner):
    cfg = demo.client.config
    shell = mongosh(
        demo.uri,
        """
        out('disable', sh.disableBalancing('app.reports'));
        out('afterDisable', cfg.collections.findOne({_id: 'app.reports'}).noBalance);
        out('status', sh.status().value.databases.filter((d) => d.database._id === 'app')[0]
            .collections['app.reports'].balancing);
        out('enable', sh.enableBalancing('app.reports'));
        out('compliant', res(sh.balancerCollectionStatus('app.events')));
        try { sh.balancerCollectionStatus('app.nope'); out('missing', null); }
        catch (e) { out('missing', e.codeName); }
        """,
    )
    got = shell.values
    assert got["disable"]["acknowledged"] is True
    assert got["disable"]["matchedCount"] == 1
    assert got["afterDisable"] is True
    assert got["status"] is False
    assert got["enable"]["modifiedCount"] == 1
    assert cfg.collections.find_one({"_id": "app.reports"})["noBalance"] is False
    compliant = got["compliant"]
    _ok(compliant)
    assert compliant["balancerCompliant"] is True
    assert compliant["chunkSize"] == 128  # MB, 6.0+ (reference §3.3)
    assert got["missing"] == "NamespaceNotSharded"


def test_is_balancer_running_during_a_round(sandbox_server: Any, mongosh: Runner):
    """A round with a migration in flight: sh.isBalancerRunning() shows inBalancerRound, and
    sh.stopBalancer(timeout) fails with MaxTimeMSExpired while the round holds on (§3.1)."""
    # A fixed sandbox clock: the migration stays in flight until the test completes it.
    sb = Sandbox("7.0", clock=Clock(fixed=dt.datetime(2026, 3, 2, 12, tzinfo=dt.UTC)))
    seed.seed(sb, seed.load(None))
    demo = sandbox_server(sandbox=sb)
    demo.client.admin.command("balancerStop")
    demo.client.admin.command("addShardToZone", "shard-std-3", zone="solo")
    demo.client.admin.command(
        "updateZoneKeyRange", "app.sessions", min={"userId": MinKey()},
        max={"userId": MaxKey()}, zone="solo",
    )  # fmt: skip
    demo.client.admin.command("balancerStart")
    balancer = demo.sandbox.balancer
    # Migrations take simulated time: the round stays open until they complete.
    assert balancer.run_round().changed
    try:
        got = mongosh(
            demo.uri,
            """
            out('r', res(sh.isBalancerRunning()));
            out('s', sh.status().value.balancer['Currently running']);
            try { sh.stopBalancer(300); out('stop', null); }
            catch (e) { out('stop', {code: e.code, codeName: e.codeName}); }
            """,
        ).values
        assert got["r"]["inBalancerRound"] is True
        assert got["s"] == "yes"
        assert got["stop"] == {"code": 50, "codeName": "MaxTimeMSExpired"}
        # balancerStop stored mode off before it started waiting
        assert demo.client.config.settings.find_one({"_id": "balancer"})["mode"] == "off"
    finally:
        balancer.complete_migrations()
    assert demo.client.admin.command("balancerStatus")["inBalancerRound"] is False


# ------------------------------------------------------------------------------ chunks


def test_chunk_helpers(demo: Any, mongosh: Runner):
    cfg = demo.client.config
    uuid = cfg.collections.find_one({"_id": "app.sessions"})["uuid"]
    before = cfg.chunks.count_documents({"uuid": uuid})
    shell = mongosh(
        demo.uri,
        """
        const uuid = cfg.collections.findOne({_id: 'app.sessions'}).uuid;
        out('count', cfg.chunks.countDocuments({uuid: uuid}));
        out('first', cfg.chunks.find({uuid: uuid}, {_id: 0, min: 1, max: 1})
            .sort({min: 1}).limit(2).toArray());
        out('onShard', cfg.chunks.countDocuments({uuid: uuid, shard: 'shard-std-3'}));
        out('splitAt', res(sh.splitAt('app.sessions', {userId: 150})));
        out('splitFind', res(sh.splitFind('app.sessions', {userId: 250000})));
        out('moveChunk', res(sh.moveChunk('app.sessions', {userId: 150}, 'shard-std-3')));
        out('after', cfg.chunks.countDocuments({uuid: uuid}));
        """,
    )
    got = shell.values
    assert got["count"] == before == 50
    assert got["first"] == [
        {"min": {"userId": MinKey()}, "max": {"userId": 100000}},
        {"min": {"userId": 100000}, "max": {"userId": 200000}},
    ]
    assert got["onShard"] == cfg.chunks.count_documents({"uuid": uuid, "shard": "shard-std-3"}) - 1
    for name in ("splitAt", "splitFind", "moveChunk"):
        _ok(got[name])
    assert got["after"] == before + 2
    # splitAt cut [MinKey, 100000) at 150; splitFind cut [200000, 300000) at its middle
    lo = cfg.chunks.find_one({"uuid": uuid, "min": {"userId": MinKey()}})
    assert lo["max"] == {"userId": 150}
    moved = cfg.chunks.find_one({"uuid": uuid, "min": {"userId": 150}})
    assert moved["max"] == {"userId": 100000}
    assert moved["shard"] == "shard-std-3"
    mid = cfg.chunks.find_one({"uuid": uuid, "min": {"userId": 200000}})
    assert mid["max"] == {"userId": 250000}
