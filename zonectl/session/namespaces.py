"""Which namespaces `--namespace/-n` selects (plan, apply, status, rotate, analyze): each
name checked and each pattern expanded, a typo a usage error (exit 2) naming it, never an
empty selection reporting "no changes" or "compliant"; and the policy cut to it."""

from __future__ import annotations

import dataclasses
import datetime as dt
import difflib
from collections.abc import Callable, Collection, Sequence

from zonectl.errors import UsageError
from zonectl.model.desired import DesiredState
from zonectl.mongo.connect import Connection
from zonectl.mongo.namespaces_read import read_namespaces
from zonectl.mongo.resolve import Resolved, read_resolved
from zonectl.plan.patterns import is_pattern, matches

Lookup = Callable[[Collection[str]], Collection[str]]  # databases -> the cluster's namespaces


def check_syntax(names: Sequence[str]) -> None:
    """Each name is "db.collection" (either part may be a pattern)."""
    for ns in names:
        db, dot, coll = ns.partition(".")
        if not (db and dot and coll) or any(c in db for c in '/\\ "$'):
            raise UsageError(f"--namespace {ns!r}: expected a namespace db.collection")


def select_namespaces(
    names: Sequence[str], scope: Collection[str], lookup: Lookup, *, where: str
) -> list[str]:
    """The exact namespaces `names` select: an exact name as given, a pattern expanded
    against `scope` (what the command reports on), else against the cluster's namespaces.
    `lookup` (databases -> the cluster's namespaces) is asked only when a name is not in
    `scope`. UsageError (exit 2) naming every unknown name; `where` says where it was
    looked for ("in the policy or on the cluster")."""
    check_syntax(names)
    exact = [n for n in names if not is_pattern(n)]
    picked = {g: sorted(ns for ns in scope if matches(g, ns)) for g in names if is_pattern(g)}
    missing = [n for n in exact if n not in scope]
    empty = [g for g, found in picked.items() if not found]
    live: Collection[str] = ()
    if missing or empty:
        dbs = {n.partition(".")[0] for n in [*missing, *empty]}
        live = lookup({db for db in dbs if not is_pattern(db)})
    unknown = [n for n in missing if n not in live]
    for g in empty:
        picked[g] = sorted(ns for ns in live if matches(g, ns))
        if not picked[g]:
            unknown.append(g)
    if unknown:
        known = sorted({*scope, *live})
        raise UsageError("; ".join(_unknown(n, known, where) for n in unknown))
    selected = [ns for n in names for ns in ([n] if n in exact else picked[n])]
    return list(dict.fromkeys(selected))


def _unknown(name: str, known: Sequence[str], where: str) -> str:
    if is_pattern(name):
        return f"--namespace {name!r} matches no namespace {where}"
    line = f"--namespace {name}: no such namespace {where}"
    close = difflib.get_close_matches(name, known, n=2, cutoff=0.8)
    return line + (f" (did you mean {' or '.join(close)}?)" if close else "")


def keep_only(desired: DesiredState, selected: Collection[str] | None) -> DesiredState:
    """The policy's entries of the `selected` namespaces (None: all of them); its patterns
    stay, for what they expand to is cut the same way after expansion."""
    if selected is None:
        return desired
    kept = {ns: cp for ns, cp in desired.collections.items() if ns in selected}
    return dataclasses.replace(desired, collections=kept)


def policy_namespaces(conn: Connection, resolved: Resolved, names: list[str]) -> list[str]:
    """--namespace of plan, apply and rotate: patterns select among the policy's namespaces
    (its own patterns expanded); a name neither the policy nor the cluster has is a usage
    error (exit 2)."""
    return select_namespaces(
        names,
        resolved.desired.collections,
        lambda dbs: read_namespaces(conn, dbs),
        where="in the policy or on the cluster",
    )


def checked_namespaces(
    conn: Connection, desired: DesiredState, names: list[str], at: dt.datetime
) -> list[str]:
    """apply's and rotate's --namespace, checked before the lease is taken or anything is
    sent: the policy's patterns expanded at `at`, then `policy_namespaces`."""
    return policy_namespaces(conn, read_resolved(conn, desired, at), names)
