"""Ctrl-C in a fleet run: the main thread (the only one Python signals) turns SIGINT or
SIGTERM into every running cluster's `Stop`, skips the clusters not yet started, waits for
the running ones to unwind as the single-cluster command does, and answers each further
Ctrl-C with what is still being restored, and where, instead of a traceback."""

from __future__ import annotations

import concurrent.futures
import contextlib
import signal
import threading
from collections.abc import Callable, Iterator, Mapping
from types import FrameType
from typing import Any

from zonectl.apply.interrupt import Stop
from zonectl.apply.reach import TERMINATING
from zonectl.cli.error_boundary import stderr


@contextlib.contextmanager
def signals_raise() -> Iterator[None]:
    """SIGTERM as SIGINT (a supervisor's stop deserves the same clean-up), on the main
    thread only; the handlers before are put back after."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGTERM:
            TERMINATING.set()  # running moves get TERM_GRACE_S, not their end
        raise KeyboardInterrupt(signal.Signals(signum).name)

    previous = {s: signal.signal(s, handler) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def wind_down(
    futures: Mapping[concurrent.futures.Future[Any], str],
    stops: Mapping[str, Stop],
    on_done: Callable[[concurrent.futures.Future[Any]], None],
) -> None:
    """Stop every cluster, cancel those not started, and wait for the others' clean-up."""
    for stop in stops.values():
        stop.requested.set()
    running = []
    for future in futures:
        if future.cancel():
            continue  # never started: reported as skipped
        if future.done():
            on_done(future)  # ended before the interrupt was seen: its outcome, as it is
        else:
            running.append(future)
    if running:
        names = ", ".join(sorted(futures[f] for f in running))
        stderr.print(
            f"zonectl: interrupted: waiting for {names} to stop (no new step or move starts; "
            "running moves end, then what was paused is restored and the lease released)",
            markup=False,
        )
    pending = set(running)
    while pending:
        try:
            done, pending = concurrent.futures.wait(pending, timeout=0.2)
        except KeyboardInterrupt:
            explain({futures[f]: stops[futures[f]] for f in pending if not f.done()})
            continue
        for future in done:
            on_done(future)


def explain(running: Mapping[str, Stop]) -> None:
    """A further Ctrl-C: what each cluster is still restoring, and how to finish it by hand
    if this process is killed before it is done."""
    stderr.print("zonectl: still cleaning up; Ctrl-C again changes nothing:", markup=False)
    for name in sorted(running):
        held = running[name].holding()
        what = "; ".join(held) if held else "its last step"
        stderr.print(
            f"  {name}: waiting for its running moves, then restoring: {what}; "
            f"if this process is killed, run `zonectl recover --cluster {name}`",
            markup=False,
        )
