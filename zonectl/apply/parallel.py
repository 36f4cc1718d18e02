"""Running eager-migration moves several at a time, every namespace's in one queue: the
Dispatcher (zonectl.forecast.eager) decides, worker threads send (each move blocks until
the cluster committed it; pymongo's MongoClient is thread-safe and gives each thread its
own connection), and the calling thread alone journals, renews the lease, reports progress
and stops on budget or Ctrl-C.

A failed move (ChunkTooBig, a conflict that outlived its retries, a draining or wrong
shard, a moveCollection that did not happen: MoveNotDoneError) is reported by chunk and the
others go on. A connection failure stops new moves, lets the running ones end and is
raised. On Ctrl-C (or a fleet run's stop, `stopped`) no new move starts and the moves
already sent are waited for and journaled, then the interrupt is raised: a migration cannot
be recalled, and an operator who stopped the run must not be told it ended while chunks
are still moving. A second Ctrl-C while waiting stops the wait (the moves still finish on
the cluster, unjournaled); so does a SIGTERM after TERM_GRACE_S, and a cluster that stayed
unreachable (apply/reach.py) at once: those moves are journaled as possibly still running
when the cluster can still be written.
"""

from __future__ import annotations

import contextvars
import queue
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from zonectl.apply.reach import TERM_GRACE_S, TERMINATING, UnreachableError, give_up_reason
from zonectl.apply.safeguards import SIGNALS
from zonectl.errors import ZonectlError
from zonectl.forecast.eager import COLLECTION, Dispatcher, PendingMove, Started
from zonectl.model.keys import format_value
from zonectl.plan.failures import MoveNotDoneError, OpFailedError
from zonectl.plan.op_base import plural

_TICK_S = 0.2  # how often the calling thread wakes to check the budget and Ctrl-C


def chunk_text(move: PendingMove) -> str:
    if move.kind == COLLECTION:
        return f"{move.ns} (moveCollection) on {move.donor or 'its shard'}"
    lo, hi = move.payload if isinstance(move.payload, tuple) else ({}, {})
    return f"{move.ns} [{format_value(lo)}, {format_value(hi)}) on {move.donor}"


@dataclass
class ParallelOutcome:
    moved: int = 0
    bytes_moved: int = 0
    commands: int = 0
    skipped: list[str] = field(default_factory=list)  # e.g. ChunkTooBig: needs --force-jumbo
    failed: list[str] = field(default_factory=list)
    reasons: list[str] = field(default_factory=list)  # distinct server errors of `failed`
    left: list[PendingMove] = field(default_factory=list)  # never started (budget, failure)
    by_ns: dict[str, ParallelOutcome] = field(default_factory=dict)  # the same, per namespace

    def of(self, ns: str) -> ParallelOutcome:
        """The part of the outcome that is `ns`'s (empty if none of its moves was queued)."""
        return self.by_ns.setdefault(ns, ParallelOutcome())

    def tally(self, move: PendingMove, *, moved: bool = False, command: bool = False,
              skipped: str = "", failed: str = "", why: str = "") -> None:  # fmt: skip
        """Count one event of `move` in the total and in its namespace's part."""
        for out in (self, self.of(move.ns)):
            out.reasons.extend([why] if why and why not in out.reasons else [])
            out.commands += command
            out.moved += moved
            out.bytes_moved += move.bytes if moved else 0
            out.skipped.extend([skipped] if skipped else [])
            out.failed.extend([failed] if failed else [])

    def give_up(self, moves: list[PendingMove]) -> None:
        """Moves that will not start (budget, interrupt, failure, no idle recipient)."""
        for m in moves:
            self.left.append(m)
            self.of(m.ns).left.append(m)


@dataclass
class Hooks:
    """What the caller does around each move, all on the calling thread."""

    send: Callable[[PendingMove, str], str]  # runs on a worker: "moved" | "skipped: ..."
    before_start: Callable[[PendingMove, str], None]  # lease check, journal index
    after: Callable[[PendingMove, str, str], None]  # journal step, progress
    budget_over: Callable[[], bool]
    stopped: Callable[[], bool] = lambda: False  # a fleet run's Ctrl-C (apply/interrupt.py)
    waiting: Callable[[int], None] = lambda running: None  # says the wait after a Ctrl-C
    # A running move no longer waited for (SIGTERM's grace over, or the cluster gone).
    abandoned: Callable[[PendingMove, str], None] = lambda move, to: None


def run_parallel(dispatcher: Dispatcher, hooks: Hooks) -> ParallelOutcome:
    return _Queue(dispatcher, hooks).run()


Result = tuple[Started, str | None, BaseException | None]


