"""Learn a cluster's migration speed from its config.changelog: the fixed seconds of one
migration and the copy rate per shard (and per donor/recipient pair with enough history),
with robust estimators (medians, Theil-Sen), ignoring aborted, failed and odd entries and
counting them. Pure: the entries and `now` are passed in.

A migration's length is its donor's `moveChunk.from` step timings summed (MoveTimingHelper,
mongo:src/mongo/db/s/move_timing_helper.cpp: "step N of 6" in ms, `note: "success"`), its
bytes and documents the `counts` of the matching `moveChunk.commit`
(migration_source_manager.cpp). moveCollection runs are resharding operations: their
`resharding.coordinator.transition` entries give each run's length (first to "done").
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from zonectl.forecast.reshard_learn import ReshardPhases, learn_phases
from zonectl.forecast.timing import ASSUMED_FIXED_S, CostModel

MIN_SAMPLES = 5  # fewer successful migrations than this: nothing is learned
MIN_SHARD_SAMPLES = 3  # a shard's own rate needs this many of its migrations
MIN_PAIR_SAMPLES = 8  # a donor/recipient pair's own rate needs this many
MAX_FIT_SAMPLES = 400  # the newest ones
MAX_SECONDS = 6 * 3600.0  # a chunk migration longer than this is not believed
SKEW_TOLERANCE_S = 5.0  # entries dated later than now by more than this are reported


@dataclass(frozen=True)
class Sample:
    """One successful migration from the changelog."""

    ns: str
    donor: str
    recipient: str
    bytes: int
    docs: int
    seconds: float
    time: dt.datetime


@dataclass(frozen=True)
class Learned:
    """What the history taught (`model` is None when it taught too little)."""

    model: CostModel | None
    samples: int  # successful migrations used
    ignored: Mapping[str, int] = field(default_factory=dict)  # reason -> entries
    newest: dt.datetime | None = None
    oldest: dt.datetime | None = None
    skew_s: float = 0.0  # the newest entry's time minus now, when beyond tolerance
    move_collection_s: float | None = None  # median length of a moveCollection/resharding
    move_collections: int = 0
    reshard_phases: ReshardPhases = field(default_factory=ReshardPhases)  # else assumed
    error: str = ""  # why the history could not be read (e.g. a missing privilege)

    @property
    def ignored_total(self) -> int:
        return sum(self.ignored.values())


def _number(value: Any) -> float | None:
    """A finite int or float (BSON int32/int64/double), else None."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def _key(e: Mapping[str, Any]) -> tuple[str, str, str, str] | None:
    d = e.get("details")
    if not isinstance(d, Mapping):
        return None
    parts = (e.get("ns"), repr(d.get("min")), d.get("from"), d.get("to"))
    if not all(isinstance(p, str) and p for p in parts):
        return None
    return parts  # type: ignore[return-value]


def collect_samples(
    entries: Iterable[Mapping[str, Any]],
) -> tuple[list[Sample], dict[str, int]]:
    """Successful migrations (a success `moveChunk.from` and its `moveChunk.commit`), and
    the entries ignored, by reason."""
    ignored: dict[str, int] = {}

    def skip(reason: str) -> None:
        ignored[reason] = ignored.get(reason, 0) + 1

    commits: dict[tuple[str, str, str, str], list[Mapping[str, Any]]] = {}
    froms: list[Mapping[str, Any]] = []
    for e in entries:
        what = e.get("what")
        if what == "moveChunk.commit":
            key = _key(e)
            if key is not None:
                commits.setdefault(key, []).append(e)
        elif what == "moveChunk.from":
            froms.append(e)
        elif what == "moveChunk.error":
            skip("failed")
    samples: list[Sample] = []
    for e in froms:
        d = e.get("details")
        key = _key(e)
        when = e.get("time")
        if key is None or not isinstance(d, Mapping) or not isinstance(when, dt.datetime):
            skip("missing fields")
            continue
        if d.get("note") != "success":
            skip("aborted")
            continue
        steps = [_number(v) for k, v in d.items() if isinstance(k, str) and k.startswith("step ")]
        if not steps or any(s is None for s in steps):
            skip("missing fields")
            continue
        seconds = sum(s for s in steps if s is not None) / 1000
        commit = _nearest(commits.get(key, []), when)
        counts = commit.get("details", {}).get("counts") if commit is not None else None
        nbytes = _number(counts.get("clonedBytes")) if isinstance(counts, Mapping) else None
        docs = _number(counts.get("cloned")) if isinstance(counts, Mapping) else None
        if nbytes is None:
            skip("no commit counts")
            continue
        if seconds <= 0 or seconds > MAX_SECONDS or nbytes < 0 or any(s < 0 for s in steps if s):
            skip("absurd duration or size")
            continue
        samples.append(
            Sample(key[0], key[2], key[3], int(nbytes), int(docs or 0), seconds, _utc(when))
        )
    return samples, ignored


