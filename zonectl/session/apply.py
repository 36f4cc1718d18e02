"""What `apply` runs under its lease: the plan re-read and made as `plan` makes it, or a
saved plan checked against the live metadata (refused when stale), with impacts attached;
and the exact commands `apply --dry-run` would send."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from zonectl.apply.dryrun import dry_run_commands
from zonectl.apply.ports import Ports
from zonectl.apply.run import ApplyOptions, Prepared, preview_migration
from zonectl.errors import StalePlanError
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.echo import command_line
from zonectl.mongo.resolve import read_resolved
from zonectl.plan.plan import Plan, make_fingerprint
from zonectl.plan.unsharded import UNREACHABLE
from zonectl.session.capacity import with_capacity
from zonectl.session.checks import with_impacts
from zonectl.session.policy_plan import read_policy_plan


@dataclass(frozen=True)
class Draft:
    """The plan before its impacts are read, and the warnings to show first."""

    plan: Plan
    actual: ClusterState
    migrate: tuple[str, ...]  # namespaces whose out-of-zone chunks move now
    warnings: tuple[str, ...]
    saved: bool  # a saved plan, checked fresh: nothing is read for it any more


@dataclass(frozen=True)
class ApplyPreparer:
    """apply's `prepare`, in two steps so the plan's warnings are shown before the impact
    reads: `draft()`, then `finish(draft)`."""

    conn: Connection
    desired: DesiredState
    saved: Plan | None
    only: list[str] | None  # --namespace, checked
    migrate: bool  # --migrate

    def draft(self) -> Draft:
        conn, desired, saved, only = self.conn, self.desired, self.saved, self.only
        now = conn.local()  # this host's clock, or a sandbox's own (`sandbox:?now=`)
        # Patterns expanded against the live namespaces; a saved plan is only checked.
        if saved is None:
            policy = read_policy_plan(conn, desired, now, namespaces=only or None)
            resolved, plan = policy.resolved, policy.plan
        else:
            resolved, plan = read_resolved(conn, desired, now), saved
        actual, expanded = resolved.actual, resolved.desired
        names = [ns for ns in sorted(expanded.collections) if not only or ns in only]
        eager = tuple(
            ns
            for ns in names
            if ns in actual.collections
            and (self.migrate or expanded.collections[ns].migrate == "eager")
        )
        if saved is not None:
            fingerprint = make_fingerprint(actual, frozenset(expanded.collections))
            check_fresh(saved, desired, actual_fp=fingerprint, now=now)
            return Draft(saved, actual, eager, (), saved=True)
        # pins this server version cannot honour: said on every run
        unreachable = tuple(note for note in plan.notes if UNREACHABLE in note)
        return Draft(plan, actual, eager, plan.warnings + unreachable, saved=False)

    def finish(self, draft: Draft) -> Prepared:
        if draft.saved:
            return Prepared(draft.plan, draft.migrate)
        plan = with_impacts(self.conn, draft.actual, draft.plan)
        plan, _ = with_capacity(self.conn, draft.actual, plan, self.desired)
        return Prepared(plan, draft.migrate)


def check_fresh(saved: Plan, desired: DesiredState, *, actual_fp: str, now: dt.datetime) -> None:
    """A saved plan is applied only against the metadata it was computed from
    (ARCHITECTURE.md, "The journey of apply --migrate", step 3)."""
    if saved.policy_digest and desired.digest and saved.policy_digest != desired.digest:
        raise StalePlanError(
            f"saved plan {saved.plan_id} is stale: the policy files changed since it was made",
            hint="run `zonectl plan --save-plan FILE` again and review the new plan",
        )
    if actual_fp != saved.fingerprint:
        raise StalePlanError(
            f"saved plan {saved.plan_id} is stale: the cluster's zone metadata changed since "
            f"it was made at {saved.at.isoformat()}",
            hint="run `zonectl plan --save-plan FILE` again and review the new plan",
        )
    if saved.valid_until is not None and now >= saved.valid_until:
        raise StalePlanError(
            f"saved plan {saved.plan_id} is stale: its firehose window moved at "
            f"{saved.valid_until.isoformat()}",
            hint="run `zonectl plan --save-plan FILE` again (or `zonectl rotate` from cron)",
        )


def dry_run_lines(ports: Ports, options: ApplyOptions, prepared: Prepared) -> list[str]:
    """Each command `apply` would send, pauses and restores included, as `db: {json}`
    (redacted); reads only."""
    previews = [
        preview_migration(ports, ns, options.force_jumbo, prepared.plan) for ns in prepared.migrate
    ]
    previews = [p for p in previews if p.splits or p.moves.violating]
    plan = prepared.plan
    nss = {op.namespace for op in plan.ops} | {p.ns for p in previews}
    no_balance = {ns: ports.balancing.read_no_balance(ns) for ns in nss if ns}
    commands = dry_run_commands(
        plan, previews, options, no_balance, ports.balancing.balancer_running()
    )
    return [command_line(database, cmd) for database, cmd in commands]
