"""The whole simulated cluster as one object: what every sandbox command handler can reach.

sandbox.version    VersionProfile of the mongos being imitated
sandbox.clock      Clock: virtual by default (tests set and step it), or real x scale
sandbox.lock       RLock held while any command runs (commands are atomic)
sandbox.catalog    namespace -> Collection (config.* documents and users' databases)
sandbox.cluster    the sharding model over the catalog (shards, collections, chunks, zones)
sandbox.balancer   the balancer simulation (rounds, migrations in flight)
sandbox.failpoints the failCommand fail point state
sandbox.cursors    open cursors
sandbox.auth       users and roles when authentication is on, else None
sandbox.sampler    the query sampler (7.0+ query analysis) and its simulated workload
"""

from __future__ import annotations

import threading

from zonectl.sandbox.auth.users import AuthConfig
from zonectl.sandbox.balancer.balancer import Balancer
from zonectl.sandbox.catalog import fcv as fcv_doc
from zonectl.sandbox.catalog.cluster import CHUNKS, Cluster
from zonectl.sandbox.catalog.config_views import ChunksView
from zonectl.sandbox.catalog.namespaces import Catalog
from zonectl.sandbox.catalog.unsharded import register_database
from zonectl.sandbox.clock import Clock
from zonectl.sandbox.failpoints import FailPoints
from zonectl.sandbox.query.cursors import CursorManager
from zonectl.sandbox.sampling.sampler import Sampler
from zonectl.sandbox.versions import DEFAULT_VERSION, VersionProfile, profile

TOPOLOGIES = ("mongos", "standalone", "replicaSet")


class Sandbox:
    def __init__(
        self,
        version: VersionProfile | str = DEFAULT_VERSION,
        *,
        clock: Clock | None = None,
        auth: AuthConfig | None = None,
        topology: str = "mongos",
        fcv: str | None = None,
    ) -> None:
        self.version = profile(version) if isinstance(version, str) else version
        self.clock = clock or Clock.virtual()
        self.lock = threading.RLock()
        self.catalog = Catalog()
        fcv_doc.install(self.catalog, self.version, fcv)  # ValueError: not this binary's
        self.auth = auth
        if topology not in TOPOLOGIES:
            raise ValueError(
                f"unknown topology {topology!r}; choose one of {', '.join(TOPOLOGIES)}"
            )
        # What the handshake claims to be. Only `mongos` is a faithful simulation; the other
        # two exist so clients' "is this a mongos?" checks can be tested (see handshake.py).
        self.topology = topology
        # Each part gets only what it uses: the catalog, clock and version for the cluster
        # model; the cluster and the command lock for the balancer.
        self.cluster = Cluster(self.catalog, self.clock, self.version)
        self.catalog.mount(CHUNKS, ChunksView(self.cluster))
        cluster = self.cluster
        self.catalog.on_create = lambda ns: register_database(cluster, ns)
        self.balancer = Balancer(self.cluster, self.lock)
        self.failpoints = FailPoints()
        self.cursors = CursorManager()
        self.sampler = Sampler(self.cluster)
