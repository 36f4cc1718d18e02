"""`--namespace/-n` of plan, apply, status, rotate and analyze: the option and the help all
share. The selection (a typo is exit 2, never an empty selection) is
zonectl.session.namespaces; `chooser` binds it to a command's --namespace."""

from __future__ import annotations

import functools
from collections.abc import Callable, Collection, Sequence
from typing import Any

import typer

from zonectl.session.namespaces import Lookup, select_namespaces

# Appended to each command's --namespace help: what "unknown" means (one rule for all).
UNKNOWN_HELP = (
    " A name that neither the policy names (its patterns expanded) nor the cluster has "
    "(a collection, view or zone ranges of that name) is refused with exit 2. A pattern "
    "('app.*', fnmatch in each part) selects among the namespaces {scope} (else the cluster's); "
    "one that selects none is refused too."
)


def chooser(
    names: Sequence[str] | None, *, with_policy: bool
) -> Callable[[Collection[str], Lookup], list[str]] | None:
    """`select_namespaces` of --namespace `names` for the application layer to call with its
    scope and lookup (zonectl.session.status.NamespaceChooser); None without --namespace."""
    if not names:
        return None
    where = "in the policy or on the cluster" if with_policy else "on the cluster"
    return functools.partial(select_namespaces, names, where=where)


# For a command that takes no policy's namespaces (explain): only the cluster's.
CLUSTER_ONLY_HELP = (
    " A name that is not one of the namespaces {scope} is refused with exit 2, naming it. A "
    "pattern ('app.*', fnmatch in each part) selects among them; one that selects none is "
    "refused too."
)


def namespace_option(what: str, *, scope: str, policy: bool = True) -> Any:
    """`--namespace/-n` of a command whose typo is exit 2: `what` it does with the names, then
    UNKNOWN_HELP (CLUSTER_ONLY_HELP when the names come from the cluster alone) with the
    `scope` its patterns select from."""
    rule = UNKNOWN_HELP if policy else CLUSTER_ONLY_HELP
    return typer.Option("--namespace", "-n", help=what + rule.format(scope=scope))
