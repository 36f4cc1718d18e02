"""The apply sequence (ARCHITECTURE.md, "The journey of apply --migrate"): lease, recover a
previous run, re-read and plan, confirm, then memberships added, per namespace (paused)
ranges removed/added/verified and chunks split, every namespace's moves in one queue,
memberships removed, balancing and balancer settings, audit."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import get_args

from zonectl.apply.disk_guard import refuse_full
from zonectl.apply.drain import ShardStage
from zonectl.apply.drain_reply import refuse_blocked_removals, refuse_jumbo_drains
from zonectl.apply.interrupt import check_stop, stop_requested
from zonectl.apply.namespace_migration import Queued
from zonectl.apply.outcome import ApplyOptions as ApplyOptions
from zonectl.apply.outcome import ApplyResult as ApplyResult
from zonectl.apply.outcome import Events as Events
from zonectl.apply.outcome import Prepared as Prepared
from zonectl.apply.ports import Ports
from zonectl.apply.preview import Preview as Preview  # re-exported for callers of run
from zonectl.apply.preview import preview_migration as preview_migration
from zonectl.apply.reach import bounded, give_up_reason
from zonectl.apply.recover import recover_open
from zonectl.apply.resend import send_resent
from zonectl.apply.reshard.guard import refuse_blocked
from zonectl.apply.reshard.step import reshard_step
from zonectl.apply.safeguards import (
    Lease,
    Recorder,
    held_lease,
    journal,
    paused_balancer,
    paused_collection,
    signals_as_interrupts,
    whoami,
)
from zonectl.errors import ClusterError, ZonectlError
from zonectl.model.keys import sort_key
from zonectl.plan.op_base import Phase
from zonectl.plan.ops import MoveCollection, Op
from zonectl.plan.plan import Plan
from zonectl.plan.shard_ops import AddShard, RemoveShard


def run_apply(
    ports: Ports,
    options: ApplyOptions,
    prepare: Callable[[], Prepared],
    confirm: Callable[[Prepared, Sequence[Preview]], bool],
    events: Events,
) -> ApplyResult:
    result = ApplyResult()
    with (
        bounded(ports.down_s, options.wait_timeout_s),
        signals_as_interrupts(),
        held_lease(ports.lease, operation=options.operation, ttl=options.lease_ttl) as lease,
    ):
        _run_leased(ports, options, prepare, confirm, events, lease, result)
    result.warnings.extend(lease.warnings)
    return result


def _run_leased(
    ports: Ports,
    options: ApplyOptions,
    prepare: Callable[[], Prepared],
    confirm: Callable[[Prepared, Sequence[Preview]], bool],
    events: Events,
    lease: Lease,
    result: ApplyResult,
) -> None:
    # Resume by re-planning: first undo what an interrupted run left, then read afresh.
    result.recovered = recover_open(ports.journal, ports.balancing)
    for line in result.recovered:
        events.info(f"recovered: {line}")
    prepared = prepare()
    plan = prepared.plan
    result.plan_id, result.ops_total = plan.plan_id, len(plan.ops)
    lease.set_plan(plan.plan_id)
    previews = [preview_migration(ports, ns, options.force_jumbo, plan) for ns in prepared.migrate]
    previews = [p for p in previews if p.splits or p.moves.violating]
    if not plan.ops and not previews:
        return
    refuse_blocked(plan, detach=options.detach, budget_s=options.migrate_budget_s)
    refuse_blocked_removals(plan)
    refuse_jumbo_drains(plan, migrate=options.migrate, force_jumbo=options.force_jumbo)
    refuse_full(plan)
    if not confirm(prepared, previews):
        raise ZonectlError("apply cancelled; nothing was changed")
    _Runner(ports, options, events, lease, result).run(plan, previews)


class _Runner(ShardStage):
    def __init__(
        self, ports: Ports, options: ApplyOptions, events: Events, lease: Lease, result: ApplyResult
    ) -> None:
        self.ports, self.options, self.events = ports, options, events
        self.lease, self.result = lease, result
        self.index = 0
        self.rec: Recorder | None = None
        budget = options.migrate_budget_s
        # One budget for the whole run, on the cluster's clock (simulated for a sandbox).
        self.budget_at = None if budget is None else ports.clock() + budget

    def run(self, plan: Plan, previews: Sequence[Preview]) -> None:
        check_stop()  # stopped while it read and planned: nothing was changed
        result = self.result
        result.apply_id = uuid.uuid4().hex[:12]
        header = {
            "_id": result.apply_id,
            "plan_id": plan.plan_id,
            "policy_digest": plan.policy_digest,
            "fingerprint": plan.fingerprint,
            **whoami(),
            "ops": [op.describe() for op in plan.ops],
            # What the metrics read back as a window's last rotation (mongo/metrics_read.py).
            "range_namespaces": sorted(
                {c.ns for op in plan.ops if (c := op.range_change()) is not None}
            ),
        }
        started = dt.datetime.now(dt.UTC)
        outcome = "failed"
        try:
            with journal(self.ports.journal, header) as rec:
                self.rec = rec
                try:
                    self._sequence(plan, previews)
                finally:
                    result.warnings.extend(rec.warnings)
            outcome = "done"
        except KeyboardInterrupt:
            outcome = "interrupted"
            raise
        finally:
            self._audit(header, started, outcome)

    def _sequence(self, plan: Plan, previews: Sequence[Preview]) -> None:
        """Each op's `phase` says its stage, in the planner's order (its docstring); the
        ops of one stage keep their plan order."""
        stage: dict[Phase, list[Op]] = {phase: [] for phase in get_args(Phase)}
        for op in plan.ops:
            stage[op.phase].append(op)
        by_ns: dict[str, list[Op]] = {}
        for op in plan.ops:
            if (change := op.range_change()) is not None:  # the "range" stage, per namespace
                by_ns.setdefault(change.ns, []).append(op)
        migrating = {p.ns for p in previews}
        order = list(by_ns) + sorted(migrating - set(by_ns))
        for op in stage["join"]:
            self._add_shard(op) if isinstance(op, AddShard) else self._step(op)
        for op in stage["key"]:  # before the ranges: a refine rewrites the bounds they remove
            key = op.key_change()
            self._reshard(op, key.ns) if key is not None and key.reshards else self._step(op)
        # moveCollection ops after the ranges: they belong to the pins before them. With
        # --migrate they join the one queue of moves, alongside the chunk migrations. Typed
        # for apply/collection_moves.py, which runs the one kind of that stage.
        colls = [op for op in stage["relocate"] if isinstance(op, MoveCollection)]
        queued_colls = colls if migrating else []
        if order:
            with self._cluster_pause(), contextlib.ExitStack() as paused:
                queued = [
                    q
                    for ns in order
                    if (q := self._namespace(ns, by_ns.get(ns, []), ns in migrating, paused))
                ]
                if queued_colls or any(q.moves.pending for q in queued):
                    self._migrate_queue(queued, queued_colls)
        for op in colls:
            if op not in queued_colls:
                self._move_collection(op)
        for op in stage["relocate"]:
            if not isinstance(op, MoveCollection):  # movePrimary off a shard being removed
                self._step(op)
        for op in stage["leave"] + stage["last"]:
            self._step(op)
        leaving = [op.shard for op in stage["shards"] if isinstance(op, RemoveShard)]
        for op in stage["shards"]:  # last: a shard drained once everything else is in place
            self._remove_shard(op, leaving) if isinstance(op, RemoveShard) else self._step(op)

    @contextlib.contextmanager
    def _cluster_pause(self) -> Iterator[None]:
        if self.options.pause != "cluster":
            yield
            return
        assert self.rec is not None
        t0 = time.monotonic()
        with paused_balancer(self.ports.balancing, self.rec, self._resend):
            self._wait(None)
            yield
        self.result.paused_s["*"] = time.monotonic() - t0

    def _namespace(
        self, ns: str, ops: list[Op], migrate_it: bool, paused: contextlib.ExitStack
    ) -> Queued | None:
        """Pause `ns`, write its ranges and split its chunks; a namespace with moves to
        make stays paused (in `paused`) until the run's one queue of moves has ended."""
        assert self.rec is not None
        per_collection = self.options.pause != "cluster"
        t0 = time.monotonic()

        def unpaused() -> None:
            self.result.paused_s[ns] = time.monotonic() - t0

        with contextlib.ExitStack() as stack:
            if per_collection:
                stack.callback(unpaused)  # runs after the restore below
                stack.enter_context(
                    paused_collection(self.ports.balancing, self.rec, ns, self._resend)
                )
                self._wait(ns)
            t_ops = time.monotonic()
            for op in ops:
                self._step(op)
            self.result.range_s[ns] = time.monotonic() - t_ops
            if ops:
                self._verify(ns, ops)
            queued = self._prepare_migration(ns) if migrate_it else None
            if queued is not None and queued.moves.pending:
                paused.push(stack.pop_all())  # restored once the queue has ended
            return queued

    def _wait(self, ns: str | None) -> None:
        if ns is not None and self.ports.balancing.read_no_balance(ns) is None:
            return  # not sharded: nothing can be migrating
        if not self.ports.balancing.wait_idle(ns, self.options.wait_timeout_s, stop_requested):
            check_stop()  # stopped while waiting, not timed out
            what = f"chunks of {ns}" if ns else "chunks"
            raise ClusterError(
                f"the balancer was still migrating {what} after "
                f"{self.options.wait_timeout_s:g}s; balancing restored, {ns or 'the cluster'} "
                f"left unchanged",
                hint="rerun later, or raise --wait-timeout",
            )

    def _move_collection(self, op: MoveCollection) -> None:
        """One moveCollection on its own (no --migrate queue): under the lease and journal
        like every op, journaled only once the server shows it done."""
        index = self._next_step()
        with self._journaled_on_failure(op, index):
            status = self._send_collection(op)
        self._collection_done(op, index, status)

    def _reshard(self, op: Op, ns: str) -> None:
        """A resharding of `ns`, under the lease and journal; apply/reshard/ watches it."""
        rec = self.rec
        assert rec is not None
        index = self._next_step()

        def journal(status: str) -> None:
            rec.step(index, op.kind, op.describe(), status)

        o = self.options
        if reshard_step(op, ns, self.ports, self.events, journal, budget_s=o.migrate_budget_s,
                        detach=o.detach):  # fmt: skip
            self.result.ops_done += 1
        self.result.changed = True

    def _next_step(self) -> int:
        """The journal index of the next op, once the lease still holds and no stop came."""
        self.lease.check()
        check_stop()
        self.index += 1
        return self.index

    @contextlib.contextmanager
    def _journaled_on_failure(self, op: Op, index: int) -> Iterator[None]:
        """A failure or an interrupt while `op` is sent is journaled on its step, then raised."""
        assert self.rec is not None
        try:
            yield
        except ZonectlError:
            self.events.op(op, "failed")
            self.rec.step(index, op.kind, op.describe(), "failed")
            raise
        except KeyboardInterrupt:
            self.rec.step(index, op.kind, op.describe(), "interrupted (may still run)")
            raise

    def _step(self, op: Op, *, of_plan: bool = True) -> None:
        """Send one op under the lease and journal; `of_plan`: counted in ops_done (a split
        apply makes itself is not an op of the plan)."""
        assert self.rec is not None
        index = self._next_step()
        with self._journaled_on_failure(op, index):
            self._resend(lambda: self.ports.send(op), op.describe(), op.idempotent)
        self.result.changed = True
        self.result.ops_done += 1 if of_plan else 0
        memo = op.memo()
        if memo is not None and self.ports.memos is not None:
            self.ports.memos.write(memo)  # after success: the op is not started twice
        self.rec.step(index, op.kind, op.describe(), "done")
        self.events.op(op, "done")

    def _resend(self, action: Callable[[], object], what: str, idempotent: bool) -> None:
        """An op, or a balancing pause or restore (safeguards), sent again after a connection
        reset if it is idempotent (apply/resend.py)."""
        send_resent(action, what, idempotent, self.events.note, self.result.resets)

    def _verify(self, ns: str, ops: list[Op]) -> None:
        """Re-read config.tags: a removal whose bounds match nothing answers ok (§1.6), so
        only the stored documents say whether the change happened."""
        live = {
            (sort_key(r.min), sort_key(r.max), r.zone) for r in self.ports.chunks.read_ranges(ns)
        }
        for op in ops:
            change = op.range_change()
            if change is None:
                continue
            # A removal carries the live zone: the same bounds re-assigned to another zone
            # in this plan are another document, so (min, max, zone) decides both ways.
            present = (sort_key(change.min), sort_key(change.max), change.zone) in live
            ok = present if change.adds else not present
            if not ok:
                raise ClusterError(
                    f"verification failed for {ns}: after '{op.describe()}' config.tags does "
                    "not show the change (a removal with inexact bounds succeeds silently)",
                    hint="run `zonectl plan` to see the live ranges",
                )

    def _audit(self, header: dict[str, object], started: dt.datetime, outcome: str) -> None:
        r = self.result
        doc = {
            **header,
            "_id": r.apply_id,
            "operation": self.options.operation,
            "started": started,
            "ended": dt.datetime.now(dt.UTC),
            "outcome": outcome,
            "ops_done": r.ops_done,
            "ops_total": r.ops_total,
            "migrations": [vars(m) for m in r.migrations],
            "recovered": r.recovered,
        }
        if (reason := give_up_reason()) is not None:
            r.warnings.append(f"audit record not written: {reason}")
            return
        try:
            self.ports.audit.write(doc)
        except ZonectlError as exc:
            r.warnings.append(f"audit record not written: {exc.message}")
