"""The "shards" stage of apply, after every other (issue 39): each RemoveShard carried
through its steps. Without --migrate: the drain started, its progress reported with what
stops it, and the removal committed once the shard is empty (this run or a later one,
from cron). With --migrate: zonectl moves the shard's chunks itself, each to a shard of
its zone (else any shard that stays), through the one move scheduler with the balancing
of their collections (or the balancer) paused, then commits. Plus addShard's refusal,
said as the operator's problem. A mixin of the runner in run.py, which owns its state."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from zonectl.apply import drain_reply as reply_of
from zonectl.apply.drain_reply import Remaining
from zonectl.apply.interrupt import check_stop
from zonectl.apply.migrate import MigrationResult
from zonectl.apply.namespace_migration import NamespaceMigration, Queued
from zonectl.apply.preview import drain_preview
from zonectl.apply.safeguards import paused_balancer, paused_collection
from zonectl.errors import ClusterError
from zonectl.model.shard_lifecycle import ShardDrain
from zonectl.plan.failures import OpFailedError
from zonectl.plan.op_base import plural
from zonectl.plan.ops import Op
from zonectl.plan.shard_ops import AddShard, RemoveShard

_POLL_S = 1.0  # between two removeShard calls while range deletions are pending


class ShardStage(NamespaceMigration):
    """The runner's shard steps; the attributes and the abstract methods are the runner's."""

    def _next_step(self) -> int:
        raise NotImplementedError

    def _journaled_on_failure(self, op: Op, index: int) -> contextlib.AbstractContextManager[None]:
        raise NotImplementedError

    def _wait(self, ns: str | None) -> None:
        raise NotImplementedError

    def _resend(self, action: Callable[[], object], what: str, idempotent: bool) -> None:
        raise NotImplementedError

    # ------------------------------------------------------------------ join stage
    def _add_shard(self, op: AddShard) -> None:
        """addShard, the first op of a plan: a refusal ends the run naming the shard, its
        host and the fix; nothing else was sent."""
        before = self.result.ops_done
        try:
            self._step(op)
        except OpFailedError as exc:
            then = "nothing was changed" if not before else f"the {before} op(s) before it ran"
            raise ClusterError(
                f"shard {op.shard} could not be added from {op.host}: {exc.code_name or exc.code}:"
                f" {exc.errmsg}; {then}",
                hint=_add_fix(op, exc.code_name),
            ) from None

    # ------------------------------------------------------------------ shards stage
    def _remove_shard(self, op: RemoveShard, leaving: Sequence[str]) -> None:
        if not self.options.migrate:
            if op.step == "start":
                self._send(op, "draining started")
            self._settle(op, moved=False)
        else:
            drain = self._read_drain(op)
            with self._drain_pause(op.shard, [c.namespace for c in drain.collections]):
                queued = self._drain_moves(op, [c.namespace for c in drain.collections], leaving)
                if op.step == "start":
                    self._send(op, "draining started")
                done = self._drain_queue(op.shard, queued) if queued else True
                if done:
                    self._settle(op, moved=True)
                else:
                    self._report(op, self._status(op), moved=True)
        self.result.ops_done += 1

    def _read_drain(self, op: RemoveShard) -> ShardDrain:
        reader = self.ports.drains
        return op.drain if reader is None else reader.read_drain(op.shard)

    def _send(self, op: RemoveShard, done: str) -> Mapping[str, Any]:
        """One removal command under the lease and journal; its reply."""
        assert self.rec is not None
        index = self._next_step()
        with self._journaled_on_failure(op, index):
            answer = self.ports.send(op)
        rem = reply_of.parse(answer)
        status = done if op.step == "start" else f"{rem.state}: {rem.text()}"
        self.rec.step(index, op.kind, op.describe(), status)
        self.events.op(op, "done")
        self.result.changed = True
        return answer

    def _status(self, op: RemoveShard) -> Remaining:
        """The drain's progress: removeShard again (to 8.2: it commits an empty shard at
        once, so it is journaled), or shardDrainingStatus (8.3+, a read)."""
        probe = reply_of.at_step(op, "continue")
        if probe.command_name == reply_of.STATUS:
            rem = reply_of.parse(self.ports.send(probe))
        else:
            rem = reply_of.parse(self._send(probe, ""))
        if rem.drained or rem.bytes is not None or self.ports.drains is None:
            return rem
        return reply_of.with_bytes(rem, self.ports.drains.read_drain(op.shard))

    def _settle(self, op: RemoveShard, *, moved: bool) -> None:
        """Commit the removal once the shard is empty; else say where the drain stands."""
        rem = self._status(op)
        if rem.state != "completed" and rem.drained:
            rem = self._commit(op, rem)
        if rem.state == "completed":
            self.events.info(f"shard {op.shard} removed from the cluster")
            return
        self._report(op, rem, moved=moved)

    def _commit(self, op: RemoveShard, rem: Remaining) -> Remaining:
        """commitShardRemoval (8.3+), or removeShard until it answers completed through
        pendingDataCleanup (range deletions), within --wait-timeout."""
        commit = reply_of.at_step(op, "commit")
        if commit.command_name == reply_of.COMMIT:
            self._send(commit, "")
            return reply_of.Remaining("completed")
        deadline = time.monotonic() + self.options.wait_timeout_s
        while rem.state == "pendingDataCleanup":
            if time.monotonic() >= deadline:
                return rem
            self.events.info(
                f"shard {op.shard} is drained; waiting for its range deletions (pendingDataCleanup)"
            )
            time.sleep(_POLL_S)
            check_stop()
            rem = reply_of.parse(self._send(commit, ""))
        return rem

    def _report(self, op: RemoveShard, rem: Remaining, *, moved: bool) -> None:
        """Never a silent wait: what is left, the next step, and what stops the progress."""
        if rem.state == "pendingDataCleanup":
            self.result.warnings.append(
                f"shard {op.shard} is drained but its range deletions were still pending after "
                f"{self.options.wait_timeout_s:g}s (pendingDataCleanup); run `zonectl apply` "
                "again to commit its removal"
            )
            return
        if moved:
            self.result.warnings.append(
                f"shard {op.shard} still holds {rem.text()} after zonectl's moves; run "
                "`zonectl plan` to see it, then `zonectl apply --migrate` again"
            )
            return
        self.events.info(reply_of.next_step_line(op.shard, rem))
        if blockers := reply_of.stalled(op):
            self.result.warnings.append(reply_of.blockers_warning(op.shard, blockers))

    # ------------------------------------------------------------------ --migrate
    @contextlib.contextmanager
    def _drain_pause(self, shard: str, namespaces: Sequence[str]) -> Iterator[None]:
        """The balancing of the drained collections paused (or the balancer stopped, with
        --pause cluster) while zonectl moves their chunks; restored in every case."""
        assert self.rec is not None
        t0 = time.monotonic()
        with contextlib.ExitStack() as stack:
            if self.options.pause == "cluster":
                stack.enter_context(paused_balancer(self.ports.balancing, self.rec, self._resend))
                self._wait(None)
            else:
                for ns in namespaces:
                    stack.enter_context(
                        paused_collection(self.ports.balancing, self.rec, ns, self._resend)
                    )
                    self._wait(ns)
            yield
        self.result.paused_s[f"shard {shard}"] = time.monotonic() - t0

    def _drain_moves(
        self, op: RemoveShard, namespaces: Sequence[str], leaving: Sequence[str]
    ) -> list[Queued]:
        """Split the shard's chunks at zone bounds and list their moves; a jumbo chunk
        without --force-jumbo, or a zone no shard that stays carries, stops the drain
        before it is started (nothing moved)."""
        previews = [
            drain_preview(self.ports, ns, op.shard, leaving, self.options.force_jumbo)
            for ns in namespaces
        ]
        jumbo = [j for p in previews for j in p.moves.jumbo]
        if jumbo:
            message, hint = reply_of.jumbo_message(op.shard, jumbo)
            raise ClusterError(message, hint=hint)
        stranded = sorted({f"zone {z} of {p.ns}" for p in previews for z in p.moves.stranded})
        if stranded:
            raise ClusterError(
                f"the drain of shard {op.shard} cannot finish: no shard that stays carries "
                f"{', '.join(stranded)}; nothing of the drain was started",
                hint="give each zone to an active shard under `shards`, then apply again",
            )
        queued = []
        for p in previews:
            res = MigrationResult(p.ns)
            self.result.migrations.append(res)
            for split in p.splits:
                self._step(split, of_plan=False)
                res.splits += 1
            res.violating, res.runs = p.moves.violating, p.moves.runs
            if p.moves.pending:
                queued.append(Queued(res, p.moves))
        return queued

    def _drain_queue(self, shard: str, queued: list[Queued]) -> bool:
        """The moves off `shard` in the one queue (the draining shard takes part in one
        migration at a time); True when every chunk left."""
        self._migrate_queue(queued, [])
        results = [q.result for q in queued]
        skipped = [s for r in results for s in r.skipped]
        if skipped:
            message, hint = reply_of.jumbo_message(shard, [s.split(": ", 1)[0] for s in skipped])
            raise ClusterError(message, hint=hint, details=skipped)
        failed = [f for r in results for f in r.failed]
        if failed:
            raise ClusterError(
                f"the drain of shard {shard} stopped: {plural(len(failed), 'move')} failed",
                details=failed,
                hint="the drain stays started; fix the cause, then `zonectl apply --migrate` "
                "resumes it",
            )
        return not any(r.left for r in results)


def _add_fix(op: AddShard, code_name: str) -> str:
    if code_name == "IllegalOperation":
        return (
            f"the replica set at {op.host} (or a member of it) is already a shard, or the name "
            f"{op.shard} is taken: name that shard under `shards` instead, or fix `host:`"
        )
    return (
        f"check that the replica set {op.host} is running, reachable from the mongos and named "
        "as in `host:` (set/host:port,...), then `zonectl apply` again"
    )
