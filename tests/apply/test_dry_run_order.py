"""`apply --dry-run` lists the commands a real run sends, in the order it sends them
(ARCHITECTURE.md, "The picture": a dry run can never drift from the real run): compared with
what `apply -v` says it sent, with --migrate, where the moves of the one queue come between
the ranges and the restores."""

from __future__ import annotations

import json

from apply_kit import MIGRATE, Cluster, zonectl

SENT = "  -> "
READS = {"buildInfo", "find", "aggregate", "count", "dataSize", "balancerStatus",
         "balancerCollectionStatus", "listCollections", "hello", "ismaster", "isMaster",
         "serverStatus", "getParameter", "listShards", "connectionStatus"}  # fmt: skip


def _changes(lines: list[str]) -> list[tuple[str, dict[str, object]]]:
    """The state-changing commands (the dry run's kinds), zonectl's own bookkeeping and
    the reads a run makes aside."""
    out = []
    for line in lines:
        db, _, body = line.partition(": ")
        if db not in ("admin", "config"):
            continue
        command = json.loads(body)
        name = next(iter(command))
        if name in READS or (name == "update" and command["update"] != "collections"):
            continue
        out.append((db, command))  # compared as documents: field order aside
    return out


def test_the_dry_run_lists_what_apply_sends_in_the_same_order(cluster: Cluster) -> None:
    args = ("apply", str(MIGRATE), "--uri", cluster.uri, "--migrate", "--parallel", "1")
    dry = zonectl(*args, "--dry-run")
    assert dry.code == 0, dry.err
    planned = _changes(dry.out.splitlines())
    real = zonectl(*args, "--yes", "-v")
    assert real.code == 0, real.err
    sent = _changes([line[len(SENT) :] for line in real.err.splitlines() if line.startswith(SENT)])
    assert any("moveRange" in command for _, command in planned)
    assert sent == planned
