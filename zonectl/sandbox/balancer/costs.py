"""What one data move costs in the sandbox: the steps MongoDB's migration goes through, each
with its simulated time, so a migration leaves the step timings a real one logs.

A chunk migration is the donor's six steps (`MigrationSourceManager`, mongo:src/mongo/db/s/
migration_source_manager.cpp: 1 start, 2 metadata snapshot and overlapping range-deletion
check, 3 startClone, 4 clone caught up, 5 commit on the recipient (critical section),
6 commit on the config server, plus the range deletion when `_waitForDelete` is set) and,
inside donor steps 3-6, the recipient's eight (`MigrationDestinationManager::_migrateDriver`,
migration_destination_manager.cpp: 1 collection and indexes, 2 overlapping range deletion,
3 range-deletion task persisted, 4 bulk clone, 5 catch-up of writes, 6 steady state until
the commit, 7 session migration joined, 8 critical section released). The bulk clone costs
the bytes at the slower of the two shards' copy rates plus a per-document part; the fixed
steps are guesses (docs/sandbox-fidelity.md). Seeded jitter scales each migration.

zonectl's forecast never sees this module: it learns costs from config.changelog.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Mapping
from dataclasses import dataclass, field

DEFAULT_COPY_RATE = 64 * 1024**2  # bytes per simulated second, per shard
# moveCollection is a resharding: reshardingMinimumOperationDurationMillis (5 minutes) first
# (manual, moveCollection: "moveCollection has a 5 minute minimum duration").
MOVE_COLLECTION_FLOOR = dt.timedelta(minutes=5)

# Fixed recipient steps, seconds (guesses: majority writes and catalog work on a healthy
# replica set take tens to hundreds of milliseconds).
_R1_CREATE = 0.150  # create the collection and its indexes
_R2_OVERLAP = 0.010  # wait for an overlapping range deletion (usually none)
_R3_TASK = 0.050  # persist the range-deletion task, majority
_R5_CATCHUP = 0.050  # _transferMods until caught up, plus a share of the clone (below)
_R5_SHARE = 0.02  # writes that arrived during the clone, replayed at catch-up
_R6_STEADY = 0.050  # steady state until the donor's commit starts
_R7_SESSIONS = 0.010  # session (retryable write) migration joined
_R8_RELEASE = 0.200  # critical section released after the config commit
# Fixed donor steps, seconds (guesses).
_D1_START = 0.010
_D2_SNAPSHOT = 0.040
_D3_COORDINATOR = 0.050  # migration coordinator document, majority (recipient 1-3 too)
_D5_CRITSEC = 0.050  # enter the critical section (recipient 6-7 too)
_D6_COMMIT = 0.250  # _configsvrCommitChunkMigration, majority, and the donor's refresh
_DELETE_PER_DOC = 10e-6  # range deletion with _waitForDelete, seconds per document
# `_secondaryThrottle` on (true or a write concern): the recipient waits for its secondaries
# after each cloned batch (MigrationDestinationManager::_migrateDriver, opReplicatedEnough);
# batches of up to 16 MB (BSONObjMaxUserSize). The wait per batch is a guess.
_CLONE_BATCH_BYTES = 16 * 1024 * 1024
_REPL_WAIT_PER_BATCH = 0.020


@dataclass(frozen=True)
class MigrationCost:
    """One migration's step timings (ms, as `MoveTimingHelper` logs them) and its length."""

    donor_ms: tuple[int, ...]  # "step 1 of 6" ... "step 6 of 6"
    recipient_ms: tuple[int, ...]  # "step 1 of 8" ... "step 8 of 8"

    @property
    def duration(self) -> dt.timedelta:
        return dt.timedelta(milliseconds=sum(self.donor_ms))


