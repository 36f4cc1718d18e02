"""One ReshardCollection as a journaled apply step: its journal lines (started, then done,
detached, aborted by --budget, interrupted or failed) around `runner.run_reshard`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from zonectl.apply.migrate import MigrationProgress
from zonectl.apply.ports import Ports
from zonectl.apply.reshard.runner import run_reshard
from zonectl.errors import ClusterError, ZonectlError
from zonectl.plan.ops import Op


class StepEvents(MigrationProgress, Protocol):
    def op(self, op: Op, status: str) -> None: ...


def reshard_step(
    op: Op,
    ns: str,
    ports: Ports,
    events: StepEvents,
    journal: Callable[[str], Any],
    *,
    budget_s: float | None,
    detach: bool,
) -> bool:
    """Run it (a resharding of `ns`); True when it committed (False: detached, left running
    on the server)."""
    control = ports.reshard
    if control is None:
        raise ClusterError(f"{op.describe()}: this cluster connection cannot reshard")
    journal("started")
    try:
        outcome = run_reshard(
            op,
            ns,
            send=ports.send,
            control=control,
            events=events,
            clock=ports.clock,
            budget_s=budget_s,
            detach=detach,
        )
    except KeyboardInterrupt:
        journal("interrupted: aborted")
        raise
    except ZonectlError:
        journal("failed")
        events.op(op, "failed")
        raise
    journal(f"{outcome.status} {outcome.detail}".strip())
    if outcome.status == "aborted":
        raise ClusterError(
            f"{ns}: resharding aborted by --budget ({outcome.detail}); the collection is as it was",
            hint="rerun with a longer --budget, or in a longer maintenance window",
        )
    if outcome.status == "detached":
        events.note(
            f"{ns}: detached: the resharding keeps running on the server; "
            "`zonectl status` shows it, the next plan/apply waits for it"
        )
        return False
    events.op(op, "done")
    return True
