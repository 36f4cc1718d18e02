"""The Dispatcher merges each donor's presorted moves instead of sorting every pending move
on every call (a forecast of 2,000 moves spent seconds there). Its picks must be exactly
those of the rule it implements, written here the plain way: every pending chunk move
sorted by (the donor's work, largest first, namespace, index), busy donors skipped, the
first with a recipient started. Generated queues, run to the end with random completions."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.forecast.eager import CHUNK, COLLECTION, Dispatcher, PendingMove, Started

SHARDS = ("a", "b", "c", "d", "e")


class PlainRule(Dispatcher):
    """The rule as a full sort per call: the reference the fast merge must agree with."""

    def next_moves(self) -> list[Started]:
        started = self._next_collection()
        migrating = sum(r.move.kind == CHUNK for r in self.running)
        chunks = [m for m in self.pending if m.kind == CHUNK]
        order = sorted(
            chunks, key=lambda m: (-self.work.get(m.donor, 0.0), -m.bytes, m.ns, m.index)
        )
        for move in order:
            if migrating >= self.parallel:
                break
            if move.donor in self.busy:
                continue
            to = self._recipient(move)
            if to is None:
                continue
            s = Started(move, to)
            del self._pending[id(move)]
            self._chunks_left -= 1
            self._count(move, -1)
            self.running.append(s)
            self.busy |= {move.donor, to}
            loads = self.loads.setdefault(move.ns, {})
            loads[to] = loads.get(to, 0) + move.bytes
            loads[move.donor] = loads.get(move.donor, 0) - move.bytes
            started.append(s)
            migrating += 1
        return started


move_st = st.builds(
    lambda ns, donor, holders, size, kind: (ns, donor, tuple(sorted(holders)), size, kind),
    st.sampled_from(["db.a", "db.b", "db.c"]),
    st.sampled_from(SHARDS),
    st.sets(st.sampled_from(SHARDS), min_size=1, max_size=3),
    st.sampled_from([1, 2, 3, 5, 8]),
    st.sampled_from([CHUNK] * 9 + [COLLECTION]),
)


def _picks(cls: type[Dispatcher], specs: list[tuple[str, str, tuple[str, ...], int, str]],
           parallel: int, seed: int) -> list[tuple[str, int, str]]:  # fmt: skip
    moves = [
        PendingMove(ns, i, donor, holders, size, kind=kind)
        for i, (ns, donor, holders, size, kind) in enumerate(specs)
    ]
    loads = {ns: {s: 4 for s in SHARDS} for ns in ("db.a", "db.b", "db.c")}
    dispatcher = cls(moves, loads, parallel)
    rng = random.Random(seed)
    picks: list[tuple[str, int, str]] = []
    while not dispatcher.finished:
        started = dispatcher.next_moves()
        picks += [(s.move.ns, s.move.index, s.to) for s in started]
        if not dispatcher.running:
            break  # nothing can start: the rest has no shard to go to
        dispatcher.done(rng.choice(dispatcher.running), ok=rng.random() > 0.1)
    return picks


@settings(max_examples=150, deadline=None)
@given(
    specs=st.lists(move_st, max_size=40),
    parallel=st.integers(min_value=1, max_value=4),
    seed=st.integers(min_value=0, max_value=1000),
)
def test_the_merged_queues_pick_what_a_full_sort_picks(
    specs: list[tuple[str, str, tuple[str, ...], int, str]], parallel: int, seed: int
) -> None:
    assert _picks(Dispatcher, specs, parallel, seed) == _picks(PlainRule, specs, parallel, seed)
