"""A cluster whose run ended just before the Ctrl-C was seen keeps its own outcome: it is
collected, not dropped (the fleet summary then called it skipped, as if never started)."""

from __future__ import annotations

import concurrent.futures
import threading

from zonectl.apply.interrupt import Stop
from zonectl.cli.fleet.interrupt import wind_down


def test_a_run_that_ended_before_the_interrupt_is_collected_and_the_others_waited_for() -> None:
    release = threading.Event()
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        ended = concurrent.futures.Future[str]()
        ended.set_result("c0: ok")  # done, but not yet collected by as_completed
        running = pool.submit(lambda: release.wait(5) and "c1: interrupted")
        queued = pool.submit(lambda: "c2: ran")  # the one worker is busy: never starts
        collected: list[str] = []
        timer = threading.Timer(0.3, release.set)
        timer.start()
        wind_down(
            {ended: "c0", running: "c1", queued: "c2"},
            {name: Stop() for name in ("c0", "c1", "c2")},
            lambda future: collected.append(future.result()),
        )
        timer.join()
    assert sorted(collected) == ["c0: ok", "c1: interrupted"]
    assert queued.cancelled()
