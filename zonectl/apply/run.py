"""The apply sequence of DESIGN §5: lease, recover a previous run, re-read and plan,
confirm, then memberships added, per namespace (paused) ranges removed/added/verified and
chunks migrated, memberships removed, balancing and balancer settings, audit."""

from __future__ import annotations

import contextlib
import datetime as dt
import time
import uuid
from collections.abc import Callable, Iterator, Sequence

from zonectl.apply.collection_moves import settle_running_move, verify_move
from zonectl.apply.interrupt import check_stop, stop_requested
from zonectl.apply.namespace_migration import NamespaceMigration
from zonectl.apply.outcome import ApplyOptions as ApplyOptions
from zonectl.apply.outcome import ApplyResult as ApplyResult
from zonectl.apply.outcome import Events as Events
from zonectl.apply.outcome import Prepared as Prepared
from zonectl.apply.ports import Ports
from zonectl.apply.preview import Preview as Preview  # re-exported for callers of run
from zonectl.apply.preview import preview_migration as preview_migration
from zonectl.apply.recover import recover_open
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
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    MoveCollection,
    Op,
    RefineShardKey,
    RemoveShardFromZone,
    RemoveZoneRange,
    ReshardCollection,
    SplitChunk,
)
from zonectl.plan.value import Plan


def run_apply(
    ports: Ports,
    options: ApplyOptions,
    prepare: Callable[[], Prepared],
    confirm: Callable[[Prepared, Sequence[Preview]], bool],
    events: Events,
) -> ApplyResult:
    result = ApplyResult()
    with (
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
    if not confirm(prepared, previews):
        raise ZonectlError("apply cancelled; nothing was changed")
    _Runner(ports, options, events, lease, result).run(plan, previews)


class _Runner(NamespaceMigration):
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
                {op.ns for op in plan.ops if isinstance(op, AssignZoneRange | RemoveZoneRange)}
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
        adds = [op for op in plan.ops if isinstance(op, AddShardToZone)]
        removes = [op for op in plan.ops if isinstance(op, RemoveShardFromZone)]
        by_ns: dict[str, list[Op]] = {}
        for op in plan.ops:
            if isinstance(op, AssignZoneRange | RemoveZoneRange):
                by_ns.setdefault(op.ns, []).append(op)
        rest = [op for op in plan.ops if op not in adds and op not in removes]
        rest = [op for op in rest if not isinstance(op, AssignZoneRange | RemoveZoneRange)]
        migrating = {p.ns for p in previews}
        order = list(by_ns) + sorted(migrating - set(by_ns))
        keys = [op for op in rest if isinstance(op, RefineShardKey | ReshardCollection)]
        rest = [op for op in rest if op not in keys]
        for op in adds:
            self._step(op)
        for op in keys:  # before the ranges: a refine rewrites the bounds they remove
            self._reshard(op) if isinstance(op, ReshardCollection) else self._step(op)
        if order:
            with self._cluster_pause():
                for ns in order:
                    self._namespace(ns, by_ns.get(ns, []), ns in migrating)
        for op in rest:  # moveCollection ops first: they belong to the pins before them
            if isinstance(op, MoveCollection):
                self._move_collection(op)
        for op in removes:
            self._step(op)
        for op in rest:
            if not isinstance(op, MoveCollection):
                self._step(op)

    @contextlib.contextmanager
    def _cluster_pause(self) -> Iterator[None]:
        if self.options.pause != "cluster":
            yield
            return
        assert self.rec is not None
        t0 = time.monotonic()
        with paused_balancer(self.ports.balancing, self.rec):
            self._wait(None)
            yield
        self.result.paused_s["*"] = time.monotonic() - t0

    def _namespace(self, ns: str, ops: list[Op], migrate_it: bool) -> None:
        assert self.rec is not None
        per_collection = self.options.pause != "cluster"
        t0 = time.monotonic()
        pause = (
            paused_collection(self.ports.balancing, self.rec, ns)
            if per_collection
            else contextlib.nullcontext(False)
        )
        with pause:
            if per_collection:
                self._wait(ns)
            t_ops = time.monotonic()
            for op in ops:
                self._step(op)
            self.result.range_s[ns] = time.monotonic() - t_ops
            if ops:
                self._verify(ns, ops)
            if migrate_it:
                self._migrate(ns)
        if per_collection:
            self.result.paused_s[ns] = time.monotonic() - t0

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
        """Under the lease and journal like every op; a move already running on the server
        is waited for, never doubled; the result is verified where the server records it."""
        reader = self.ports.unsharded
        if reader is None:
            raise ClusterError(f"{op.describe()}: this cluster connection cannot move collections")
        self.lease.check()
        check_stop()
        home = settle_running_move(reader, op, self.options.wait_timeout_s, self.events.info)
        if home is not None and home != op.from_shard:
            # The move that was running placed it: done if in the zone, else plan again.
            zone = {s.id for s in self.ports.read_state([]).shards if op.zone in s.zones}
            if home not in zone:
                raise ClusterError(
                    f"{op.ns} was moved to {home} (outside zone {op.zone}) by another "
                    "moveCollection while zonectl waited; nothing more was sent",
                    hint="run `zonectl plan` to see where it lives now, then apply again",
                )
            assert self.rec is not None
            self.index += 1
            self.rec.step(self.index, op.kind, op.describe(), f"done by the move to {home}")
            self.events.op(op, "done")
            return
        self._step(op)
        verify_move(reader, op)

    def _reshard(self, op: ReshardCollection) -> None:
        """Under the lease and journal; apply/reshard/ watches it meanwhile."""
        rec = self.rec
        assert rec is not None
        self.lease.check()
        check_stop()
        self.index += 1
        index = self.index

        def journal(status: str) -> None:
            rec.step(index, op.kind, op.describe(), status)

        o = self.options
        if reshard_step(op, self.ports, self.events, journal, budget_s=o.migrate_budget_s,
                        detach=o.detach):  # fmt: skip
            self.result.ops_done += 1
        self.result.changed = True

    def _step(self, op: Op) -> None:
        assert self.rec is not None
        self.lease.check()
        check_stop()
        self.index += 1
        try:
            self.ports.send(op)
        except ZonectlError:
            self.events.op(op, "failed")
            self.rec.step(self.index, op.kind, op.describe(), "failed")
            raise
        except KeyboardInterrupt:
            self.rec.step(self.index, op.kind, op.describe(), "interrupted (may still run)")
            raise
        self.result.changed = True
        self.result.ops_done += 1 if not isinstance(op, SplitChunk) else 0
        memo = op.memo()
        if memo is not None and self.ports.memos is not None:
            self.ports.memos.write(memo)  # after success: the op is not started twice
        self.rec.step(self.index, op.kind, op.describe(), "done")
        self.events.op(op, "done")

    def _verify(self, ns: str, ops: list[Op]) -> None:
        """Re-read config.tags: a removal whose bounds match nothing answers ok (§1.6), so
        only the stored documents say whether the change happened."""
        live = {
            (sort_key(r.min), sort_key(r.max), r.zone) for r in self.ports.chunks.read_ranges(ns)
        }
        for op in ops:
            if not isinstance(op, AssignZoneRange | RemoveZoneRange):
                continue
            # A removal carries the live zone: the same bounds re-assigned to another zone
            # in this plan are another document, so (min, max, zone) decides both ways.
            present = (sort_key(op.min), sort_key(op.max), op.zone) in live
            ok = present if isinstance(op, AssignZoneRange) else not present
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
        try:
            self.ports.audit.write(doc)
        except ZonectlError as exc:
            r.warnings.append(f"audit record not written: {exc.message}")
