"""`--namespace/-n` of plan, apply, status, rotate and analyze: each name checked and each
pattern expanded, so that a typo is a usage error (exit 2) naming it, never an empty
selection that reports "no changes" or "compliant"."""

from __future__ import annotations

import dataclasses
import difflib
import functools
from collections.abc import Callable, Collection, Sequence

from zonectl.errors import UsageError
from zonectl.model.desired import DesiredState
from zonectl.plan.patterns import is_pattern, matches

# Appended to each command's --namespace help: what "unknown" means (one rule for all).
UNKNOWN_HELP = (
    " A name that neither the policy names (its patterns expanded) nor the cluster has "
    "(a collection, view or zone ranges of that name) is refused with exit 2. A pattern "
    "('app.*', fnmatch in each part) selects among the namespaces {scope} (else the cluster's); "
    "one that selects none is refused too."
)

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


def chooser(
    names: Sequence[str] | None, *, with_policy: bool
) -> Callable[[Collection[str], Lookup], list[str]] | None:
    """`select_namespaces` of --namespace `names` for the application layer to call with its
    scope and lookup (zonectl.session.status.NamespaceChooser); None without --namespace."""
    if not names:
        return None
    where = "in the policy or on the cluster" if with_policy else "on the cluster"
    return functools.partial(select_namespaces, names, where=where)


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
