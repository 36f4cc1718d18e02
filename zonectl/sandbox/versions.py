"""Server-version profiles: every behaviour that differs between releases (reference §8).

The sandbox is a 7.0 mongos unless told otherwise. Each switch cites the reference section
that describes it, so a fidelity question has one place to look.
"""

from __future__ import annotations

from dataclasses import dataclass, replace


@dataclass(frozen=True)
class VersionProfile:
    version: str  # "7.0.14"-style string buildInfo reports
    max_wire_version: int  # §6.3
    chunks_keyed_by_uuid: bool  # §2.3: 4.4 keys chunks by ns, 5.0+ by uuid
    zone_check_first: bool  # §1.5: 5.0+ checks zone existence before fitting bounds
    manual_moves_check_zones: bool  # §4.1: 4.4/5.0 yes, 6.0+ no (SERVER-81352)
    has_move_range: bool  # §4.2: 6.0+
    move_range_one_bound: bool  # §4.2: min-or-max only from 6.1/7.0
    move_chunk_typed_errors: bool  # §4.1: 6.0+ InvalidOptions instead of errmsg-only
    has_configure_collection_balancing: bool  # §3.4: 5.3/6.0+
    balancer_toggles_automerge: bool  # §3.1: 7.0+
    balancer_status_term: bool  # §3.2: 7.0+
    has_defragmentation: bool  # §3.3: 6.0+
    has_autosplit_only_mode: bool  # §2.5: 4.4-6.0 accept mode "autoSplitOnly"
    imbalance_by_data_size: bool  # §5.3: 6.0.3+/7.0 data size, earlier chunk counts
    imbalance_threshold_chunks: int  # §5.3: 4.4 -> 2, 5.0 -> 1 (ignored when by data size)
    default_chunk_size_mb: int  # §2.5: 64 through 5.0, 128 from 6.0
    unknown_mode_is_off: bool  # §2.5: 7.x treats an unknown mode as off, 4.4 BadValue
    # balancer-settings.md §4.1: configureCollectionBalancing `enableBalancing` (8.0.10+, 8.1)
    has_enable_balancing: bool = False
    # balancer-settings.md §5.3: balancerCollectionStatus `chunkSize` is a double in 8.x
    chunk_size_status_double: bool = False
    # balancer-settings.md §1.4: `activeWindowDOW` honoured (at FCV >= 8.3) by an 8.3+ binary
    has_window_dow: bool = False
    # shard-lifecycle.md §2: startShardDraining, shardDrainingStatus, commitShardRemoval and
    # stopShardDraining (mongo:src/mongo/db/s/config/configsvr_*_shard_draining_command.cpp,
    # jstests/sharding/shard_draining_status.js `requires_fcv_83`); removeShard's
    # `remaining.estimatedRemainingBytes` comes with them.
    has_shard_draining_commands: bool = False

    @property
    def major_minor(self) -> str:
        return ".".join(self.version.split(".")[:2])

    @property
    def has_auto_merger(self) -> bool:
        """balancer-settings.md §3: the AutoMerger and `{_id: "automerge"}` are 7.0+."""
        return self.balancer_toggles_automerge

    @property
    def lists_collections_to_move(self) -> bool:
        """shard-lifecycle.md §1: removeShard's `collectionsToMove` (and its count in
        `remaining`) are 8.0+ (SERVER-89883; manual, removeShard)."""
        return self.version_array[0] >= 8

    @property
    def version_array(self) -> list[int]:
        parts = [int(p) for p in self.version.split(".")]
        return [*parts, 0, 0, 0, 0][:4]


