"""`zonectl recover --resharding report|wait|abort`: what to do about a reshardCollection an
interrupted (or detached) apply left running on the server. It keeps running by itself
(the config server's coordinator); zonectl never starts a second one meanwhile."""

from __future__ import annotations

import time
from enum import StrEnum

from zonectl.cli.boundary import stderr
from zonectl.model.keys import format_value
from zonectl.mongo.connect import Connection
from zonectl.mongo.reshard_read import MongoReshard, read_progress, read_reshardings
from zonectl.render.inert import terminal

_POLL_S = 1.0


class ReshardAction(StrEnum):
    report = "report"
    wait = "wait"
    abort = "abort"


def settle_reshardings(conn: Connection, action: str) -> list[str]:
    """Report, wait for or abort each resharding running; lines for the journal/audit."""
    done: list[str] = []
    for r in read_reshardings(conn):
        progress = read_progress(conn, r.namespace)
        shown = f"{100 * progress.share:.0f}% copied" if progress else "no progress reported"
        stderr.print(  # one line, the key as every other message shows one
            terminal(
                f"zonectl: a resharding of {r.namespace} to the key {format_value(dict(r.key))} "
                f"is running on the server (state {r.state or 'unknown'}, {shown}, "
                f"since {r.started})"
            ),
            markup=False,
        )
        if action == ReshardAction.abort:
            MongoReshard(conn).abort(r.namespace)  # returns once the abort has finished
            done.append(f"resharding of {r.namespace} aborted; the collection is as it was")
        elif action == ReshardAction.wait:
            while any(x.namespace == r.namespace for x in read_reshardings(conn)):
                time.sleep(_POLL_S)
            done.append(f"resharding of {r.namespace} ended (waited for it)")
    return done
