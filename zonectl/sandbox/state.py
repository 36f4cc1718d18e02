"""The whole simulated cluster as one object: what every sandbox command handler can reach.

sandbox.version    VersionProfile of the mongos being imitated
sandbox.clock      Clock (settable in tests)
sandbox.lock       RLock held while any command runs (commands are atomic)
sandbox.catalog    namespace -> Collection (config.* documents and users' databases)
sandbox.cluster    the sharding model over the catalog (shards, collections, chunks, zones)
sandbox.balancer   the balancer simulation (rounds, migrations in flight)
sandbox.failpoints the failCommand fail point state
sandbox.cursors    open cursors
sandbox.auth       users and roles when authentication is on, else None
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

from zonectl.sandbox.clock import Clock
from zonectl.sandbox.store import Collection, MemoryCollection
from zonectl.sandbox.versions import DEFAULT_VERSION, VersionProfile, profile

if TYPE_CHECKING:
    from zonectl.sandbox.auth import AuthConfig
    from zonectl.sandbox.balancer import Balancer
    from zonectl.sandbox.cluster import Cluster
    from zonectl.sandbox.cursors import CursorManager
    from zonectl.sandbox.failpoints import FailPoints

TOPOLOGIES = ("mongos", "standalone", "replicaSet")


class Catalog:
    """Every collection the sandbox knows, by full namespace."""

    def __init__(self) -> None:
        self._collections: dict[str, Collection] = {}

    def get(self, namespace: str) -> Collection | None:
        return self._collections.get(namespace)

    def ensure(self, namespace: str) -> Collection:
        """The collection, created empty on first write (MongoDB creates on insert)."""
        coll = self._collections.get(namespace)
        if coll is None:
            coll = MemoryCollection(namespace)
            self._collections[namespace] = coll
        return coll

    def mount(self, namespace: str, collection: Collection) -> None:
        """Serve a special collection (a view such as config.chunks) at `namespace`."""
        self._collections[namespace] = collection

    def drop(self, namespace: str) -> bool:
        return self._collections.pop(namespace, None) is not None

    def namespaces(self) -> Iterator[str]:
        return iter(sorted(self._collections))

    def databases(self) -> list[str]:
        return sorted({ns.split(".", 1)[0] for ns in self._collections})


class Sandbox:
    def __init__(
        self,
        version: VersionProfile | str = DEFAULT_VERSION,
        *,
        clock: Clock | None = None,
        auth: AuthConfig | None = None,
        topology: str = "mongos",
    ) -> None:
        from zonectl.sandbox.balancer import Balancer
        from zonectl.sandbox.cluster import Cluster
        from zonectl.sandbox.cursors import CursorManager
        from zonectl.sandbox.failpoints import FailPoints

        self.version = profile(version) if isinstance(version, str) else version
        self.clock = clock or Clock()
        self.lock = threading.RLock()
        self.catalog = Catalog()
        self.auth = auth
        if topology not in TOPOLOGIES:
            raise ValueError(
                f"unknown topology {topology!r}; choose one of {', '.join(TOPOLOGIES)}"
            )
        # What the handshake claims to be. Only `mongos` is a faithful simulation; the other
        # two exist so clients' "is this a mongos?" checks can be tested (see handshake.py).
        self.topology = topology
        self.cluster: Cluster = Cluster(self)
        self.balancer: Balancer = Balancer(self)
        self.failpoints: FailPoints = FailPoints()
        self.cursors: CursorManager = CursorManager()