PROFILES: dict[str, VersionProfile] = {
    "5.0": VersionProfile(
        version="5.0.31",
        max_wire_version=13,
        chunks_keyed_by_uuid=True,
        zone_check_first=True,
        manual_moves_check_zones=True,
        has_move_range=False,
        move_range_one_bound=False,
        move_chunk_typed_errors=False,
        has_configure_collection_balancing=False,
        balancer_toggles_automerge=False,
        balancer_status_term=False,
        has_defragmentation=False,
        has_autosplit_only_mode=True,
        imbalance_by_data_size=False,
        imbalance_threshold_chunks=1,
        default_chunk_size_mb=64,
        unknown_mode_is_off=False,
    ),
    "6.0": VersionProfile(
        version="6.0.20",
        max_wire_version=17,
        chunks_keyed_by_uuid=True,
        zone_check_first=True,
        manual_moves_check_zones=False,
        has_move_range=True,
        move_range_one_bound=False,
        move_chunk_typed_errors=True,
        has_configure_collection_balancing=True,
        balancer_toggles_automerge=False,
        balancer_status_term=False,
        has_defragmentation=True,
        has_autosplit_only_mode=True,
        imbalance_by_data_size=True,
        imbalance_threshold_chunks=1,
        default_chunk_size_mb=128,
        unknown_mode_is_off=False,
    ),
    "7.0": VersionProfile(
        version="7.0.16",
        max_wire_version=21,
        chunks_keyed_by_uuid=True,
        zone_check_first=True,
        manual_moves_check_zones=False,
        has_move_range=True,
        move_range_one_bound=True,
        move_chunk_typed_errors=True,
        has_configure_collection_balancing=True,
        balancer_toggles_automerge=True,
        balancer_status_term=True,
        has_defragmentation=True,
        has_autosplit_only_mode=False,
        imbalance_by_data_size=True,
        imbalance_threshold_chunks=1,
        default_chunk_size_mb=128,
        unknown_mode_is_off=True,
    ),
    "8.0": VersionProfile(
        version="8.0.4",
        max_wire_version=25,
        chunks_keyed_by_uuid=True,
        zone_check_first=True,
        manual_moves_check_zones=False,
        has_move_range=True,
        move_range_one_bound=True,
        move_chunk_typed_errors=True,
        has_configure_collection_balancing=True,
        balancer_toggles_automerge=True,
        balancer_status_term=True,
        has_defragmentation=True,
        has_autosplit_only_mode=False,
        imbalance_by_data_size=True,
        imbalance_threshold_chunks=1,
        default_chunk_size_mb=128,
        unknown_mode_is_off=True,
        chunk_size_status_double=True,
    ),
}

# 8.3 (a rapid release; FCV 8.3, last LTS 8.0): day-of-week balancing windows
# (featureFlagBalancerWindowDOW, balancer-settings.md §1.4), enableBalancing (§4.1).
# Wire version 28: one per release after 8.0's 25 (inferred, not read).
PROFILES["8.3"] = replace(
    PROFILES["8.0"],
    version="8.3.0",
    max_wire_version=28,
    has_enable_balancing=True,
    has_window_dow=True,
    has_shard_draining_commands=True,
)

DEFAULT_VERSION = "7.0"


def profile(version: str) -> VersionProfile:
    """Look up a profile by "7.0" or a full "7.0.16"; a full version keeps its patch
    release, and the switches that changed within a release follow it."""
    key = ".".join(version.split(".")[:2])
    try:
        base = PROFILES[key]
    except KeyError:
        known = ", ".join(PROFILES)
        raise ValueError(f"unsupported server version {version!r}; choose one of {known}") from None
    parts = version.split(".")
    if len(parts) < 3 or version == base.version:
        return base
    try:
        patch = int(parts[2])
    except ValueError:
        raise ValueError(f"unsupported server version {version!r}: expected x.y.z") from None
    return _at_patch(base, version, patch)


def _at_patch(base: VersionProfile, version: str, patch: int) -> VersionProfile:
    """Patch-level gates (balancer-settings.md): data-size balancing from 6.0.3 (§6.1),
    configureCollectionBalancing `enableBalancing` from 8.0.10 (§4.1)."""
    changes: dict[str, object] = {"version": version}
    if base.major_minor == "6.0":
        changes["imbalance_by_data_size"] = patch >= 3
    if base.major_minor == "8.0":
        changes["has_enable_balancing"] = patch >= 10
    return replace(base, **changes)  # type: ignore[arg-type]
