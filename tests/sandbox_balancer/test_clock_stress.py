"""Many commands waiting on the sandbox's virtual clock at once, as `apply --migrate`'s one
queue across namespaces makes them: identical moves that join, moves whose maxTimeMS runs
out, sleepers cancelled midway and sleepers left to their instant. No thread may hang and
every outcome must agree with the others (one migration per chunk, each on its recipient).
"""

from __future__ import annotations

import datetime as dt
import random
import threading
import time
from collections.abc import Callable
from typing import Any

import pytest
from pymongo.errors import OperationFailure

from zonectl.sandbox.clock import Clock

CHUNKS = 4  # on disjoint shard pairs: shard0 -> shard1, shard2 -> shard3, ...
JOINERS = 4  # identical moveChunk commands per chunk: one migrates, the others join
TIMEOUTS = 6  # identical moveChunk commands with a maxTimeMS that runs out
SLEEPERS = 12  # commands blocked until an instant an hour ahead; half are cancelled
LIMIT_S = 60.0  # real seconds for the whole test: a deadlock fails, it never hangs


class Outcomes:
    """What each thread saw, recorded under a lock, plus the clock as each thread read it."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.answers: dict[str, list[Any]] = {}
        self.backwards: list[str] = []

    def add(self, kind: str, value: Any) -> None:
        with self.lock:
            self.answers.setdefault(kind, []).append(value)


def _spawn(threads: list[threading.Thread], target: Callable[[], None]) -> None:
    thread = threading.Thread(target=target, daemon=True)
    threads.append(thread)
    thread.start()


@pytest.mark.parametrize("seed", [1, 2])
def test_joins_cancels_and_timeouts_on_one_clock_neither_hang_nor_disagree(
    make_cluster: Any, seed: int
) -> None:
    rng = random.Random(seed)
    placement = [f"shard{2 * i}" for i in range(CHUNKS)]
    c = make_cluster("7.0", shards=2 * CHUNKS, points=[10, 20, 30], placement=placement)
    chunks = c.chunks()
    clock, balancer = c.sandbox.clock, c.balancer
    seen = Outcomes()
    threads: list[threading.Thread] = []
    cancel = [threading.Event() for _ in range(SLEEPERS)]
    wake_at = clock.now() + dt.timedelta(hours=1)

    def move(i: int, max_ms: int | None = None) -> Callable[[], None]:
        chunk = chunks[i]
        cmd: dict[str, Any] = {"moveChunk": "db.c", "bounds": [chunk["min"], chunk["max"]]}
        cmd["to"] = f"shard{2 * i + 1}"
        if max_ms is not None:
            cmd["maxTimeMS"] = max_ms

        def run() -> None:
            before = clock.now()
            try:
                seen.add("timeout" if max_ms else f"join{i}", c.admin.command(cmd)["ok"])
            except OperationFailure as err:
                seen.add("timeout" if max_ms else f"join{i}", err.code)
            if clock.now() < before:
                seen.backwards.append(f"moveChunk {i}")

        return run

    def sleeper(n: int) -> Callable[[], None]:
        def run() -> None:
            balancer.sleep_until(wake_at, cancel[n].is_set)
            seen.add("cancelled" if cancel[n].is_set() else "woke", clock.now() >= wake_at)

        return run

    with clock.held():  # every command arrives before any migration may commit
        for n in range(SLEEPERS):
            _spawn(threads, sleeper(n))
        for _ in range(JOINERS):
            for i in range(CHUNKS):
                _spawn(threads, move(i))
        expected = SLEEPERS + CHUNKS * JOINERS + 1  # + this test's own wait
        all_in = balancer.wait_for(lambda: balancer.waiters >= expected, time.monotonic() + 30)
        assert all_in, f"only {balancer.waiters - 1} of {expected - 1} commands ever waited"
        for i in range(TIMEOUTS):
            _spawn(threads, move(i % CHUNKS, max_ms=rng.randint(20, 200)))
        for n in rng.sample(range(SLEEPERS), SLEEPERS // 2):
            time.sleep(rng.uniform(0, 0.02))
            cancel[n].set()
            balancer.wake()
        # The timeouts run out in real time while held: all answered before time moves on.
        give_up = time.monotonic() + 30
        while len(seen.answers.get("timeout", [])) < TIMEOUTS and time.monotonic() < give_up:
            time.sleep(0.01)
        assert clock.now() < wake_at and not any(m.due <= clock.now() for m in balancer.active)
    limit = time.monotonic() + LIMIT_S
    for thread in threads:
        thread.join(timeout=max(0.0, limit - time.monotonic()))
    assert not [t for t in threads if t.is_alive()], "threads still waiting: a deadlock"

    answers = seen.answers
    assert seen.backwards == []
    for i in range(CHUNKS):
        assert answers[f"join{i}"] == [1.0] * JOINERS  # one migration, the others joined it
    assert answers["timeout"] == [50] * TIMEOUTS  # MaxTimeMSExpired, the migration went on
    assert answers["cancelled"] == [False] * (SLEEPERS // 2)  # ended before the instant
    assert answers["woke"] == [True] * (SLEEPERS - SLEEPERS // 2)
    assert [ch["shard"] for ch in c.chunks()] == [f"shard{2 * i + 1}" for i in range(CHUNKS)]
    commits = c.client.config.changelog.count_documents({"what": "moveChunk.commit"})
    assert commits == CHUNKS
    assert balancer.waiters == 0 and not list(balancer.active)


def test_a_held_scaled_clock_pauses_and_resumes_where_it_stopped() -> None:
    clock = Clock(scale=1000.0)  # `zonectl sandbox --time-scale 1000`
    with clock.held():
        paused = clock.now()
        time.sleep(0.05)  # 50 simulated seconds, were it running
        assert clock.now() == paused
        clock.advance(dt.timedelta(seconds=5))  # the holder still moves it
        assert clock.now() == paused + dt.timedelta(seconds=5)
    resumed = clock.now()
    assert dt.timedelta(seconds=5) <= resumed - paused < dt.timedelta(seconds=30)
    time.sleep(0.01)
    assert clock.now() > resumed  # running again, 1000x
