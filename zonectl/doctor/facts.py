"""What doctor reads from a cluster, as plain values (zonectl.mongo.doctor_read fills them),
and one check's outcome."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from zonectl.forecast.learn import Learned


class Status(StrEnum):
    OK = "ok"
    WARN = "warn"
    FAIL = "fail"


@dataclass(frozen=True)
class Check:
    """One line of the report: `name` is stable (scripts key on it), `detail` says what
    was found, `fix` what to do when it is not ok."""

    name: str
    status: Status
    detail: str
    fix: str | None = None


@dataclass(frozen=True)
class Privilege:
    """One `authenticatedUserPrivileges` entry of connectionStatus: a resource document
    (`{cluster: true}`, `{anyResource: true}`, `{db, collection}`) and its actions."""

    resource: Mapping[str, Any]
    actions: frozenset[str]


@dataclass(frozen=True)
class ClockSample:
    """The host clock just before and after hello, and the cluster's `localTime` in it."""

    host_before: dt.datetime
    host_after: dt.datetime
    cluster: dt.datetime


@dataclass(frozen=True)
class LeaseFact:
    holder: str  # describe_holder() of the lease document
    expires: dt.datetime | None
    dead: bool = False  # its run is gone (this host, pid gone): the next run takes it over


@dataclass(frozen=True)
class DoctorFacts:
    uri: str
    version: str
    fcv: str | None
    users: tuple[str, ...]  # "user@db" of connectionStatus; empty: no user authenticated
    privileges: tuple[Privilege, ...]
    clock: ClockSample
    shards: Mapping[str, bool]  # shard id -> draining
    sharded: Mapping[str, Mapping[str, Any]]  # sharded namespace -> shard key
    balancer_mode: str  # "full" | "off" | ...
    balancer_window: Mapping[str, str] | None
    in_round: bool | None  # None: balancerStatus refused
    migrations: int
    jumbo: Mapping[str, int] = field(default_factory=dict)  # namespace -> jumbo chunks
    lease: LeaseFact | None = None
    open_journals: int = 0
    own_error: str | None = None  # why the lease and journal could not be read
    config_error: str | None = None  # why config.* could not be read (then it is all unknown)
    database: str = "zonectl"
    history: Learned | None = None  # what config.changelog teaches the forecast
    # config.settings documents by _id, and each sharded collection's settings fields.
    settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    collection_settings: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
