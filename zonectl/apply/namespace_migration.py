"""`apply --migrate` inside the apply run, in two steps: per namespace (its balancing
paused) the splits at zone boundaries and the moves it needs; then every namespace's moves
in one queue (apply/parallel.py, zonectl.forecast.eager.Dispatcher), disjoint shard pairs
at once and busiest donors first, each move under the lease and in the journal, within the
run's --budget, stopping on Ctrl-C after the running moves end. A mixin of the runner in
run.py, which owns the state it uses."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, cast

from zonectl.apply import migrate
from zonectl.apply.collection_moves import collection_lookup, settle_running_move, verify_move
from zonectl.apply.interrupt import stop_requested
from zonectl.apply.migrate import MigrationResult, MoveSet, make_move_op
from zonectl.apply.move_lookup import Lookup, send_looked_up
from zonectl.apply.outcome import ApplyOptions, ApplyResult, Events
from zonectl.apply.parallel import Hooks, ParallelOutcome, chunk_text, run_parallel
from zonectl.apply.ports import Ports
from zonectl.apply.preview import preview_migration
from zonectl.apply.reach import give_up_reason
from zonectl.apply.safeguards import Lease, Recorder
from zonectl.errors import ClusterError
from zonectl.forecast.eager import (
    COLLECTION,
    Dispatcher,
    PendingMove,
    default_parallel,
    max_parallel,
)
from zonectl.forecast.units import format_bytes
from zonectl.model.keys import sort_key
from zonectl.plan.failures import MoveNotDoneError
from zonectl.plan.ops import MoveCollection, Op
from zonectl.render.summary import plural


@dataclass(frozen=True)
class Queued:
    """One namespace's part of the queue: its moves, and where its outcome is counted."""

    result: MigrationResult
    moves: MoveSet


