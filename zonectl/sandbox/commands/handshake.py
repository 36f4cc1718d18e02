"""The connection handshake (`hello`/`isMaster`/`ismaster`), `ping` and `buildInfo`.

The hello reply is a mongos's (mongo:src/mongo/s/commands/cluster_hello_cmd.cpp, reference
§6.3): `msg: "isdbgrid"` makes drivers treat us as a mongos; no `topologyVersion`, so
pymongo's monitor polls instead of streaming; no `compression`, so clients never compress.
"""

from __future__ import annotations

import platform
from typing import Any

from zonectl.sandbox.commands import authcmds
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

MAX_BSON_OBJECT_SIZE = 16 * 1024 * 1024
MAX_MESSAGE_SIZE_BYTES = 48_000_000
MAX_WRITE_BATCH_SIZE = 100_000


def _hello(request: Request, primary_field: str) -> dict[str, Any]:
    session = request.session
    client = request.body.get("client")
    if client is not None:
        # hello_cmd: "The client metadata document may only be sent in the first hello".
        if session.scratch.get("handshake_done"):
            raise CommandError(
                186,
                "The client metadata document may only be sent in the first hello",
                "ClientMetadataCannotBeMutated",
            )
        app = client.get("application") if isinstance(client, dict) else None
        if isinstance(app, dict) and isinstance(app.get("name"), str):
            session.scratch["appName"] = app["name"]
    session.scratch["handshake_done"] = True
    reply: dict[str, Any] = {
        primary_field: True,
        **_topology_fields(request),
        "maxBsonObjectSize": MAX_BSON_OBJECT_SIZE,
        "maxMessageSizeBytes": MAX_MESSAGE_SIZE_BYTES,
        "maxWriteBatchSize": MAX_WRITE_BATCH_SIZE,
        "localTime": request.sandbox.clock.now(),
        "logicalSessionTimeoutMinutes": 30,
        "connectionId": session.connection_id,
        "maxWireVersion": request.sandbox.version.max_wire_version,
        "minWireVersion": 0,
        "readOnly": False,
    }
    if request.body.get("helloOk") is True:
        reply["helloOk"] = True
    if request.sandbox.auth is not None:
        reply.update(authcmds.hello_fields(request))
    return reply


def _topology_fields(request: Request) -> dict[str, Any]:
    """What makes a driver classify the server (pymongo hello.py, reference §6.3): a mongos
    says `msg: "isdbgrid"`; a replica-set member names its set; a standalone says neither.
    Posing as a standalone or replica set changes only this reply: the other commands still
    behave as a mongos's, which is enough for testing that clients refuse a wrong target."""
    topology = request.sandbox.topology
    if topology == "mongos":
        return {"msg": "isdbgrid"}
    if topology == "replicaSet":
        me = request.session.local
        return {
            "setName": "rs0",
            "setVersion": 1,
            "hosts": [me],
            "primary": me,
            "me": me,
            "secondary": False,
        }
    return {}


@command("hello", requires_auth=False)
def hello(request: Request) -> dict[str, Any]:
    return _hello(request, "isWritablePrimary")


@command("isMaster", aliases=("ismaster",), requires_auth=False)
def is_master(request: Request) -> dict[str, Any]:
    return _hello(request, "ismaster")


@command("ping", requires_auth=False)
def ping(request: Request) -> dict[str, Any]:
    return {}


@command("buildInfo", aliases=("buildinfo",), requires_auth=False)
def build_info(request: Request) -> dict[str, Any]:
    version = request.sandbox.version
    environment: dict[str, Any] = {
        "distmod": "zonectl-sandbox",
        "distarch": platform.machine() or "x86_64",
        "target_arch": platform.machine() or "x86_64",
        "target_os": "linux",
    }
    clock = request.sandbox.clock
    if not clock.frozen:
        # Only the sandbox sends this (no mongod/mongos build has the key): its clock runs
        # on its own timeline, real time x this (`zonectl sandbox --time-scale`), so hello's
        # localTime drifts from the client's clock by design, which zonectl must not take
        # for a clock fault (mongo/connect.py). A frozen (virtual) clock is not reported:
        # tests set it to pose as a real cluster's clock, skewed or not.
        environment["zonectlTimeScale"] = clock.scale
    return {
        "version": version.version,
        "gitVersion": "0000000000000000000000000000000000000000",
        "modules": [],
        "allocator": "tcmalloc",
        "javascriptEngine": "mozjs",
        "sysInfo": "deprecated",
        "versionArray": version.version_array,
        "openssl": {"running": "disabled", "compiled": "disabled"},
        "buildEnvironment": environment,
        "bits": 64,
        "debug": False,
        "maxBsonObjectSize": MAX_BSON_OBJECT_SIZE,
        "storageEngines": [],
    }
