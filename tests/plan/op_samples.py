"""One op of every kind, with the values that are hard to render and to save (NumberLong and
ObjectId bounds, MinKey/MaxKey, impacts, a blocked key change, a one-shot setting)."""

from __future__ import annotations

import datetime as dt

from bson import Int64, ObjectId
from plan_builders import MAX, MIN

from zonectl.model.shard_lifecycle import Blocker, DrainCollection, JumboChunk, ShardDrain
from zonectl.plan.ops import (
    AddShardToZone,
    AssignZoneRange,
    Impact,
    MoveCollection,
    MoveRange,
    Op,
    RefineShardKey,
    RemoveShardFromZone,
    RemoveZoneRange,
    ReshardCollection,
    SetBalancerEnabled,
    SetBalancerWindow,
    SetCollectionBalancing,
    SetQueryAnalyzer,
    SplitChunk,
)
from zonectl.plan.setting_ops import SetClusterSetting, SetCollectionSetting
from zonectl.plan.shard_ops import AddShard, MovePrimary, RemoveShard, StopShardDraining

D = dt.datetime(2026, 1, 10, tzinfo=dt.UTC)
ONE_OF_EACH: list[Op] = [
    AddShardToZone("shard-fast-0", "hot"),
    RemoveZoneRange("app.h", "eu", {"x": Int64(-5)}, {"x": Int64(5)}, Impact(3, 0, 0)),
    AssignZoneRange(
        "app.events", "hot", {"ts": D, "_id": MIN}, {"ts": MAX, "_id": MAX}, Impact(12, 5, 5 << 30)
    ),
    AssignZoneRange("app.o", "eu", {"o": ObjectId("65a000000000000000000000")}, {"o": MAX}),
    RemoveShardFromZone("shard-std-0", "hot"),
    SetCollectionBalancing("app.events", False, True),
    SetQueryAnalyzer("app.users", 5.0, None),
    SetBalancerWindow("23:00", "06:00", None),
    SetBalancerEnabled(True, False),
    SetClusterSetting("secondaryThrottle", {"w": "majority", "wtimeout": 60000}, None),
    SetClusterSetting("activeWindowDOW", [{"day": "Monday", "start": "9:00", "stop": "17:00"}]),
    SetCollectionSetting("app.events", "chunkSizeMB", 32, 128),
    SetCollectionSetting("app.events", "defragment", True),
    SplitChunk("app.events", {"ts": D, "_id": MIN}),
    MoveRange("app.events", {"ts": D, "_id": MIN}, {"ts": MAX, "_id": MAX}, "shard-fast-1"),
    MoveCollection("shop.orders", "shard-logs-0", "shard-std-0", "logs", Impact(1, 1, 3 << 30)),
    RefineShardKey("app.s", {"u": 1, "_id": 1}, {"u": 1}, "no index supports the new key"),
    ReshardCollection(
        "app.a",
        {"_id": "hashed"},
        {"_id": 1},
        ({"zone": "eu", "min": {"_id": Int64(0)}, "max": {"_id": MAX}},),
        impact=Impact(4, 4, 2 << 30),
    ),
    AddShard("shard-new-0", "rs-new/h1:27018,h2:27018"),
    StopShardDraining("shard-std-1"),
    MovePrimary("shop", "shard-std-0", "shard-old-0"),
    RemoveShard(
        "shard-old-0",
        "continue",
        "removeShard",
        ShardDrain(
            "shard-old-0",
            draining=True,
            collections=(
                DrainCollection(
                    "app.events",
                    3,
                    7 << 20,
                    (
                        JumboChunk(
                            "app.events", {"ts": D, "_id": MIN}, {"ts": MAX, "_id": MAX}, 5 << 20
                        ),
                    ),
                ),
                DrainCollection(
                    "app.h", 2, None, (JumboChunk("app.h", {"x": Int64(-5)}, {"x": Int64(5)}),)
                ),
            ),
            unsharded=("shop.carts",),
            databases=("shop",),
            orphan_docs=12,
            orphan_bytes=3072,
            estimated_remaining_bytes=None,
        ),
        (
            Blocker("jumbo", "2 jumbo chunks", "`zonectl apply --migrate --force-jumbo`"),
            Blocker("zone-in-use", "only shard of zone eu", "give zone eu to another shard", True),
        ),
    ),
]