class NamespaceMigration:
    """The runner's migration steps; the attributes are the runner's (run.py)."""

    ports: Ports
    options: ApplyOptions
    events: Events
    lease: Lease
    result: ApplyResult
    rec: Recorder | None
    index: int
    budget_at: float | None

    def _step(self, op: Op, *, of_plan: bool = True) -> None:
        raise NotImplementedError  # the runner's: send one op under the lease and journal

    def _prepare_migration(self, ns: str) -> Queued:
        """Split `ns`'s chunks at its zone boundaries (its balancing paused) and list the
        moves it needs; nothing moves yet."""
        res = MigrationResult(ns)
        self.result.migrations.append(res)
        chunks = self.ports.chunks.read_chunks(ns)
        ranges = self.ports.chunks.read_ranges(ns)
        for split in migrate.make_splits(ns, chunks, ranges):
            self._step(split, of_plan=False)
            res.splits += 1
        moveset = preview_migration(self.ports, ns, self.options.force_jumbo).moves
        res.violating, res.runs = moveset.violating, moveset.runs
        res.skipped.extend(f"{c}: jumbo (use --force-jumbo)" for c in moveset.jumbo)
        res.skipped.extend(f"zone {z} of {ns}: no shard carries it" for z in moveset.stranded)
        return Queued(res, moveset)

    def _migrate_queue(self, queued: list[Queued], colls: list[MoveCollection]) -> None:
        """Every namespace's moves, and the plan's moveCollection ops, in one queue: as many
        at once as the cluster allows."""
        moves = [m for q in queued for m in q.moves.pending]
        for op in colls:
            size = op.impact.bytes if op.impact else 0
            moves.append(PendingMove(op.ns, 0, op.from_shard, (op.to_shard,), size, op, COLLECTION))
        shards = {s for q in queued for s in q.moves.loads}
        dispatcher = Dispatcher(
            moves, {q.result.ns: q.moves.loads for q in queued}, self._parallel(len(shards))
        )
        names = [q.result.ns for q in queued] + [op.ns for op in colls]
        label = names[0] if len(names) == 1 else plural(len(names), "namespace")
        self.events.start(label, len(moves), sum(m.bytes for m in moves))
        try:
            out = run_parallel(dispatcher, self._hooks(label))
        finally:
            self.events.finish()
        for q in queued:
            self._count(q.result, out.of(q.result.ns))
        for op in colls:  # a failed moveCollection: its namespace failed, as for chunk moves
            if out.of(op.ns).failed:
                res = MigrationResult(op.ns)
                self.result.migrations.append(res)
                self._count(res, out.of(op.ns))

    def _send_collection(self, op: MoveCollection) -> str:
        """moveCollection, never doubling one the server already runs; the journal status
        ("done", or "done by the move to S") once the server shows it done."""
        reader = self.ports.unsharded
        if reader is None:
            raise ClusterError(f"{op.describe()}: this cluster connection cannot move collections")
        home = settle_running_move(reader, op, self.options.wait_timeout_s, self.events.info)
        if home is not None and home != op.from_shard:
            # The move that was running placed it: done if in the zone, else plan again.
            zone = {s.id for s in self.ports.read_state([]).shards if op.zone in s.zones}
            if home not in zone:
                raise MoveNotDoneError(
                    f"{op.ns} was moved to {home} (outside zone {op.zone}) by another "
                    "moveCollection while zonectl waited; nothing more was sent",
                    hint="run `zonectl plan` to see where it lives now, then apply again",
                )
            return f"done by the move to {home}"
        look = collection_lookup(reader, op, self.events.note, self.result.resets)
        send_looked_up(lambda: self._send_op(op), look)
        verify_move(reader, op)
        return "done"

    def _send_op(self, op: Op) -> str:
        self.ports.send(op)
        return "moved"

    def _collection_done(self, op: MoveCollection, index: int, status: str) -> None:
        assert self.rec is not None
        self.rec.step(index, op.kind, op.describe(), status)
        self.events.op(op, "done")
        if status == "done":
            self.result.ops_done += 1
            self.result.changed = True

    def _parallel(self, shards: int) -> int:
        """--parallel, or the default; above what the shards can run at once, it is said."""
        given = self.options.parallel
        if given is None:
            return default_parallel(shards)
        cap = max_parallel(shards)
        if given > cap:
            self.events.note(
                f"--parallel {given}: {shards} shards run at most {cap} migration(s) at once "
                f"(one per shard as donor or recipient); {cap} will run"
            )
        return given

    def _count(self, res: MigrationResult, out: ParallelOutcome) -> None:
        res.commands, res.moved, res.bytes_moved = out.commands, out.moved, out.bytes_moved
        res.skipped.extend(out.skipped)
        res.failed.extend(out.failed)
        res.reasons.extend(out.reasons)
        res.left = len(out.left)
        if out.left and self.budget_at is not None and self.ports.clock() >= self.budget_at:
            self.events.note(
                f"{res.ns}: --budget reached: {plural(res.left, 'chunk')} "
                f"({format_bytes(sum(m.bytes for m in out.left))}) left to the balancer"
            )
        if out.moved:
            self.result.changed = True

    def _lookup(self, move: PendingMove, to: str) -> Lookup:
        """How a move whose connection reset is looked up (apply/move_lookup.py)."""
        lo = cast(tuple[dict[str, Any], Any], move.payload)[0]
        watch = self.ports.moves

        def landed() -> bool:
            if watch is not None:
                return watch.read_owner(move.ns, lo) == to
            chunks = self.ports.chunks.read_chunks(move.ns)
            return any(sort_key(c["min"]) == sort_key(lo) and c["shard"] == to for c in chunks)

        def running() -> bool | None:
            return None if watch is None else watch.read_running(move.ns, lo, to)

        what = f"{chunk_text(move)} -> {to}"
        return Lookup(landed, running, self.events.note, what, self.result.resets)

    def _hooks(self, label: str) -> Hooks:
        major, force = self.ports.major, self.options.force_jumbo
        steps: dict[tuple[str, int], int] = {}

        def send(move: PendingMove, to: str) -> str:
            if move.kind == COLLECTION:
                status = self._send_collection(cast(MoveCollection, move.payload))
                return "moved" if status == "done" else f"skipped: {status}"
            op = make_move_op(move, to, major=major, force_jumbo=force)
            return send_looked_up(
                lambda: migrate.send_move(self.ports.send, op), self._lookup(move, to)
            )

        def before_start(move: PendingMove, to: str) -> None:
            self.lease.check()
            self.index += 1
            steps[move.ns, move.index] = self.index

        def after(move: PendingMove, to: str, outcome: str) -> None:
            assert self.rec is not None
            index = steps.pop((move.ns, move.index))
            self.events.advance(1, move.bytes if outcome == "moved" else 0)
            if give_up_reason() is not None:
                return  # the cluster is gone: nothing is written to it any more
            if move.kind == COLLECTION:
                coll = cast(MoveCollection, move.payload)
                if outcome == "failed":
                    self.events.op(coll, "failed")
                    self.rec.step(index, coll.kind, coll.describe(), "failed")
                else:
                    status = "done" if outcome == "moved" else outcome.removeprefix("skipped: ")
                    self._collection_done(coll, index, status)
                return
            op = make_move_op(move, to, major=major, force_jumbo=force)
            self.rec.step(index, op.kind, op.describe(), outcome)

        def abandoned(move: PendingMove, to: str) -> None:
            assert self.rec is not None
            index = steps.pop((move.ns, move.index))
            if give_up_reason() is None:  # a cluster gone is not written to
                op: Op = (
                    cast(MoveCollection, move.payload)
                    if move.kind == COLLECTION
                    else make_move_op(move, to, major=major, force_jumbo=force)
                )
                self.rec.step(index, op.kind, op.describe(), "interrupted (may still run)")

        def budget_over() -> bool:
            return self.budget_at is not None and self.ports.clock() >= self.budget_at

        def waiting(running: int) -> None:
            if running:
                self.events.note(
                    f"{label}: interrupted: no new move starts; waiting for the {running} "
                    "running move(s) to end (a migration cannot be recalled)"
                )

        return Hooks(send, before_start, after, budget_over, stop_requested, waiting, abandoned)
