"""The forecast's cost of one migration: a fixed part plus its bytes at the rate of its donor
and recipient. The numbers come from the cluster's own history (`learn.py`) or are assumed;
zonectl never reads them off the sandbox (its costs are its own)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ASSUMED_FIXED_S = 1.0  # per migration when nothing was learned: clone setup, commit, ...
# moveCollection (8.0) is a resharding: at least reshardingMinimumOperationDurationMillis
# (manual, moveCollection: "a 5 minute minimum duration"), then its copy.
MOVE_COLLECTION_MIN_S = 300.0


@dataclass(frozen=True)
class CostModel:
    """`seconds(donor, recipient, nbytes)`: `fixed_s` + bytes at the pair's rate if learned,
    else the slower of the two shards' rates, else `rate`."""

    rate: float  # bytes per second of one migration, where nothing finer is known
    fixed_s: float = ASSUMED_FIXED_S
    shard_rates: Mapping[str, float] = field(default_factory=dict)
    pair_rates: Mapping[tuple[str, str], float] = field(default_factory=dict)
    move_collection_s: float | None = None  # a learned moveCollection's median length

    def rate_of(self, donor: str, recipient: str) -> float:
        pair = self.pair_rates.get((donor, recipient))
        if pair is not None:
            return pair
        if not self.shard_rates:
            return self.rate
        known = [self.shard_rates[s] for s in (donor, recipient) if s in self.shard_rates]
        return min(known) if known else self.rate

    def seconds(self, donor: str, recipient: str, nbytes: int) -> float:
        return self.fixed_s + nbytes / self.rate_of(donor, recipient)

    def move_collection_seconds(self, donor: str, recipient: str, nbytes: int) -> float:
        """A moveCollection: at least the resharding minimum, then the bytes at the pair's
        rate; at least the learned median length when the history has some."""
        floor = max(MOVE_COLLECTION_MIN_S, self.move_collection_s or 0.0)
        return max(floor, MOVE_COLLECTION_MIN_S + nbytes / self.rate_of(donor, recipient))


def copy_seconds(nbytes: int, bytes_per_s: float, fixed_s: float = ASSUMED_FIXED_S) -> float:
    """A migration of `nbytes` at `bytes_per_s` with the fixed part (no shard is known)."""
    return fixed_s + nbytes / bytes_per_s