def _utc(t: dt.datetime) -> dt.datetime:
    return t if t.tzinfo is not None else t.replace(tzinfo=dt.UTC)


def _nearest(commits: list[Mapping[str, Any]], when: dt.datetime) -> Mapping[str, Any] | None:
    """The commit logged closest before (or at) the .from entry's time."""
    best: Mapping[str, Any] | None = None
    for c in commits:
        t = c.get("time")
        later = best is None or (isinstance(t, dt.datetime) and _utc(t) > _utc(best["time"]))
        if isinstance(t, dt.datetime) and _utc(t) <= _utc(when) and later:
            best = c
    return best


def theil_sen(points: list[tuple[float, float]]) -> tuple[float, float]:
    """Robust line (slope, intercept): the median of pairwise slopes, then the median
    intercept; a quarter of the points can be wild without moving it much. Past 60 points,
    Theil's incomplete method (each point against the one half the sample further in x),
    which is as robust and linear, not quadratic."""
    if len(points) <= 60:
        pairs = [(p, q) for i, p in enumerate(points) for q in points[i + 1 :]]
    else:
        ordered = sorted(points)
        half = len(ordered) // 2
        pairs = list(zip(ordered[:half], ordered[half:], strict=False))
    slopes = [(y2 - y1) / (x2 - x1) for (x1, y1), (x2, y2) in pairs if x2 != x1]
    slope = statistics.median(slopes) if slopes else 0.0
    intercept = statistics.median(y - slope * x for x, y in points)
    return slope, intercept


