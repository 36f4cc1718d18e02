"""Each shard's disk for `zonectl status` and its metrics: the volumes read with one dbStats
through mongos (two when a shard holds none of the database; zonectl/mongo/volume_read.py),
projected after what the cluster still has to move (zonectl/capacity/pending.py) against
each shard's limit (the policy's `disk: {limit}` when one is given, else 85 %)."""

from __future__ import annotations

import dataclasses

from zonectl.capacity.loads import database_to_read
from zonectl.capacity.pending import pending_loads
from zonectl.capacity.project import project
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.status import StatusRead
from zonectl.mongo.volume_read import read_volumes
from zonectl.render.status import StatusReport


def with_disk(
    conn: Connection, read: StatusRead, report: StatusReport, desired: DesiredState | None
) -> StatusReport:
    """The report with `disk` (None when dbStats is refused) and a note per shard whose
    volume is unknown, or naming the missing privilege: never a silent pass."""
    state = read.state
    tallies = {ns: scan.tally for ns, scan in read.scans.items()}
    loads = pending_loads(state, tallies, read.owned)
    # the database most of the pending bytes belong to gives their compression; with
    # nothing pending, `admin`, which every shard holds, gives every volume in one read
    database = database_to_read(loads) or "admin"
    volumes, why = read_volumes(conn, state, database)
    if volumes is None:
        note = f"disk use not read: dbStats on {database} {why}"
        return dataclasses.replace(report, notes=(*report.notes, note))
    notes = [
        f"disk use of shard {shard} not known: it reports no filesystem sizes "
        "(fsUsedSize/fsTotalSize) in dbStats"
        for shard, volume in sorted(volumes.items())
        if not volume.known
    ]
    known = dataclasses.replace(state, volumes=volumes)
    disk, _ = project(loads, known, desired or DesiredState(), database)
    return dataclasses.replace(report, disk=disk, notes=(*report.notes, *notes))
