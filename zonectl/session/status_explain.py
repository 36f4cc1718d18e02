"""Status's explain: each sharded namespace's state and reasons from the facts status read
(zonectl/mongo/status.py builds them as explain does, from the same reads), and from them
what balancerCollectionStatus would answer, so status asks the server only where a
defragmentation runs (its progress is the server's own)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from typing import Any

from zonectl.explain.explain import explain
from zonectl.explain.reasons import Explanation
from zonectl.explain.server_status import derived_status
from zonectl.model.cluster import release
from zonectl.mongo.status import StatusRead
from zonectl.session.explain import UTC_FLAGS, cluster_facts

Doc = Mapping[str, Any]


def explain_status(
    read: StatusRead, now: dt.datetime, config_tz: dt.tzinfo | None
) -> dict[str, Explanation]:
    """ns -> its explanation (no ETA: status has its own forecast), the window read in
    `config_tz` (UTC when not known), as `zonectl explain --balancer-tz` reads it."""
    flags = UTC_FLAGS
    if config_tz is not None:
        flags = dataclasses.replace(UTC_FLAGS, tz=config_tz, tz_name=str(config_tz))
    cluster = cluster_facts(read.state, flags, now)
    return {ns: explain(f, cluster) for ns, f in read.facts.items()}


def server_views(
    read: StatusRead, explained: Mapping[str, Explanation]
) -> dict[str, tuple[Doc | None, str | None]]:
    """ns -> (balancerCollectionStatus, why not): the server's reply where status asked it
    (a defragmentation), else the one derived from the namespace's explanation."""
    out = dict(read.servers)
    version = release(read.state.version) or (read.state.major, 0)
    for ns, found in explained.items():
        if ns not in out:
            out[ns] = (derived_status(found, read.facts[ns], version), None)
    return out