def fit(samples: list[Sample], default_rate: float) -> CostModel | None:
    """The fixed seconds and the rates, or None with too few samples."""
    if len(samples) < MIN_SAMPLES:
        return None
    recent = sorted(samples, key=lambda s: s.time)[-MAX_FIT_SAMPLES:]
    sizes = sorted(s.bytes for s in recent)
    varied = sizes[len(sizes) * 9 // 10] >= 1.5 * max(sizes[len(sizes) // 10], 1)
    if not varied:
        # Chunks of one size cannot tell the fixed part from the copy: any split predicts
        # them alike. Keep the assumed fixed part (at most half a migration).
        fixed = min(ASSUMED_FIXED_S, 0.5 * statistics.median(s.seconds for s in recent))
    else:
        fixed = max(0.0, theil_sen([(float(s.bytes), s.seconds) for s in recent])[1])
        # Migrations at different rates (a slow shard) bend one line through all of them:
        # refit with slopes taken only between migrations of like pace.
        for _ in range(2):
            fixed = _fixed_by_pace(recent, _rates(recent, fixed), fixed)
    rates = _rates(recent, fixed)
    if not rates:
        return None
    by_pair: dict[tuple[str, str], list[float]] = {}
    for s, r in rates:
        by_pair.setdefault((s.donor, s.recipient), []).append(r)
    pair_rates = {p: statistics.median(v) for p, v in by_pair.items() if len(v) >= MIN_PAIR_SAMPLES}
    return CostModel(
        rate=statistics.median(r for _, r in rates) or default_rate,
        fixed_s=fixed,
        shard_rates=_shard_rates(rates),
        pair_rates=pair_rates,
    )


def _rates(recent: list[Sample], fixed: float) -> list[tuple[Sample, float]]:
    return [(s, s.bytes / (s.seconds - fixed)) for s in recent if s.seconds > fixed and s.bytes > 0]


def _fixed_by_pace(recent: list[Sample], rates: list[tuple[Sample, float]], fixed: float) -> float:
    """The intercept when each migration's slope is its pace class's: classes are the
    pair's rate (the slower shard's, as estimated) in steps of 25 %."""
    shard = _shard_rates(rates, min_samples=1)
    classes: dict[int, list[tuple[float, float]]] = {}
    for s in recent:
        known = [shard[x] for x in (s.donor, s.recipient) if x in shard]
        if not known:
            continue
        c = round(math.log(min(known)) / math.log(1.25))
        classes.setdefault(c, []).append((float(s.bytes), s.seconds))
    offsets = []
    for points in classes.values():
        slope, _ = theil_sen(points)
        if slope > 0 and len(points) >= 3:
            offsets += [y - slope * x for x, y in points]
    return max(0.0, statistics.median(offsets)) if offsets else fixed


def _shard_rates(
    rates: list[tuple[Sample, float]], min_samples: int = MIN_SHARD_SAMPLES
) -> dict[str, float]:
    """Each shard's own rate. The slower end sets a migration's pace, so a shard is at least
    as fast as its migrations with its fastest partners: per partner the median rate, then
    the median of the partners within 20 % of the fastest (a slow partner's migrations
    say nothing of this shard)."""
    seen: dict[str, dict[str, list[float]]] = {}
    for s, r in rates:
        seen.setdefault(s.donor, {}).setdefault(s.recipient, []).append(r)
        seen.setdefault(s.recipient, {}).setdefault(s.donor, []).append(r)
    out = {}
    for shard, partners in seen.items():
        if sum(len(v) for v in partners.values()) < min_samples:
            continue
        medians = [statistics.median(v) for v in partners.values()]
        top = max(medians)
        out[shard] = statistics.median(m for m in medians if m >= 0.8 * top)
    return out


def move_collection_lengths(entries: Iterable[Mapping[str, Any]]) -> list[float]:
    """Seconds from the first transition to "done" of each resharding run that finished."""
    runs: dict[str, list[tuple[dt.datetime, str]]] = {}
    for e in entries:
        d = e.get("details")
        when = e.get("time")
        if e.get("what") != "resharding.coordinator.transition" or not isinstance(d, Mapping):
            continue
        run, state = d.get("reshardingUUID"), d.get("newState")
        if isinstance(run, str) and isinstance(state, str) and isinstance(when, dt.datetime):
            runs.setdefault(run, []).append((_utc(when), state))
    out = []
    for events in runs.values():
        events.sort()
        states = [s for _, s in events]
        if "done" in states and "aborting" not in states:
            length = (events[-1][0] - events[0][0]).total_seconds()
            if 0 < length <= 30 * 86400:
                out.append(length)
    return out


def learn(entries: Iterable[Mapping[str, Any]], now: dt.datetime, default_rate: float) -> Learned:
    """Everything the changelog `entries` teach, as of `now`."""
    entries = list(entries)
    samples, ignored = collect_samples(entries)
    times = [s.time for s in samples]
    dated = [_utc(t) for e in entries if isinstance(t := e.get("time"), dt.datetime)]
    ahead = (max(dated) - _utc(now)).total_seconds() if dated else 0.0
    lengths = move_collection_lengths(entries)
    return Learned(
        model=fit(samples, default_rate),
        samples=len(samples),
        ignored=ignored,
        newest=max(times) if times else None,
        oldest=min(times) if times else None,
        skew_s=ahead if ahead > SKEW_TOLERANCE_S else 0.0,
        move_collection_s=statistics.median(lengths) if lengths else None,
        move_collections=len(lengths),
        reshard_phases=learn_phases(entries),
    )


def choose_model(
    learned: Learned, flag_rate: float | None, default_rate: float
) -> tuple[CostModel, str]:
    """The cost model the forecast uses, and its source: `--copy-rate` wins (with the
    learned fixed part when there is one), then what was learned, else an assumption."""
    moves = learned.move_collection_s
    if flag_rate is not None:
        fixed = learned.model.fixed_s if learned.model is not None else ASSUMED_FIXED_S
        return CostModel(flag_rate, fixed, move_collection_s=moves), "--copy-rate"
    if learned.model is not None:
        return dataclasses.replace(learned.model, move_collection_s=moves), "learned"
    return CostModel(rate=default_rate, move_collection_s=moves), "assumed"
