"""Doctor's check of a planned key change (a policy `key:` that differs from the live one, or
`migrate: reshard`): what the server itself requires (version and FCV, the privileges) is
a failure when missing; what MongoDB only documents (free storage of 1.2x the collection,
an oplog window longer than the resharding, writes blocked about 2 s, one resharding at a
time; manual, reshardCollection "Requirements") is reported for the operator to confirm.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.doctor.facts import Check, DoctorFacts, Status
from zonectl.doctor.privileges import is_granted

DOCUMENTED = (
    "confirm free storage of 1.2x the collection on each shard, an oplog window longer "
    "than the forecast resharding, and that writes may block about 2 s at the commit"
)


def key_change_check(
    ns: str,
    key: Mapping[str, Any],
    live: Mapping[str, Any],
    facts: DoctorFacts,
    *,
    route: bool,
    where: str | None = None,
) -> Check:
    name = f"policy:{ns}"
    said = f" ({where})" if where else ""
    change = f"the policy says key {_show(key)}{said}, the cluster has {_show(live)}"
    refine = not route and _extends(key, live)
    what = "refineCollectionShardKey" if refine else "reshardCollection"
    need = (4, 4) if refine else (7, 2) if route else (5, 0)
    for label, version in (("MongoDB", facts.version), ("FCV", facts.fcv or facts.version)):
        if _version(version) < need:
            return Check(
                name,
                Status.FAIL,
                f"{change}: {what} needs {label} {need[0]}.{need[1]}+; it is {version}",
                "upgrade (and setFeatureCompatibilityVersion) first, or keep the live key",
            )
    actions = [what] if refine else [what, "abortReshardCollection"]
    lacking = [a for a in actions if facts.users and not is_granted(facts.privileges, ns, a)]
    if lacking:
        return Check(
            name,
            Status.FAIL,
            f"{change}: {what} needs {', '.join(lacking)} on {ns}",
            "grant clusterManager (or those actions on the namespace)",
        )
    if refine:
        return Check(name, Status.OK, f"{change}: a {what}, no data moves")
    if route:
        change = f"`migrate: reshard`{said} on {_show(live)}"
    return Check(name, Status.WARN, f"{change}: a {what} copies the collection", DOCUMENTED)


def _show(key: Mapping[str, Any]) -> str:
    fields = (f'{k}: "{v}"' if isinstance(v, str) else f"{k}: {v}" for k, v in key.items())
    return "{" + ", ".join(fields) + "}"


def _extends(new: Mapping[str, Any], old: Mapping[str, Any]) -> bool:
    return len(new) > len(old) and list(new.items())[: len(old)] == list(old.items())


def _version(text: str) -> tuple[int, int]:
    parts = [*(int(p) for p in text.split(".")[:2] if p.isdigit()), 0, 0]
    return parts[0], parts[1]
