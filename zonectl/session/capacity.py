"""The disk guard of every plan: when the plan moves data, one dbStats through mongos reads
each shard's volume (zonectl/mongo/volume_read.py), and the plan carries each shard's use
now and after it (zonectl/capacity/); a plan that moves nothing reads nothing."""

from __future__ import annotations

import dataclasses

from zonectl.capacity.loads import database_to_read, make_loads
from zonectl.capacity.project import project
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.volume_read import read_volumes
from zonectl.plan.plan import Plan


def with_capacity(
    conn: Connection, actual: ClusterState, plan: Plan, desired: DesiredState
) -> tuple[Plan, ClusterState]:
    """The plan with its `capacity` report (and notices among its warnings: dbStats refused,
    a shard without filesystem sizes), and `actual` with the volumes read. Impacts first:
    the bytes each route moves are the plan's impact estimates."""
    loads = make_loads(plan, actual, desired)
    if not loads:
        return plan, actual
    database = database_to_read(loads)
    volumes, why = read_volumes(conn, actual, database)
    actual = dataclasses.replace(actual, volumes=volumes, volumes_unread=why)
    report, notices = project(loads, actual, desired, database)
    plan = dataclasses.replace(plan, capacity=report, warnings=(*plan.warnings, *notices))
    return plan, actual
