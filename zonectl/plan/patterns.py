"""Expand the glob keys of `collections:` against the live namespaces. Pure: the mongo layer
lists the namespaces (config.collections, and $listClusterCatalog or one listCollections
per database).

A pattern is fnmatch-style (`*`, `?`, `[...]`) in each part of "db.coll"; the first dot
separates the parts, so a wildcard never crosses from the database into the collection name.
An exact entry wins over any pattern; a namespace two patterns match is an error naming both;
a pattern matching nothing is fine and the plan says so. Wildcards never match admin, config,
local, zonectl's own database, `system.*` collections (time-series buckets among them) or
views.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import fnmatch
import re
from collections.abc import Mapping
from dataclasses import dataclass

from zonectl.errors import PlanError
from zonectl.model.desired import CollectionPolicy, DesiredState

INTERNAL = frozenset({"admin", "config", "local"})
# Kinds a pattern skips (with a note) rather than refusing: a view holds no data, and a
# time-series or capped collection cannot take the ranges a key or window needs.
_SKIPPED = {"view": "a view"}


@dataclass(frozen=True)
class Expanded:
    desired: DesiredState  # exact entries plus one entry per matched live namespace
    origins: Mapping[str, str]  # namespace -> the pattern it came from
    notes: tuple[str, ...]  # per pattern: what it matched, or that it matched nothing


_CODES = {"Y": r"\d{4}", "m": r"\d{2}", "d": r"\d{2}", "H": r"\d{2}", "%": "%"}


@dataclass(frozen=True)
class _Glob:
    text: str
    policy: CollectionPolicy
    db: re.Pattern[str]
    coll: re.Pattern[str]

    @classmethod
    def of(cls, text: str, policy: CollectionPolicy) -> _Glob:
        db, _, coll = text.partition(".")
        if policy.slices is not None:  # a strftime template: literal db, dated names
            return cls(text, policy, re.compile(re.escape(db) + r"\Z"), _template(coll))
        return cls(
            text, policy, re.compile(fnmatch.translate(db)), re.compile(fnmatch.translate(coll))
        )

    def where(self, fallback: str) -> str:
        return str(self.policy.position) if self.policy.position else fallback


def expand_patterns(
    desired: DesiredState,
    kinds: Mapping[str, str],
    slice_boundaries: Mapping[str, dt.datetime] | None = None,
) -> Expanded:
    """`kinds`: every live namespace -> "collection", "capped", "view" or "timeseries".
    `slice_boundaries`: template -> wall time from which slices are hot (zonectl.firehose)."""
    if not desired.patterns:
        return Expanded(desired, {}, ())
    fallback = desired.sources[0] if desired.sources else "policy"
    globs = [_Glob.of(text, cp) for text, cp in sorted(desired.patterns.items())]
    skip_dbs = INTERNAL | {desired.own_database}
    collections = dict(desired.collections)
    origins: dict[str, str] = {}
    matched: dict[str, list[str]] = {g.text: [] for g in globs}
    errors: list[str] = []
    notes: list[str] = []
    by_db: dict[str, list[str]] = {}
    for ns in sorted(kinds):
        db, _, coll = ns.partition(".")
        if db in skip_dbs or coll.startswith("system.") or ns in desired.collections:
            continue
        by_db.setdefault(db, []).append(ns)
    for db, names in by_db.items():
        candidates = [g for g in globs if g.db.match(db)]
        if not candidates:
            continue
        for ns in names:
            coll = ns.partition(".")[2]
            hits = [g for g in candidates if g.coll.match(coll)]
            if not hits:
                continue
            if len(hits) > 1:
                a, b = hits[0], hits[1]
                errors.append(
                    f"{ns} matches pattern {a.text!r} at {a.where(fallback)} and pattern "
                    f"{b.text!r} at {b.where(fallback)}; narrow one of them or name {ns} "
                    "exactly (an exact entry wins over patterns)"
                )
                continue
            glob = hits[0]
            skipped = _skip_reason(kinds[ns], glob.policy)
            if skipped is not None:
                notes.append(f"{ns} matches pattern {glob.text!r} but is {skipped}: not managed")
                continue
            policy = dataclasses.replace(glob.policy, namespace=ns, pattern=glob.text)
            if glob.policy.slices is not None:
                try:
                    zone = _slice_zone(glob, coll, (slice_boundaries or {}).get(glob.text))
                except ValueError:  # digits in the right places, but no such date
                    notes.append(f"{ns} matches {glob.text!r} but names no valid date: skipped")
                    continue
                if zone is None:
                    notes.append(f"{ns}: older than the window of {glob.text!r}, no cold zone")
                    continue
                policy = dataclasses.replace(policy, pin=zone, slices=None)
            collections[ns] = policy
            origins[ns] = glob.text
            matched[glob.text].append(ns)
    if errors:
        raise PlanError(f"namespace patterns overlap ({len(errors)} problem(s)):", details=errors)
    for glob in globs:
        names = matched[glob.text]
        where = glob.where(fallback)
        if names and glob.policy.slices is not None:
            by_zone: dict[str, list[str]] = {}
            for ns in names:
                by_zone.setdefault(collections[ns].pin or "", []).append(ns)
            parts = [f"{zone}: {', '.join(_short(n))}" for zone, n in sorted(by_zone.items())]
            notes.append(f"slices of {glob.text!r} ({where}): " + "; ".join(parts))
            continue
        if not names:
            notes.append(f"pattern {glob.text!r} ({where}) matches no namespace yet")
        else:
            shown = ", ".join(_short(names))
            notes.append(f"pattern {glob.text!r} ({where}) matches {len(names)}: {shown}")
    expanded = dataclasses.replace(desired, collections=collections)
    return Expanded(expanded, origins, tuple(notes))


def is_pattern(text: str) -> bool:
    return any(c in text for c in "*?[")


def matches(pattern: str, ns: str) -> bool:
    """Whether namespace `ns` matches fnmatch-style `pattern` part by part (the first dot
    separates database and collection, as in a policy's `collections:` keys)."""
    pdb, _, pcoll = pattern.partition(".")
    db, _, coll = ns.partition(".")
    return bool(re.match(fnmatch.translate(pdb), db) and re.match(fnmatch.translate(pcoll), coll))


def _short(names: list[str]) -> list[str]:
    """The first three names, and how many more."""
    return names[:3] + ([f"{len(names) - 3} more"] if len(names) > 3 else [])


def _template(coll: str) -> re.Pattern[str]:
    out, i = "", 0
    while i < len(coll):
        if coll[i] == "%" and i + 1 < len(coll):
            out += _CODES.get(coll[i + 1], re.escape(coll[i : i + 2]))
            i += 2
        else:
            out += re.escape(coll[i])
            i += 1
    return re.compile(out + r"\Z")


def _slice_zone(glob: _Glob, coll: str, boundary: dt.datetime | None) -> str | None:
    """hot when the slice named `coll` starts at or after the boundary, else cold."""
    slices = glob.policy.slices
    assert slices is not None
    if boundary is None:
        raise PlanError(f"{glob.text}: no window boundary was computed for this instant")
    start = dt.datetime.strptime(coll, glob.text.partition(".")[2])
    return slices.hot if start >= boundary else slices.cold


def _skip_reason(kind: str, policy: CollectionPolicy) -> str | None:
    if kind in _SKIPPED:
        return _SKIPPED[kind]
    if kind == "timeseries":
        return "a time-series collection (moveCollection refuses it on 8.0; no pin applies)"
    if kind == "capped" and (policy.key is not None or policy.firehose or policy.ranges):
        return "a capped collection, which cannot be sharded, so no range applies"
    return None
