"""config.mongos: the uptime report every mongos writes about itself.

A real mongos runs an "Uptime reporter" thread (mongo:src/mongo/s/sharding_uptime_reporter.cpp)
that every 10 s upserts `{_id: "<hostname>:<port>"}` in config.mongos with `$set` of `ping`
(now), `up` (seconds since start), `waiting: true` ("balancer is never active in mongos"),
`mongoVersion` and `advisoryHostFQDNs`, and `$setOnInsert` of `created`
(mongo:src/mongo/s/catalog/type_mongos.cpp lists the fields). mongosh's `sh.status()` reads
it for "active mongoses" (mongosh:packages/shell-api/src/helpers.ts
`getPrintableShardStatus`: newest `ping`, then a `$group` by `mongoVersion`), so a sandbox
without it shows "most recently active mongoses: none", which no real cluster does.

The sandbox's server is that mongos: it reports at start and then every 10 s of wall time,
stamping `ping` with the sandbox clock like every other time the sandbox writes.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import TYPE_CHECKING, Any

from bson.int64 import Int64

from zonectl.sandbox.catalog.cluster import MONGOS

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

REPORT_INTERVAL_S = 10.0  # kUptimeReportInterval


class UptimeReporter:
    def __init__(self, sandbox: Sandbox, port: int) -> None:
        self._sandbox = sandbox
        self.instance_id = f"{socket.gethostname()}:{port}"
        self._started = time.monotonic()
        self._stop = threading.Event()
        self.report()
        self._thread = threading.Thread(
            target=self._loop, name=f"sandbox-uptime-{port}", daemon=True
        )
        self._thread.start()

    def report(self) -> None:
        """One upsert, as `reportStatus` does it; field order as a 5.0+ server stores new
        fields ($set/$setOnInsert add them in name order)."""
        sandbox = self._sandbox
        with sandbox.lock:
            coll = sandbox.catalog.ensure(MONGOS)
            now = sandbox.clock.now()
            old = coll.get(self.instance_id)
            doc: dict[str, Any] = dict(old) if old is not None else {"_id": self.instance_id}
            doc.setdefault("advisoryHostFQDNs", [])
            doc.setdefault("created", now)
            doc["mongoVersion"] = sandbox.version.version
            doc["ping"] = now
            doc["up"] = Int64(int(time.monotonic() - self._started))
            doc["waiting"] = True
            coll.put(doc)

    def _loop(self) -> None:
        while not self._stop.wait(REPORT_INTERVAL_S):
            self.report()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
