"""The table: every balancer setting zonectl manages, one row each (reference
balancer-settings.md; section numbers below are its). A new setting is one row here, or one
registered from its own module (row.register), and one test; every reader reads the rows."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, StrictBool

from zonectl.balancer_settings.row import Setting, on_off, registered
from zonectl.balancer_settings.values import (
    ChunkSizeMB,
    DayWindowModel,
    SecondaryThrottle,
    dow_from_stored,
    mb,
    show_dow,
    show_throttle,
    throttle_from_stored,
    whole,
)

# The readers every row shares: status and the metrics walk the table
# (zonectl/plan/settings_view.py), the twin copies what MongoDB stores.
STATUS = (
    'a line under "balancer settings" (text, html) and in `settings` (json): the stored '
    "value, and with a policy whether it is managed, drifts or needs a release"
)
METRICS = "zonectl_balancer_setting_drift{setting=...} (0 or 1), when a policy names it"
TWIN_CLUSTER = (
    "config.settings documents are captured whole, written to the twin's `twin.settings` "
    "and stored as they are by the sandbox that loads it"
)
TWIN_COLLECTION = (
    "the config.collections field is kept with its collection in the twin and set again by "
    "the sandbox that loads it"
)
NO_MOVE = "not relevant because it moves no data between shards"


CLUSTER: tuple[Setting, ...] = (
    Setting(
        key="chunkSizeMB",
        scope="cluster",
        annotation=ChunkSizeMB,
        summary="The cluster's chunk size in MB: how much data one balancer migration moves "
        "and the imbalance (3 chunks' worth) that starts one.",
        doc="chunksize",
        field="value",
        since=None,
        example=128,
        from_stored=whole,
        show=lambda v: f"{v} MB",
        notes="Absent: 128 MB (64 MB before 5.2). 1-1024 (§2.1); the 7.0+ validator refuses "
        "anything else with code 121.",
        forecast=(
            "each balancer migration moves at most the chunk size the plan leaves (a "
            "larger chunk takes several, 6.0.3+); a note says so (forecast/settings.py)"
        ),
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_CLUSTER,
    ),
    Setting(
        key="secondaryThrottle",
        scope="cluster",
        annotation=SecondaryThrottle,
        summary="Whether each document a migration copies waits for replication: true, false, "
        "or a write concern such as {w: majority, wtimeout: 60000}.",
        doc="balancer",
        field="_secondaryThrottle",
        since=None,
        example={"w": "majority", "wtimeout": 60000},
        from_stored=throttle_from_stored,
        show=show_throttle,
        notes="Absent: MongoDB's default (no per-document wait). Takes effect at the next "
        "balancer round.",
        forecast=(
            "the cost per migration is learned from config.changelog, which holds the "
            "waits past migrations made; a note names the setting"
        ),
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_CLUSTER,
    ),
    Setting(
        key="waitForDelete",
        scope="cluster",
        annotation=StrictBool,
        summary="Whether a migration waits for the donor to delete the moved range before the "
        "next one starts.",
        doc="balancer",
        field="_waitForDelete",
        since=None,
        example=False,
        absent=False,
        show=on_off,
        forecast=(
            "the cost per migration is learned from config.changelog (the donor's step 6 "
            "includes the wait); a note names the setting"
        ),
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_CLUSTER,
    ),
    Setting(
        key="attemptToBalanceJumboChunks",
        scope="cluster",
        annotation=StrictBool,
        summary="Let balancer migrations move ranges larger than the chunk size (not chunks "
        "already flagged jumbo).",
        doc="balancer",
        field="attemptToBalanceJumboChunks",
        since=None,
        example=False,
        absent=False,
        show=on_off,
        forecast=(
            "not relevant because the forecast never moves chunks flagged jumbo, which "
            "this setting does not move either, and cuts over-sized ones at the chunk "
            "size as a forced move does (§6.3)"
        ),
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_CLUSTER,
    ),
    Setting(
        key="autoMerger",
        scope="cluster",
        annotation=StrictBool,
        summary="The AutoMerger: merges contiguous chunks of a collection on one shard.",
        doc="automerge",
        field="enabled",
        since=(7, 0),
        example=False,
        absent=True,
        show=on_off,
        set_by_balancer_switch=True,
        notes="balancerStart and balancerStop (sh.startBalancer/stopBalancer) also switch it "
        "on and off (§3.1): zonectl writes it after them, and restores it after pausing the "
        "balancer.",
        forecast=NO_MOVE + " (merges stay on one shard)",
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_CLUSTER,
    ),
    Setting(
        key="activeWindowDOW",
        scope="cluster",
        annotation=list[DayWindowModel],
        summary="Day-of-week balancing windows; when any is set, MongoDB ignores activeWindow.",
        doc="balancer",
        field="activeWindowDOW",
        since=(8, 3),
        example=[{"day": "Saturday", "start": "01:00", "stop": "23:00"}],
        absent=[],
        to_stored=lambda v: v or None,  # an empty list removes the field
        from_stored=dow_from_stored,
        show=show_dow,
        notes="FCV 8.3+: the 8.0-8.2 validator refuses the field (code 121) and older servers "
        "ignore it. A window wraps inside its own day: overnight is two entries (§1.4).",
        forecast=(
            "on 8.3+ at FCV 8.3 the balancer route runs rounds only inside the day-of-"
            "week windows, and ignores activeWindow (forecast/balancer_day_windows.py)"
        ),
        status=STATUS
        + "; in force, the balancer line (and json `balancer.activeWindowDOW`) shows the "
        "windows instead of activeWindow",
        metrics=METRICS + "; zonectl_balancer_in_window reads today's entries when in force",
        twin=TWIN_CLUSTER,
    ),
)

COLLECTION: tuple[Setting, ...] = (
    Setting(
        key="chunkSizeMB",
        scope="collection",
        annotation=ChunkSizeMB,
        summary="This collection's chunk size in MB, instead of the cluster's.",
        doc="",
        field="maxChunkSizeBytes",
        since=(5, 3),
        example=64,
        from_stored=mb,
        show=lambda v: f"{v} MB",
        command_field="chunkSize",
        notes="Stored in bytes; absent: the cluster's chunk size (§2.1, §4).",
        forecast=(
            "each balancer migration of the collection moves at most its chunk size after"
            " the plan (forecast/settings.py)"
        ),
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_COLLECTION,
    ),
    Setting(
        key="autoMerger",
        scope="collection",
        annotation=StrictBool,
        summary="Whether the AutoMerger merges this collection's chunks.",
        doc="",
        field="enableAutoMerge",
        since=(7, 0),
        example=False,
        absent=True,
        show=on_off,
        command_field="enableAutoMerger",
        forecast=NO_MOVE + " (merges stay on one shard)",
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_COLLECTION,
    ),
    Setting(
        key="defragment",
        scope="collection",
        annotation=StrictBool,
        summary="true: defragment the collection once: merge and move small chunks until few "
        "are left; plan and status show the phase until it ends, then the plan is empty again. "
        "false: no defragmentation runs: one running is stopped. Absent: not managed.",
        doc="",
        field="defragmentCollection",
        since=(5, 3),
        example=True,
        absent=False,
        show=lambda v: "running" if v else "not running",
        command_field="defragmentCollection",
        once=True,
        notes="The balancer runs it, so only while the balancer is on and inside its window "
        "(§5.2). zonectl starts it once per collection (UUID) and remembers that in its own "
        "database. Avoid 6.0.0-6.0.3 (MongoDB's warning). `false` sends "
        "`defragmentCollection: false` only while one runs: MongoDB aborts it, marks its phase "
        "`finished`, and the balancer's next round (on, inside its window) clears it (§5.4); "
        "until then plan and status say it is stopping, and nothing is sent again.",
        forecast=(
            "a collection being defragmented (or started by the plan) gets no balancer "
            "finish: the balancer leaves it out of its rounds until the defragmentation "
            "ends (canBalanceCollection)"
        ),
        status=STATUS,
        metrics=METRICS,
        twin=TWIN_COLLECTION,
    ),
)

# Rows declared in a module of their own (row.register, before this module is imported)
# follow the table's: the table is built here, once, and every reader takes it from here.
CLUSTER += registered("cluster")
COLLECTION += registered("collection")
ROWS: tuple[Setting, ...] = CLUSTER + COLLECTION
_seen = [(r.scope, r.key) for r in ROWS]
if len(set(_seen)) != len(_seen):
    raise ValueError(f"a balancer setting has two rows: {sorted(_seen)}")


def row(scope: str, key: str) -> Setting:
    """The row of `key` in `scope`; KeyError for a key no row has."""
    for setting in ROWS:
        if setting.scope == scope and setting.key == key:
            return setting
    raise KeyError(f"no {scope} balancer setting {key!r}")


def plain(value: Any) -> Any:
    """A value as the pydantic model parsed it, as plain data (models become mappings)."""
    if isinstance(value, BaseModel):
        return {k: plain(v) for k, v in value.model_dump(exclude_none=True).items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value
