"""Doctor's reads: everything `zonectl doctor` checks, read once, read-only, into a
DoctorFacts value (connectionStatus with showPrivileges, hello's localTime, config.*,
balancerStatus, zonectl's lease and journal)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Mapping
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.doctor.facts import ClockSample, DoctorFacts, LeaseFact, Privilege
from zonectl.errors import ClusterError, ZonectlError, redact
from zonectl.model.lease_holder import holder_is_dead
from zonectl.mongo.changelog_read import read_learned
from zonectl.mongo.chunk_scan import chunk_filter
from zonectl.mongo.connect import Connection
from zonectl.mongo.journal import MongoJournal
from zonectl.mongo.lease import MongoLease, describe_holder
from zonectl.mongo.state import COLLECTION_FIELDS, SETTINGS_DOCS, is_sharded_entry


def read_doctor_facts(
    conn: Connection, *, database: str, namespaces: Collection[str] | None
) -> DoctorFacts:
    """`namespaces`: those whose jumbo chunks to count (None: those with zone ranges)."""
    users, privileges = _read_privileges(conn)
    clock = read_clock(conn)
    config = conn.client.config
    try:
        shards = {str(d["_id"]): bool(d.get("draining")) for d in config.shards.find({})}
        colls = [d for d in config.collections.find({}) if is_sharded_entry(d)]
        stored = {
            str(d["_id"]): dict(d) for d in config.settings.find({"_id": {"$in": SETTINGS_DOCS}})
        }
        settings = stored.get("balancer") or {}
        migrations = config.migrations.count_documents({})
        # `jumbo` is not indexed: count it only where zonectl acts (the policy's namespaces,
        # else those with zone ranges), never over every chunk of a large cluster.
        zoned = namespaces if namespaces is not None else _zoned(conn)
        jumbo = {
            str(d["_id"]): config.chunks.count_documents(
                {**chunk_filter(d, conn.version), "jumbo": True}
            )
            for d in colls
            if d["_id"] in zoned
        }
    except OperationFailure as exc:
        if exc.code != 13:  # Unauthorized: still report privileges, clock and version
            raise ClusterError(f"{conn.uri}: reading config metadata failed: {_say(exc)}") from None
        return DoctorFacts(
            uri=conn.uri, version=conn.version, fcv=conn.fcv, users=users,
            privileges=privileges, clock=clock, shards={}, sharded={}, balancer_mode="?",
            balancer_window=None, in_round=None, migrations=0, database=database,
            config_error=_say(exc),
        )  # fmt: skip
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: reading config metadata failed: {_say(exc)}") from None
    status = _balancer_status(conn)
    window = settings.get("activeWindow")
    mode = "off" if settings.get("stopped") else str(settings.get("mode", "full"))
    lease, journals, own_error = _read_own(conn, database)
    return DoctorFacts(
        uri=conn.uri,
        version=conn.version,
        fcv=conn.fcv,
        users=users,
        privileges=privileges,
        clock=clock,
        shards=shards,
        sharded={str(d["_id"]): dict(d["key"]) for d in colls},
        balancer_mode=str(status.get("mode", mode)) if status is not None else mode,
        balancer_window=(
            {"start": str(window.get("start")), "stop": str(window.get("stop"))}
            if isinstance(window, Mapping)
            else None
        ),
        in_round=bool(status.get("inBalancerRound")) if status is not None else None,
        migrations=migrations,
        jumbo=jumbo,
        lease=lease,
        open_journals=journals,
        own_error=own_error,
        database=database,
        history=read_learned(conn),
        settings=stored,
        collection_settings={
            str(d["_id"]): {k: d[k] for k in COLLECTION_FIELDS if k in d} for d in colls
        },
    )


def _zoned(conn: Connection) -> set[str]:
    return {str(d.get("ns")) for d in conn.client.config.tags.find({}, {"_id": 0, "ns": 1})}


def _read_own(conn: Connection, database: str) -> tuple[LeaseFact | None, int, str | None]:
    """The lease and the number of open journals; a user who may not read zonectl's
    database gets the reason instead (the privileges check names what is missing)."""
    try:
        holder = MongoLease(conn.client, database).read()
        journals = len(MongoJournal(conn.client, database).find_open())
    except ZonectlError as exc:
        return None, 0, exc.message
    if holder is None:
        return None, journals, None
    expires = holder.get("expires")
    return (
        LeaseFact(
            describe_holder(holder),
            _aware(expires) if isinstance(expires, dt.datetime) else None,
            dead=holder_is_dead(holder),
        ),
        journals,
        None,
    )


def _read_privileges(conn: Connection) -> tuple[tuple[str, ...], tuple[Privilege, ...]]:
    """connectionStatus with showPrivileges (mongo:src/mongo/db/commands/
    connection_status.cpp): users, and one privilege per resource with merged actions."""
    try:
        reply = conn.client.admin.command({"connectionStatus": 1, "showPrivileges": True})
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: connectionStatus failed: {_say(exc)}") from None
    info = reply.get("authInfo") or {}
    users = tuple(f"{u.get('user')}@{u.get('db')}" for u in info.get("authenticatedUsers") or ())
    privileges = tuple(
        Privilege(dict(p.get("resource") or {}), frozenset(p.get("actions") or ()))
        for p in info.get("authenticatedUserPrivileges") or ()
    )
    return users, privileges


def read_clock(conn: Connection) -> ClockSample:
    """hello's `localTime` (a mongos sends it: reference §6.3) between two host readings
    (an in-process sandbox's clock is this process's too: conn.local)."""
    before = conn.local()
    try:
        reply = conn.client.admin.command({"hello": 1})
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: hello failed: {_say(exc)}") from None
    after = conn.local()
    local = reply.get("localTime")
    if not isinstance(local, dt.datetime):
        raise ClusterError(f"{conn.uri}: hello has no localTime; cannot measure clock skew")
    return ClockSample(before, after, _aware(local))


def _balancer_status(conn: Connection) -> dict[str, Any] | None:
    try:
        return dict(conn.client.admin.command({"balancerStatus": 1}))
    except OperationFailure:
        return None
    except PyMongoError as exc:
        raise ClusterError(f"{conn.uri}: balancerStatus failed: {_say(exc)}") from None


def _aware(value: dt.datetime) -> dt.datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _say(exc: PyMongoError) -> str:
    if isinstance(exc, OperationFailure) and exc.details:
        return redact(f"{exc.details.get('codeName', exc.code)}: {exc.details.get('errmsg')}")
    return redact(str(exc))
