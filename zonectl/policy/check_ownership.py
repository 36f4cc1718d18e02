"""Ownership per aspect (ARCHITECTURE.md, "Principles"): a `collections:` entry manages only
what it names, so an entry that names nothing to manage changes nothing on the cluster: a
warning (ZP143)."""

from __future__ import annotations

from zonectl.diagnostics import Diagnostic, Severity
from zonectl.policy.fragment import CollectionEntry

# Keys that only say how a managed change is made, not what is managed.
MODIFIERS = frozenset({"migrate", "reshard", "partition"})


def managed_keys(coll: CollectionEntry) -> list[str]:
    """The keys of the entry that manage something: every key it sets but the modifiers,
    `null` values aside (absent and `null` both mean "not managed"); `ranges: []` counts
    ("no zones"). A new per-collection setting is counted without a change here."""
    model = coll.model
    return sorted(
        name
        for name in model.model_fields_set - MODIFIERS
        if name == "ranges" or getattr(model, name) is not None
    )


def check_manages_something(coll: CollectionEntry) -> list[Diagnostic]:
    if managed_keys(coll):
        return []
    message = f"{coll.namespace} manages nothing: plan leaves its ranges, key and settings alone"
    hint = (
        "name what zonectl should manage (ranges, pin, firehose, key, balancing, sampling; "
        "`ranges: []` for no zones) or remove the entry"
    )
    return [Diagnostic("ZP143", Severity.WARNING, coll.at(key=True), message, hint)]
