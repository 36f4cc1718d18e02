"""`apply --migrate` for one namespace, inside the apply run: the splits at zone
boundaries, then the out-of-zone chunks moved in parallel (apply/parallel.py), each move
under the lease and in the journal, within the run's --budget, stopping on Ctrl-C after
the running moves end. A mixin of the runner in run.py, which owns the state it uses."""

from __future__ import annotations

from zonectl.apply import migrate
from zonectl.apply.interrupt import stop_requested
from zonectl.apply.migrate import MigrationResult, make_move_op
from zonectl.apply.outcome import ApplyOptions, ApplyResult, Events
from zonectl.apply.parallel import Hooks, run_parallel
from zonectl.apply.ports import Ports
from zonectl.apply.preview import preview_migration
from zonectl.apply.safeguards import Lease, Recorder
from zonectl.forecast.eager import Dispatcher, PendingMove, default_parallel
from zonectl.forecast.units import format_bytes
from zonectl.plan.ops import Op
from zonectl.render.summary import plural


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

    def _step(self, op: Op) -> None:
        raise NotImplementedError  # the runner's: send one op under the lease and journal

    def _migrate(self, ns: str) -> None:
        res = MigrationResult(ns)
        self.result.migrations.append(res)
        chunks = self.ports.chunks.read_chunks(ns)
        ranges = self.ports.chunks.read_ranges(ns)
        for split in migrate.make_splits(ns, chunks, ranges):
            self._step(split)
            res.splits += 1
        preview = preview_migration(self.ports, ns, self.options.force_jumbo)
        moveset = preview.moves
        res.violating, res.runs = moveset.violating, moveset.runs
        res.skipped.extend(f"{c}: jumbo (use --force-jumbo)" for c in moveset.jumbo)
        res.skipped.extend(f"zone {z} of {ns}: no shard carries it" for z in moveset.stranded)
        parallel = self.options.parallel or default_parallel(len(moveset.loads))
        dispatcher = Dispatcher(moveset.pending, moveset.loads, parallel)
        self.events.start(ns, len(moveset.pending), moveset.bytes)
        try:
            out = run_parallel(dispatcher, self._hooks(ns))
        finally:
            self.events.finish()
        res.commands, res.moved, res.bytes_moved = out.commands, out.moved, out.bytes_moved
        res.skipped.extend(out.skipped)
        res.failed.extend(out.failed)
        res.left = len(out.left)
        if out.left and self.budget_at is not None and self.ports.clock() >= self.budget_at:
            self.events.note(
                f"{ns}: --budget reached: {plural(res.left, 'chunk')} "
                f"({format_bytes(sum(m.bytes for m in out.left))}) left to the balancer"
            )
        if out.moved:
            self.result.changed = True

    def _hooks(self, ns: str) -> Hooks:
        major, force = self.ports.major, self.options.force_jumbo
        steps: dict[int, int] = {}

        def send(move: PendingMove, to: str) -> str:
            return migrate.send_move(
                self.ports.send, make_move_op(move, to, major=major, force_jumbo=force)
            )

        def before_start(move: PendingMove, to: str) -> None:
            self.lease.check()
            self.index += 1
            steps[move.index] = self.index

        def after(move: PendingMove, to: str, outcome: str) -> None:
            assert self.rec is not None
            op = make_move_op(move, to, major=major, force_jumbo=force)
            self.rec.step(steps.pop(move.index), op.kind, op.describe(), outcome)
            self.events.advance(1, move.bytes if outcome == "moved" else 0)

        def budget_over() -> bool:
            return self.budget_at is not None and self.ports.clock() >= self.budget_at

        def waiting(running: int) -> None:
            if running:
                self.events.note(
                    f"{ns}: interrupted: no new move starts; waiting for the {running} "
                    "running move(s) to end (a migration cannot be recalled)"
                )

        return Hooks(send, before_start, after, budget_over, stop_requested, waiting)
