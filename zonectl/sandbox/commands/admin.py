"""Probes clients send on connect or in status tools: getParameter, serverStatus,
listDatabases, connectionStatus, endSessions, getLog, whatsmyuri, getCmdLineOpts, hostInfo.

Replies carry the fields a mongos returns (mongo:src/mongo/s/commands/ cluster_*_cmd.cpp and
the shared db/commands/*.cpp); commands a mongos lacks (atlasVersion,
getFreeMonitoringStatus, ...) are simply not registered, so they answer CommandNotFound.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from zonectl.sandbox.auth.roles import is_allowed
from zonectl.sandbox.auth.show_privileges import privilege_documents
from zonectl.sandbox.catalog.unsharded import database_bytes
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

_STARTED = time.monotonic()


def _parameters(request: Request) -> dict[str, Any]:
    version = request.sandbox.version
    mechanisms = ["SCRAM-SHA-1", "SCRAM-SHA-256"]
    out: dict[str, Any] = {}
    if version.version_array[:2] < [8, 3]:
        # A 5.0-8.2 mongos answers its binary's release here, not the cluster's FCV
        # (SERVER-100224, SERVER-118760); the FCV itself is in admin.system.version. 8.3
        # no longer has it on a mongos: asking for it alone is InvalidOptions.
        out["featureCompatibilityVersion"] = {"version": version.major_minor}
    return out | {
        "authenticationMechanisms": mechanisms,
        "logLevel": 0,
        "cursorTimeoutMillis": 600000,
        "enableTestCommands": True,
        "logicalSessionRefreshMillis": 300000,
    }


@command("getParameter", admin_only=True)
def get_parameter(request: Request) -> dict[str, Any]:
    # get_parameter.cpp: "*" (or {allParameters: true}) lists all; otherwise the named
    # fields; if nothing matched, InvalidOptions "no option found to get".
    params = _parameters(request)
    arg = request.arg
    want_all = arg == "*" or (isinstance(arg, dict) and arg.get("allParameters") is True)
    out = {k: v for k, v in params.items() if want_all or k in request.body}
    if not out:
        raise CommandError.of("InvalidOptions", "no option found to get")
    return out


@command("serverStatus", aliases=("serverstatus",))
def server_status(request: Request) -> dict[str, Any]:
    uptime = time.monotonic() - _STARTED
    return {
        "host": socket.gethostname(),
        "version": request.sandbox.version.version,
        "process": "mongos",
        "pid": os.getpid(),
        "uptime": float(int(uptime)),
        "uptimeMillis": int(uptime * 1000),
        "uptimeEstimate": int(uptime),
        "localTime": request.sandbox.clock.now(),
        "asserts": {"regular": 0, "warning": 0, "msg": 0, "user": 0, "rollovers": 0},
        "connections": {"current": 1, "available": 838860, "totalCreated": 1, "active": 1},
        "network": {"bytesIn": 0, "bytesOut": 0, "numRequests": 0},
        "opcounters": {
            "insert": 0,
            "query": 0,
            "update": 0,
            "delete": 0,
            "getmore": 0,
            "command": 0,
        },
        "mem": {"bits": 64, "resident": 0, "virtual": 0, "supported": True},
    }


@command("listDatabases", admin_only=True)
def list_databases(request: Request) -> dict[str, Any]:
    catalog = request.sandbox.catalog
    names = set(catalog.databases()) | {"admin", "config"}
    session = request.session
    # authorizedDatabases: a user without listDatabases sees only the dbs they may read.
    if (
        request.sandbox.auth is not None
        and session.user is not None
        and not is_allowed(session.roles, "cluster", "listDatabases")
    ):
        names = {n for n in names if is_allowed(session.roles, f"{n}.x", "find")}
    filt = request.body.get("filter")
    if isinstance(filt, dict) and isinstance(filt.get("name"), str):
        names = {n for n in names if n == filt["name"]}
    databases = []
    total = 0
    # A mongos adds each database's size per shard (cluster_list_databases_cmd.cpp, inferred).
    per_shard = database_bytes(request.sandbox.cluster)
    for name in sorted(names):
        docs = sum(len(catalog.get(ns) or ()) for ns in catalog.namespaces() if _in_db(ns, name))
        size = docs * 256 + (8192 if docs else 0)  # a nominal on-disk size, for display only
        total += size
        shards = per_shard.get(name, {})
        databases.append({"name": name, "sizeOnDisk": size, "empty": docs == 0, "shards": shards})
    if request.body.get("nameOnly") is True:
        return {"databases": [{"name": d["name"]} for d in databases]}
    return {"databases": databases, "totalSize": total, "totalSizeMb": total // (1024 * 1024)}


def _in_db(namespace: str, db: str) -> bool:
    return namespace.split(".", 1)[0] == db


@command("connectionStatus", requires_auth=False)
def connection_status(request: Request) -> dict[str, Any]:
    session = request.session
    users = [] if session.user is None else [{"user": session.user, "db": session.user_db}]
    roles = [
        {"role": spec.partition("@")[0], "db": spec.partition("@")[2]} for spec in session.roles
    ]
    info: dict[str, Any] = {"authenticatedUsers": users, "authenticatedUserRoles": roles}
    if request.body.get("showPrivileges") is True:
        info["authenticatedUserPrivileges"] = privilege_documents(tuple(session.roles))
    return {"authInfo": info}


@command("endSessions", requires_auth=False)
def end_sessions(request: Request) -> dict[str, Any]:
    return {}


@command("getLog", admin_only=True)
def get_log(request: Request) -> dict[str, Any]:
    if request.arg == "*":
        return {"names": ["global", "startupWarnings"]}
    if not isinstance(request.arg, str):
        raise CommandError.of("TypeMismatch", "Argument to getLog must be of type String")
    return {"totalLinesWritten": 0, "log": []}


@command("whatsmyuri")
def whatsmyuri(request: Request) -> dict[str, Any]:
    return {"you": request.session.peer}


@command("getCmdLineOpts", admin_only=True)
def get_cmd_line_opts(request: Request) -> dict[str, Any]:
    return {
        "argv": ["mongos", "--configdb", "csrs/127.0.0.1:27019"],
        "parsed": {"sharding": {"configDB": "csrs/127.0.0.1:27019"}},
    }


@command("hostInfo")
def host_info(request: Request) -> dict[str, Any]:
    return {
        "system": {
            "currentTime": request.sandbox.clock.now(),
            "hostname": socket.gethostname(),
            "cpuAddrSize": 64,
            "numCores": os.cpu_count() or 1,
            "cpuArch": os.uname().machine,
        },
        "os": {"type": "Linux", "name": os.uname().sysname, "version": os.uname().release},
        "extra": {},
    }
