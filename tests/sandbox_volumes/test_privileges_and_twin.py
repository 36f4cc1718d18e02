"""Who may run dbStats (the dbStats action on the database: `read` on it, clusterMonitor on any;
others get Unauthorized as a mongos words it), and a twin that keeps each shard's volume."""

from __future__ import annotations

from pathlib import Path

import pymongo
import pytest
from pymongo.errors import OperationFailure
from typer.testing import CliRunner
from volumes_util import GIB, HOST_A, NOW, cluster_file, move, used

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox import uri as sandbox_uri

if not app.registered_commands:
    register(app)

USERS = """users:
  - {user: mon, pwd: pw, db: admin, roles: [clusterMonitor, {role: read, db: config}]}
  - {user: reader, pwd: pw, db: admin, roles: [{role: read, db: app}]}
  - {user: cfg, pwd: pw, db: admin, roles: [{role: read, db: config}]}
"""


def test_dbstats_needs_the_dbstats_action_on_the_database(tmp_path: Path) -> None:
    path = cluster_file(tmp_path, USERS)
    with sandbox_uri.start(f"sandbox:{path}?auth=true&now={NOW}") as sb:

        def client(user: str) -> pymongo.MongoClient[dict]:
            return pymongo.MongoClient(sb.uri, username=user, password="pw")

        assert used(client("mon"))[HOST_A] == (14 * GIB, 20 * GIB)
        assert used(client("reader"))[HOST_A] == (14 * GIB, 20 * GIB)
        with pytest.raises(OperationFailure) as refused:
            client("cfg").app.command("dbStats")
        with pytest.raises(OperationFailure) as other_db:
            client("reader").other.command("dbStats")
    assert refused.value.code == 13
    assert str(refused.value).startswith("not authorized on app to execute command { dbStats: 1")
    assert other_db.value.code == 13


def test_a_twin_serves_the_volumes_of_the_cluster_it_was_captured_from(tmp_path: Path) -> None:
    path, twin = cluster_file(tmp_path), tmp_path / "twin.yaml"
    with sandbox_uri.start(f"sandbox:{path}?now={NOW}") as sb:
        client: pymongo.MongoClient[dict] = pymongo.MongoClient(sb.uri)
        move(client, 0, "b")  # free space on a, folded into the twin's baseline
        want = used(client, db="admin")
        out = CliRunner().invoke(app, ["twin", "--uri", sb.uri, "-o", str(twin)])
        assert out.exit_code == 0, out.output
    text = twin.read_text()
    assert "disk: {size: 21474836480, baseline:" in text and "compression: 0.5" in text
    with sandbox_uri.start(f"sandbox:{twin}?now={NOW}") as served:
        got = used(pymongo.MongoClient(served.uri), db="admin")
    assert got == want


def test_a_twin_without_the_dbstats_action_says_so_and_gets_default_disks(tmp_path: Path) -> None:
    path, twin = cluster_file(tmp_path, USERS), tmp_path / "twin.yaml"
    with sandbox_uri.start(f"sandbox:{path}?auth=true&now={NOW}") as sb:
        uri = sb.uri.replace("mongodb://", "mongodb://cfg:pw@")
        out = CliRunner().invoke(app, ["twin", "--uri", uri, "-o", str(twin)])
    assert out.exit_code == 0, out.output
    assert "dbStats needs the dbStats action" in twin.read_text()
    assert "disk:" not in twin.read_text()