@dataclass
class MigrationCosts:
    """The sandbox's migration cost settings (cluster file `balancer:` and `shards:`)."""

    copy_rate: float = float(DEFAULT_COPY_RATE)  # shards without their own rate
    shard_rates: dict[str, float] = field(default_factory=dict)
    # A twin's learned costs (docs/twin.md): a donor/recipient pair's own rate, and the
    # seconds a real migration's fixed part takes beyond these fixed steps (on the commit).
    pair_rates: dict[tuple[str, str], float] = field(default_factory=dict)
    extra_fixed_s: float = 0.0
    per_document_s: float = 0.0
    jitter: float = 0.0  # each migration scaled by a factor in [1 - jitter, 1 + jitter]
    seed: int = 0
    _rng: random.Random = field(default_factory=random.Random, repr=False, compare=False)

    def __post_init__(self) -> None:
        self.reseed(self.seed)

    def reseed(self, seed: int) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def configure(
        self,
        *,
        shard_rates: Mapping[str, float] | None = None,
        per_document_s: float | None = None,
        jitter: float | None = None,
        seed: int | None = None,
        pair_rates: Mapping[tuple[str, str], float] | None = None,
        extra_fixed_s: float | None = None,
    ) -> None:
        if pair_rates is not None:
            self.pair_rates = dict(pair_rates)
        if extra_fixed_s is not None:
            self.extra_fixed_s = extra_fixed_s
        if shard_rates is not None:
            self.shard_rates = dict(shard_rates)
        if per_document_s is not None:
            self.per_document_s = per_document_s
        if jitter is not None:
            self.jitter = jitter
        if seed is not None:
            self.reseed(seed)

    def rate(self, shard: str) -> float:
        return self.shard_rates.get(shard, self.copy_rate)

    def pair_rate(self, donor: str, recipient: str) -> float:
        """The donor reads and the recipient writes: the slower one sets the pace (a twin's
        learned rate for the pair when it has one)."""
        pair = self.pair_rates.get((donor, recipient))
        if pair is not None:
            return pair
        return min(self.rate(donor), self.rate(recipient))

    def _factor(self) -> float:
        if self.jitter <= 0:
            return 1.0
        return 1.0 + self._rng.uniform(-self.jitter, self.jitter)

    def migration(
        self,
        donor: str,
        recipient: str,
        nbytes: int,
        docs: int,
        *,
        wait_for_delete: bool = False,
        secondary_throttle: bool = False,
    ) -> MigrationCost:
        """The steps of migrating `nbytes` in `docs` documents donor -> recipient (one
        jitter draw per migration, from the seeded generator)."""
        fixed_f, clone_f = self._factor(), self._factor()
        clone = (nbytes / self.pair_rate(donor, recipient) + docs * self.per_document_s) * clone_f
        if secondary_throttle:
            clone += -(-max(nbytes, 1) // _CLONE_BATCH_BYTES) * _REPL_WAIT_PER_BATCH
        recipient_s = [
            _R1_CREATE * fixed_f,
            _R2_OVERLAP * fixed_f,
            _R3_TASK * fixed_f,
            clone,
            _R5_CATCHUP * fixed_f + _R5_SHARE * clone,
            _R6_STEADY * fixed_f,
            _R7_SESSIONS * fixed_f,
            _R8_RELEASE * fixed_f,
        ]
        deletion = docs * _DELETE_PER_DOC if wait_for_delete else 0.0
        donor_s = [
            _D1_START * fixed_f,
            _D2_SNAPSHOT * fixed_f,
            _D3_COORDINATOR * fixed_f + sum(recipient_s[0:3]),
            sum(recipient_s[3:5]),
            _D5_CRITSEC * fixed_f + sum(recipient_s[5:7]),
            (_D6_COMMIT + self.extra_fixed_s) * fixed_f + deletion,
        ]
        return MigrationCost(
            tuple(round(s * 1000) for s in donor_s), tuple(round(s * 1000) for s in recipient_s)
        )

    @staticmethod
    def fixed_seconds() -> float:
        """A migration's fixed steps without jitter (what the donor's timings sum to
        beside the clone): a twin adds what its cluster's learned fixed part exceeds."""
        recipient = _R1_CREATE + _R2_OVERLAP + _R3_TASK + _R5_CATCHUP + _R6_STEADY + _R7_SESSIONS
        return recipient + _D1_START + _D2_SNAPSHOT + _D3_COORDINATOR + _D5_CRITSEC + _D6_COMMIT

    def move_collection(self, donor: str, recipient: str, nbytes: int, docs: int) -> dt.timedelta:
        """A moveCollection: the resharding minimum, then the copy at the pair's rate."""
        copy = (nbytes / self.pair_rate(donor, recipient) + docs * self.per_document_s) * (
            self._factor()
        )
        return MOVE_COLLECTION_FLOOR + dt.timedelta(seconds=copy)
