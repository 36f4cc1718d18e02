"""`zonectl recover` on an open connection: under the lease, restore what an interrupted apply
left (zonectl/apply/recover.py), settle a resharding still running, audit. Prints nothing:
lines to show while it runs go to `tell`; what was done comes back."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from zonectl.apply.drain_reply import drains_started, left_draining
from zonectl.apply.recover import recover_open
from zonectl.apply.safeguards import held_lease, whoami
from zonectl.errors import ZonectlError
from zonectl.model.cluster import LiveMove
from zonectl.model.keys import format_value
from zonectl.mongo.audit import MongoAudit
from zonectl.mongo.balancing import MongoBalancing
from zonectl.mongo.connect import Connection
from zonectl.mongo.drain_ports import MongoDrains
from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease, describe_holder
from zonectl.mongo.reshard_read import MongoReshard, read_progress, read_reshardings
from zonectl.mongo.unsharded_read import read_moves
from zonectl.render.inert import terminal

RESHARD_ACTIONS = ("report", "wait", "abort")  # --resharding
_POLL_S = 1.0


@dataclass(frozen=True)
class Recovered:
    done: list[str]  # what was recovered, one line each (also in the audit record)
    running: list[LiveMove]  # moveCollection still running on the server


def recover(
    conn: Connection,
    *,
    database: str,
    break_lease: bool,
    resharding: str,
    tell: Callable[[str], None],
) -> Recovered:
    """Under the lease (taken over with `break_lease`); `resharding` is one of
    RESHARD_ACTIONS. Raises as apply does: a live holder (exit 1), balancing that cannot be
    restored (NeedsHumanError, exit 5)."""
    client = conn.client
    lease = MongoLease(client, database)
    before = lease.read()
    with held_lease(
        lease, operation="recover", ttl=dt.timedelta(minutes=5), break_lease=break_lease
    ):
        if before is not None:
            tell(f"zonectl: took over the lease of {describe_holder(before)}")
        journal = MongoJournal(client, database)
        started = drains_started(journal.find_open())
        done = recover_open(journal, MongoBalancing(client))
        done += _settle_reshardings(conn, resharding, tell)
        for drain in MongoDrains(conn).read_draining():  # reported, never undone
            tell(terminal(f"zonectl: {left_draining(drain, started.get(drain.shard))}"))
        _audit(MongoAudit(client, database), done)
    return Recovered(done, read_moves(conn))


def _settle_reshardings(conn: Connection, action: str, tell: Callable[[str], None]) -> list[str]:
    """Report, wait for or abort each resharding running; lines for the journal/audit. It
    keeps running by itself (the config server's coordinator); zonectl never starts a second
    one meanwhile."""
    done: list[str] = []
    for r in read_reshardings(conn):
        progress = read_progress(conn, r.namespace)
        shown = f"{100 * progress.share:.0f}% copied" if progress else "no progress reported"
        tell(  # one line, the key as every other message shows one
            terminal(
                f"zonectl: a resharding of {r.namespace} to the key {format_value(dict(r.key))} "
                f"is running on the server (state {r.state or 'unknown'}, {shown}, "
                f"since {r.started})"
            )
        )
        if action == "abort":
            MongoReshard(conn).abort(r.namespace)  # returns once the abort has finished
            done.append(f"resharding of {r.namespace} aborted; the collection is as it was")
        elif action == "wait":
            while any(x.namespace == r.namespace for x in read_reshardings(conn)):
                time.sleep(_POLL_S)
            done.append(f"resharding of {r.namespace} ended (waited for it)")
    return done


def _audit(audit: MongoAudit, done: list[str]) -> None:
    # Best effort: the recovery itself succeeded.
    with contextlib.suppress(ZonectlError):
        audit.write(
            {
                "_id": uuid.uuid4().hex[:12],
                "operation": "recover",
                **whoami(),
                "ended": dt.datetime.now(dt.UTC),
                "recovered": done,
            }
        )