class _Queue:
    """The calling thread's loop. Its bookkeeping (starting a move, journaling one that
    ended) runs with signals deferred, so a Ctrl-C lands between two ticks, never halfway
    through a move's record: the first one always waits for the running moves."""

    def __init__(self, dispatcher: Dispatcher, hooks: Hooks) -> None:
        self.dispatcher, self.hooks = dispatcher, hooks
        self.out = ParallelOutcome()
        self.results: queue.Queue[Result] = queue.Queue()
        self.fatal: BaseException | None = None
        self.interrupted: KeyboardInterrupt | None = None
        self.term_at: float | None = None  # when the wait for running moves met a SIGTERM
        self.ended = False

    def run(self) -> ParallelOutcome:
        while not self.dispatcher.finished:
            try:
                with SIGNALS.deferred():
                    if not self._tick():
                        break
                got = self.results.get(timeout=_TICK_S)
                with SIGNALS.deferred():
                    self._ended(*got)
            except queue.Empty:
                continue
            except KeyboardInterrupt as first:
                if self.interrupted is not None:
                    raise  # the second: stop waiting
                self._interrupt(first)
        if self.interrupted is not None:
            raise self.interrupted
        if (fatal := self.fatal) is not None:
            if isinstance(fatal, ZonectlError | KeyboardInterrupt):
                raise fatal
            raise ZonectlError(f"a move failed unexpectedly: {fatal!r}") from fatal
        return self.out

    def _interrupt(self, how: KeyboardInterrupt) -> None:
        self.interrupted = how
        self.out.give_up(self.dispatcher.give_up())
        self.hooks.waiting(len(self.dispatcher.running))

    def _work(self, s: Started) -> None:
        try:
            self.results.put((s, self.hooks.send(s.move, s.to), None))
        except BaseException as exc:
            self.results.put((s, None, exc))

    def _tick(self) -> bool:
        """Start what can start; False when the loop ends (nothing running, or the running
        moves are no longer waited for)."""
        d, hooks, out = self.dispatcher, self.hooks, self.out
        if self.ended:
            return False
        if self.fatal is None and (reason := give_up_reason()) is not None:
            self.fatal = UnreachableError(
                f"{plural(len(d.running), 'running move')} not waited for: {reason}",
                hint="when the mongos answers again, run `zonectl recover`, then apply again",
            )
            out.give_up(d.give_up())
        if self.interrupted is None and hooks.stopped():
            self._interrupt(KeyboardInterrupt("stop requested"))
        if self.fatal is None and d.has_pending and hooks.budget_over():
            out.give_up(d.give_up())
        if self.fatal is None and self.interrupted is None:
            for s in d.next_moves():
                hooks.before_start(s.move, s.to)
                out.tally(s.move, command=True)
                # Its own copy of this context: the run's reach (apply/reach.py) and stop.
                run_in = contextvars.copy_context().run
                threading.Thread(target=run_in, args=(self._work, s), daemon=True).start()
        if not d.running:
            out.give_up(d.give_up())  # nothing can start: no idle recipient
            return False
        if self.interrupted is not None and TERMINATING.is_set() and self.term_at is None:
            self.term_at = time.monotonic()
        if (self.fatal is not None and give_up_reason() is not None) or (
            self.term_at is not None and time.monotonic() - self.term_at >= TERM_GRACE_S
        ):
            self.ended = True
            for s in list(d.running):  # they may still run on the cluster
                hooks.abandoned(s.move, s.to)
            return False
        return True

    def _ended(self, s: Started, outcome: str | None, exc: BaseException | None) -> None:
        d, hooks, out = self.dispatcher, self.hooks, self.out
        if exc is None and outcome is not None:
            d.done(s, ok=outcome == "moved")
            if outcome == "moved":
                out.tally(s.move, moved=True)
            else:
                reason = outcome.removeprefix("skipped: ")
                out.tally(s.move, skipped=f"{chunk_text(s.move)}: {reason}")
            hooks.after(s.move, s.to, outcome)
        elif isinstance(exc, OpFailedError | MoveNotDoneError):
            d.done(s, ok=False)
            why = (
                f"{exc.code_name}: {exc.errmsg}"
                if isinstance(exc, OpFailedError)
                else exc.message.removeprefix(f"{s.move.ns}: ")  # the summary names it
            )
            out.tally(s.move, failed=f"{chunk_text(s.move)} -> {s.to}: {why}", why=why)
            hooks.after(s.move, s.to, "failed")
        else:
            d.done(s, ok=False)
            hooks.after(s.move, s.to, "failed")
            if self.fatal is None:
                self.fatal = exc
                out.give_up(d.give_up())
