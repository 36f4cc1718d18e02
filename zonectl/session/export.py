"""`zonectl export` on an open connection: the live zones, ranges and balancer settings as a
policy file's text (zonectl/policy/export.py), with the warnings to show. Prints nothing."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zonectl.model.cluster import ClusterState
from zonectl.mongo.connect import Connection
from zonectl.mongo.namespaces_read import read_namespaces
from zonectl.mongo.status import read_full_state
from zonectl.policy.export import build_policy
from zonectl.session.namespaces import select_namespaces
from zonectl.session.notice import Notice


@dataclass(frozen=True)
class ExportedPolicy:
    text: str
    notices: tuple[Notice, ...]


def export_policy(conn: Connection, namespaces: Sequence[str] | None) -> ExportedPolicy:
    """The policy of the whole cluster, or of `namespaces` and the zones their ranges use.
    A name the cluster does not have is a usage error (exit 2) naming it, as in every
    other command, not an empty policy; one it has, unsharded and without ranges, is
    said and left out."""
    state = read_full_state(conn)
    known = _known(state)
    if namespaces:
        namespaces = select_namespaces(
            namespaces, known, lambda dbs: read_namespaces(conn, dbs), where="on the cluster"
        )
    text, warnings = build_policy(
        state, source=conn.uri, at=conn.local(), namespaces=namespaces or None
    )
    unknown = [
        Notice(f"--namespace {name}: neither sharded nor given zone ranges; not exported")
        for name in sorted(set(namespaces or ()) - known)
    ]
    return ExportedPolicy(text, (*unknown, *(Notice(w) for w in warnings)))


def _known(state: ClusterState) -> set[str]:
    return set(state.collections) | {r.namespace for r in state.ranges}
