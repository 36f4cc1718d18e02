"""The learner on changelog entries as a server writes them, and as it should never trust
them: aborted, failed, odd or absurd entries are ignored and counted, outliers do not move
the fit, a slow shard is found, clock skew is tolerated and reported, too little history
teaches nothing, and moveCollection runs are timed from the resharding transitions."""

from __future__ import annotations

import datetime as dt
import math
import random
from typing import Any

import pytest

from zonectl.forecast.balancer import NamespaceChunks
from zonectl.forecast.learn import MIN_SAMPLES, Learned, learn
from zonectl.forecast.report import LEARNED, Assumptions, make_forecast
from zonectl.render.forecast import describe_cost

MIB = 1024 * 1024
NOW = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)
SHARDS = ["a", "b", "c", "d"]


def migration(
    n: int, donor: str, to: str, nbytes: int, seconds: float, *, note: str = "success"
) -> list[dict[str, Any]]:
    """The .commit and .from entries of one migration ending `n` minutes before NOW."""
    end = NOW - dt.timedelta(minutes=n)
    bounds = {"min": {"x": n}, "max": {"x": n + 1}}
    ms = round(seconds * 1000) if math.isfinite(seconds) else seconds  # a NaN stays one
    steps = {f"step {i} of 6": 0 for i in range(1, 7)} | {"step 4 of 6": ms}
    counts = {"cloned": nbytes // 1024, "clonedBytes": nbytes, "catchup": 0, "steady": 0}
    base = {"ns": "app.c", "time": end}
    return [
        {**base, "what": "moveChunk.commit",
         "details": {**bounds, "from": donor, "to": to, "counts": counts}},
        {**base, "what": "moveChunk.from",
         "details": {**steps, **bounds, "to": to, "from": donor, "note": note}},
    ]  # fmt: skip


def history(
    count: int, *, slow: str | None = None, seed: int = 1, jitter: float = 0.05
) -> list[dict[str, Any]]:
    """`count` migrations: 0.8 s fixed + bytes at 20 MiB/s, 3x slower when `slow` takes
    part; sizes 4-100 MiB, jittered."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    for n in range(count):
        donor, to = rng.sample(SHARDS, 2)
        nbytes = rng.randint(4, 100) * MIB
        rate = 20 * MIB / (3 if slow in (donor, to) else 1)
        out += migration(
            n + 1, donor, to, nbytes, (0.8 + nbytes / rate) * rng.uniform(1 - jitter, 1 + jitter)
        )
    return out


def test_the_fixed_part_and_the_rate_are_learned() -> None:
    learned = learn(history(60), NOW, 64 * MIB)
    assert learned.samples == 60 and not learned.ignored
    assert learned.model is not None
    assert learned.model.fixed_s == pytest.approx(0.8, abs=0.25)
    assert learned.model.rate == pytest.approx(20 * MIB, rel=0.08)
    assert learned.newest == NOW - dt.timedelta(minutes=1)


def test_a_slow_shard_is_found_and_sets_the_pace_of_its_migrations() -> None:
    learned = learn(history(120, slow="d"), NOW, 64 * MIB)
    model = learned.model
    assert model is not None
    assert model.shard_rates["d"] == pytest.approx(20 * MIB / 3, rel=0.15)
    for shard in "abc":
        assert model.shard_rates[shard] == pytest.approx(20 * MIB, rel=0.15)
    assert model.seconds("a", "d", 60 * MIB) > 2.5 * (model.seconds("a", "b", 60 * MIB) - 1)


def test_wild_outliers_do_not_move_the_fit() -> None:
    wild = []
    for n in range(8):  # a tenth of the history took 20x as long (a stalled secondary)
        wild += migration(200 + n, "a", "b", 50 * MIB, 50.0)
    learned = learn(history(72) + wild, NOW, 64 * MIB)
    assert learned.model is not None
    assert learned.model.rate == pytest.approx(20 * MIB, rel=0.1)


def test_aborted_failed_odd_and_absurd_entries_are_ignored_and_counted() -> None:
    good = history(10)
    bad = [
        *migration(100, "a", "b", 10 * MIB, 2.0, note="aborted"),
        {"what": "moveChunk.error", "ns": "app.c", "time": NOW, "details": {}},
        *migration(101, "a", "b", 10 * MIB, -3.0),  # a negative duration
        *migration(102, "a", "b", 10 * MIB, 40 * 3600.0),  # 40 hours
        {"what": "moveChunk.from", "ns": "app.c", "time": NOW, "details": None},
        *migration(104, "a", "b", 10 * MIB, float("nan")),
        {"what": "moveChunk.from", "ns": "app.c", "details": {"note": "success"}},
    ]
    commitless = migration(103, "a", "b", 10 * MIB, 2.0)[1:]  # .from without its .commit
    learned = learn(good + bad + commitless, NOW, 64 * MIB)
    assert learned.samples == 10
    assert learned.ignored == {
        "aborted": 1,
        "failed": 1,
        "absurd duration or size": 2,
        "missing fields": 3,
        "no commit counts": 1,
    }
    text = describe_cost(_forecast(learned))
    assert text.startswith("learned from 10 migrations in config.changelog")
    assert "ignored 8 entries (1 aborted, 2 absurd duration or size, 1 failed" in text


def test_too_little_history_teaches_nothing_and_the_plan_says_so() -> None:
    learned = learn(history(MIN_SAMPLES - 1), NOW, 64 * MIB)
    assert learned.model is None and learned.samples == MIN_SAMPLES - 1
    text = describe_cost(_forecast(learned))
    assert text.startswith("assumed 1.0 s fixed + bytes at 64.0 MiB/s per migration")
    assert f"{MIN_SAMPLES - 1} migrations in config.changelog" in text
    assert f"{MIN_SAMPLES} needed" in text and "apply --migrate" in text


def test_clock_skew_is_tolerated_and_reported() -> None:
    behind = NOW - dt.timedelta(minutes=10)  # this host's clock is 10 minutes behind
    learned = learn(history(30), behind, 64 * MIB)
    assert learned.model is not None and learned.samples == 30
    assert learned.skew_s == pytest.approx(540.0)
    assert "dated 9m00s after now (clock skew" in describe_cost(_forecast(learned))


def test_move_collection_runs_are_timed_from_their_resharding_transitions() -> None:
    def run(uuid: str, start: dt.datetime, minutes: float, last: str) -> list[dict[str, Any]]:
        states = ["initializing", "preparing-to-donate", "cloning", "applying", last]
        step = dt.timedelta(minutes=minutes / (len(states) - 1))
        return [
            {"what": "resharding.coordinator.transition", "ns": "app.u", "time": start + i * step,
             "details": {"newState": s, "oldState": "x", "reshardingUUID": uuid}}
            for i, s in enumerate(states)
        ]  # fmt: skip

    t = NOW - dt.timedelta(hours=3)
    entries = run("u1", t, 6, "done") + run("u2", t, 10, "done") + run("u3", t, 2, "aborting")
    learned = learn(entries, NOW, 64 * MIB)
    assert learned.move_collections == 2
    assert learned.move_collection_s == pytest.approx(8 * 60)


def _forecast(learned: Learned) -> Any:
    from zonectl.forecast.learn import choose_model

    model, source = choose_model(learned, None, 64 * MIB)
    zones = {"a": frozenset({"z"}), "b": frozenset()}
    c = NamespaceChunks("app.c", ["b"], [MIB], ["z"])
    a = Assumptions(model.rate, 2, model=model, source=source, learned=learned)
    f = make_forecast([c], zones, a, NOW)
    assert (source == LEARNED) == (learned.model is not None)
    return f
