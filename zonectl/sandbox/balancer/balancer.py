"""The sandbox balancer: rounds, in-flight migrations, and the settings they obey (ref §5).

A round (`Balancer::_mainThread` in mongo:src/mongo/db/s/balancer/balancer.cpp) reloads the
settings, splits chunks at zone boundaries, picks migrations with `balancer_policy` and
starts them. Every migration, the balancer's and a manual moveChunk/moveRange alike,
takes simulated time (`costs.MigrationCosts`: MongoDB's migration steps, per-shard copy
rates, a per-document part and seeded jitter): it stays in flight (a balancer round
stays open, `inBalancerRound: true`) until the sandbox clock passes its due time and
someone polls, or a test calls `complete_migrations()`. A command that must wait for the
clock (a manual move until its commit) parks in `block_until`/`wait_for`; on a virtual
clock that wait is what moves time forward. Tests drive rounds step by step; `zonectl
sandbox` runs them on a timer thread.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from zonectl.sandbox.balancer import rounds
from zonectl.sandbox.balancer.auto_merger import AutoMerger
from zonectl.sandbox.balancer.costs import MigrationCost, MigrationCosts
from zonectl.sandbox.balancer.defragment import Defragmenter
from zonectl.sandbox.balancer.migrations import (
    ActiveMigrations,
    InFlight,
    commit_move,
    fail_commit,
    forget_migration,
    log_move,
    record_migration,
)
from zonectl.sandbox.balancer.policy import PolicyParams
from zonectl.sandbox.balancer.settings import BalancerSettings, parse_settings
from zonectl.sandbox.catalog import fcv
from zonectl.sandbox.errors import CommandError

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.cluster import Cluster

_POLL_SECONDS = 0.05  # how often a waiter re-reads a real-time sandbox clock
# Virtual clock: how long the sandbox must be quiet (no command arriving, no commit) before
# a blocked command jumps the clock to the next due instant. Long enough for a client whose
# move just committed to send its next one; short enough that a run of hundreds of moves
# costs seconds. Between waits nothing else moves time, so a serial client's timeline is
# exact; parallel clients slower than this to follow up start late (never early).
VIRTUAL_QUIET_SECONDS = 0.02
# A client that just got a manual move's answer usually sends another command soon (its
# next move, or a journal write before it): until some command arrives the clock waits
# longer (a client that stopped, or has nothing to start yet, costs this much real time
# per jump, never simulated time).
VIRTUAL_FOLLOWUP_SECONDS = 0.3


@dataclass
class RoundResult:
    """What one `run_round()` did (for tests and the actionlog)."""

    skipped: str | None = None  # why the round did nothing: "off", "window", or an errmsg
    splits: int = 0
    migrations: list[InFlight] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)  # ChunkTooBig: split or marked jumbo
    merged: int = 0  # chunks the auto-merger merged
    defragmented: int = 0  # defragmentation merges and phase transitions

    @property
    def changed(self) -> bool:
        return bool(
            self.splits or self.migrations or self.failures or self.merged or self.defragmented
        )


class Balancer:
    def __init__(self, cluster: Cluster, lock: threading.RLock) -> None:
        """`lock` is the sandbox's command lock: waiters release it while they wait."""
        self.cluster = cluster
        self.active = ActiveMigrations(ranges_wording=cluster.version.version_array[0] >= 6)
        self.num_rounds = 0
        self.in_round = False
        self.term = 1
        self.waiters = 0  # commands parked in wait_for (balancerStop, a manual move)
        self.costs = MigrationCosts()  # what each migration costs in simulated time
        self._alarms: list[dt.datetime] = []  # instants commands are blocked until
        self.followups = 0  # manual moves answered since the last command arrived
        self.settings = BalancerSettings(
            max_chunk_size_bytes=cluster.version.default_chunk_size_mb * 1024 * 1024
        )
        self.auto_merger = AutoMerger(cluster)  # 7.0+
        self.defrag = Defragmenter(cluster, lambda ns: [m.min for m in self.active.touching(ns)])
        # Donor shards whose `failMigrationCommit` fail point is on (a shard's fail point, set
        # on its mongod, which the sandbox has no endpoint for: tests set it here).
        self.fail_commit_on: set[str] = set()
        self._cond = threading.Condition(lock)
        self._round: RoundResult | None = None
        self._round_started: dt.datetime | None = None
        self._timer: threading.Thread | None = None
        self._timer_stop = threading.Event()

    # ------------------------------------------------------------------ settings
    def reload_settings(self) -> BalancerSettings:
        """`BalancerConfiguration::refreshAndCheck`; on error the old settings stay."""
        cluster = self.cluster
        settings = parse_settings(
            cluster.setting("balancer"),
            cluster.setting("chunksize"),
            cluster.setting("automerge"),
            self.cluster.version,
            dow_enabled=not fcv.below(cluster.catalog, cluster.version, (8, 3)),
        )
        self.settings = settings
        return settings

    def current_settings(self) -> BalancerSettings:
        """Fresh settings when they parse, else the last good ones (as mongos caches them)."""
        with contextlib.suppress(CommandError):
            self.reload_settings()
        return self.settings

    def params(self, settings: BalancerSettings) -> PolicyParams:
        version = self.cluster.version
        return PolicyParams(
            by_data_size=version.imbalance_by_data_size,
            imbalance_threshold=version.imbalance_threshold_chunks,
            force_jumbo=settings.attempt_to_balance_jumbo_chunks,
        )

    # ------------------------------------------------------------------ rounds
    def run_round(self) -> RoundResult:
        """Run one round; its migrations stay in flight until completed.

        A round still open from before is finished first: the real balancer never starts a
        round before the previous one's migrations have returned.
        """
        with self._cond:
            if self._round is not None:
                self.complete_migrations()
            result = RoundResult()
            self._round, self._round_started = result, self.cluster.clock.now()
            self.in_round = True
            try:
                settings = self.reload_settings()
            except CommandError as err:
                result.skipped = err.message
                self._end_round()
                return result
            if not settings.should_balance(self.cluster.clock.now()):
                result.skipped = "off" if settings.mode != "full" else "window"
                self.auto_merger.disable()  # the main loop disables it and skips the round
                self.defrag.interrupt()
                self._end_round()
                return result
            result.merged = self._auto_merge(settings)
            result.splits = rounds.split_at_zone_boundaries(self.cluster)
            before = self.defrag.actions
            for flight, failure in rounds.start_migrations(
                self.cluster,
                settings,
                self.params(settings),
                self.active.busy(),
                self.migration_cost,
                self._defrag_moves(settings),
            ):
                if flight is not None:
                    self.active.register(flight)
                    record_migration(self.cluster, flight, settings.attempt_to_balance_jumbo_chunks)
                    result.migrations.append(flight)
                if failure is not None:
                    result.failures.append(failure)
            result.defragmented = self.defrag.actions - before
            if not any(m.by_balancer for m in self.active):
                self._end_round()
            return result

    def _auto_merge(self, settings: BalancerSettings) -> int:
        """balancer-settings.md §3.3: enabled while balancing with automerge on (7.0+;
        `gAutoMerger` is FCV-gated, so a 7.0 binary at FCV 6.0 has none)."""
        cluster = self.cluster
        if not cluster.version.has_auto_merger:
            return 0
        if fcv.below(cluster.catalog, cluster.version, (7, 0)):
            return 0
        if settings.auto_merge:
            self.auto_merger.enable()
        else:
            self.auto_merger.disable()
        return self.auto_merger.tick()

    def _defrag_moves(self, settings: BalancerSettings) -> Callable[[set[str]], list[Any]] | None:
        if not self.cluster.version.has_defragmentation:
            return None
        return lambda available: self.defrag.step(settings, available)

    def complete_migrations(self) -> int:
        """Finish every migration in flight now, and the round that started them."""
        with self._cond:
            done = 0
            for mig in list(self.active):
                self._finish(mig)
                done += 1
            if self._round is not None:
                self._end_round()
            return done

    def poll(self) -> None:
        """Finish the migrations whose simulated duration has passed on the sandbox clock."""
        with self._cond:
            now = self.cluster.clock.now()
            for mig in list(self.active):
                if mig.due <= now:
                    self._finish(mig)
            if self._round is not None and not any(m.by_balancer for m in self.active):
                self._end_round()

    def run_until_stable(self, max_rounds: int = 50) -> int:
        """Run rounds (completing their migrations) until one changes nothing; the count."""
        for n in range(1, max_rounds + 1):
            result = self.run_round()
            self.complete_migrations()
            if not result.changed:
                return n
        return max_rounds

    def _finish(self, mig: InFlight) -> None:
        self.active.release(mig)
        forget_migration(self.cluster, mig)
        if mig.donor in self.fail_commit_on:
            in_error = not fcv.below(self.cluster.catalog, self.cluster.version, (8, 3))
            mig.error = fail_commit(self.cluster, mig, in_error)
        elif not commit_move(self.cluster, mig):
            mig.error = CommandError.of(
                "ConflictingOperationInProgress",
                f"chunk of {mig.ns} changed while it was migrating; the move was abandoned",
            )
        self.cluster.clock.note_activity()
        self._cond.notify_all()

    def abort(self, ns: str, error: CommandError) -> int:
        """Abort every migration of `ns` in flight (migrations disallowed, the collection
        dropped): the shard's refresh calls `MigrationSourceManager::abort`, which kills the
        moveChunk's operation, and `_cleanupOnError` logs moveChunk.error. How many."""
        with self._cond:
            aborted = [m for m in self.active if m.ns == ns]
            for mig in aborted:
                self.active.release(mig)
                forget_migration(self.cluster, mig)
                log_move(self.cluster, "moveChunk.error", mig, {}, by=mig.donor)
                mig.error = error
            self._cond.notify_all()
            return len(aborted)

    @property
    def copy_rate(self) -> float:
        """Bytes per simulated second of a shard without a rate of its own."""
        return self.costs.copy_rate

    @copy_rate.setter
    def copy_rate(self, rate: float) -> None:
        self.costs.copy_rate = rate

    def migration_cost(
        self,
        donor: str,
        recipient: str,
        nbytes: int,
        docs: int,
        wait_for_delete: bool = False,
        secondary_throttle: bool = False,
    ) -> MigrationCost:
        """The steps and length of migrating `nbytes` (`docs` documents) donor -> recipient."""
        return self.costs.migration(
            donor,
            recipient,
            nbytes,
            docs,
            wait_for_delete=wait_for_delete,
            secondary_throttle=secondary_throttle,
        )

    def _end_round(self) -> None:
        result, started = self._round, self._round_started
        self._round, self._round_started = None, None
        self.in_round = False
        self.num_rounds += 1  # every round, skipped ones included (reference §3.2)
        if result is not None and result.skipped is None and started is not None:
            elapsed = self.cluster.clock.now() - started
            details: dict[str, Any] = {
                "executionTimeMillis": int(elapsed.total_seconds() * 1000),
                "errorOccurred": False,
                "candidateChunks": len(result.migrations) + len(result.failures),
                "chunksMoved": len(result.migrations),
            }
            self.cluster.log_action("balancer.round", details)
        self._cond.notify_all()

    def split_chunk(self, ns: str, i: int, points: list[Any]) -> list[int]:
        """Split chunk i of ns at `points`, logging as the config server does."""
        return rounds.split_chunk(self.cluster, ns, i, points)

    # ------------------------------------------------------------------ waiting
    def wait_for(self, done: Callable[[], bool], deadline: float | None) -> bool:
        """Wait (releasing the sandbox lock) until `done()`; False if `deadline` passes.

        The sandbox clock is re-read while waiting, so a test or the timer advancing it
        completes migrations and wakes the waiter.
        """
        with self._cond:
            self.waiters += 1
            try:
                return self._wait(done, deadline)
            finally:
                self.waiters -= 1

    def block_until(self, instant: dt.datetime, deadline: float | None = None) -> bool:
        """Block the calling command until the sandbox clock reaches `instant` (False if the
        real `deadline` passes first). On a virtual clock the wait itself advances time."""
        clock = self.cluster.clock
        with self._cond:
            self._alarms.append(instant)
            try:
                return self.wait_for(lambda: clock.now() >= instant, deadline)
            finally:
                self._alarms.remove(instant)

    def sleep_until(self, instant: dt.datetime, stop: Callable[[], bool]) -> None:
        """Like `block_until` without a deadline, ended early by `stop()` (an abort); a
        long-running coordinator (resharding) sleeps from one phase instant to the next."""
        clock = self.cluster.clock
        with self._cond:
            self._alarms.append(instant)
            try:
                self.wait_for(lambda: stop() or clock.now() >= instant, None)
            finally:
                self._alarms.remove(instant)

    def wake(self) -> None:
        """Wake every waiter now (its condition changed: an abort, a commit request)."""
        with self._cond:
            self._cond.notify_all()

    def _wait(self, done: Callable[[], bool], deadline: float | None) -> bool:
        clock = self.cluster.clock
        with self._cond:
            # On a virtual clock a command's time limit (maxTimeMS) runs in simulated time
            # too: the clock jumps no further than the deadline, which then expires.
            sim_deadline = None
            if clock.frozen and deadline is not None:
                sim_deadline = clock.now() + dt.timedelta(seconds=deadline - time.monotonic())
            while not done():
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return False
                if sim_deadline is not None and clock.now() >= sim_deadline:
                    return False
                poll = VIRTUAL_QUIET_SECONDS if clock.frozen else self._real_poll()
                wait = poll if remaining is None else min(remaining, poll)
                self._cond.wait(wait)
                if clock.frozen and self._may_jump():
                    self._jump_to_next_due(sim_deadline)
                self.poll()
            return True

    def _real_poll(self) -> float:
        """Real seconds until the next due instant (a scaled clock), within 1-50 ms, so a
        waiter wakes when its migration commits, not at the next poll."""
        clock = self.cluster.clock
        now = clock.now()
        due = [m.due for m in self.active] + self._alarms
        if not due:
            return _POLL_SECONDS
        ahead = (min(due) - now).total_seconds()
        return min(_POLL_SECONDS, max(0.001, clock.real_seconds(ahead)))

    def _may_jump(self) -> bool:
        clock = self.cluster.clock
        if self.followups == 0:
            return clock.quiet_for(VIRTUAL_QUIET_SECONDS)
        return clock.quiet_for(VIRTUAL_FOLLOWUP_SECONDS)

    def command_arrived(self) -> None:
        """Any command from a client: it is acting (and may be the awaited follow-up)."""
        self.followups = max(0, self.followups - 1)
        self.cluster.clock.note_activity()

    def manual_move_answered(self) -> None:
        self.followups += 1
        self.cluster.clock.note_activity()

    def _jump_to_next_due(self, limit: dt.datetime | None) -> None:
        """Virtual clock, everyone quiet: time moves to the next instant something is due
        (a commit, a blocked command's instant, or this waiter's own deadline)."""
        now = self.cluster.clock.now()
        due = [m.due for m in self.active] + self._alarms + ([limit] if limit else [])
        later = [d for d in due if d > now]
        if later:
            self.cluster.clock.jump_to(min(later))  # not while a test or watcher holds it

    def join_current_round(self, deadline: float | None) -> bool:
        """`Balancer::joinCurrentRound`: until no round runs or the round counter moved."""
        start = self.num_rounds
        return self.wait_for(lambda: not self.in_round or self.num_rounds != start, deadline)

    # ------------------------------------------------------------------ timer
    def start(self, interval_s: float = 1.0) -> None:
        """Run rounds on a thread every `interval_s` simulated seconds (for `zonectl
        sandbox`): real seconds / the clock's time scale; a virtual clock is advanced by
        `interval_s` at each tick of `interval_s` real seconds."""
        if self._timer is not None:
            return
        self._timer_stop.clear()
        self._timer = threading.Thread(
            target=self._timer_loop, args=(interval_s,), name="sandbox-balancer", daemon=True
        )
        self._timer.start()

    def stop(self) -> None:
        thread, self._timer = self._timer, None
        if thread is not None:
            self._timer_stop.set()
            thread.join()

    def _timer_loop(self, interval_s: float) -> None:
        clock = self.cluster.clock
        real = interval_s if clock.frozen else clock.real_seconds(interval_s)
        while not self._timer_stop.wait(real):
            with self._cond:
                if clock.frozen:  # a held clock stays (Clock.held)
                    clock.jump_to(clock.now() + dt.timedelta(seconds=interval_s))
                self.poll()
                if self._round is None:
                    self.run_round()

    # ------------------------------------------------------------------ reports
    def report(self) -> dict[str, Any]:
        """`Balancer::report`, after a settings refresh whose error is ignored (§3.2)."""
        with self._cond:
            self.poll()
            with contextlib.suppress(CommandError):
                self.reload_settings()
            doc: dict[str, Any] = {
                "mode": self.settings.mode,
                "inBalancerRound": self.in_round,
                "numBalancerRounds": self.num_rounds,
            }
            if self.cluster.version.balancer_status_term:
                doc["term"] = self.term
            return doc
