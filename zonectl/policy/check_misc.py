"""Checks that span the merged policy or need no shard key: namespace names, zone and shard
names, zones referenced but assigned to no shard, and the balancer window and its time zone."""

from __future__ import annotations

import difflib
import re
import zoneinfo
from collections.abc import Callable, Iterable, Iterator
from functools import partial

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.policy.fragment import CollectionEntry, ShardEntry
from zonectl.policy.schema import BalancerModel
from zonectl.policy.tree import Document
from zonectl.time_zones import load_time_zone

_DB_FORBIDDEN = set('/\\. "$*<>:|?\0')
_HHMM = re.compile(r"^([01]?\d|2[0-3]):([0-5]\d)$")


GLOB_CHARS = frozenset("*?[")
INTERNAL_DATABASES = ("admin", "config", "local")


def is_pattern(namespace: str) -> bool:
    """A `collections:` key with fnmatch wildcards (`*`, `?`, `[...]`) or strftime codes
    (`%Y`, a collection-per-period template) is a pattern, expanded at plan time."""
    return not GLOB_CHARS.isdisjoint(namespace) or "%" in namespace


TEMPLATE_CODES = frozenset("YmdH%")


def exact_pattern(namespace: str) -> str:
    """A `collections:` key naming exactly `namespace` although it holds glob or strftime
    characters (MongoDB allows `*?[%` in collection names): each in a one-character class,
    which fnmatch reads literally (`h.x[/]` -> `h.x[[]/]`). For `export`."""
    return re.sub(r"[*?\[%]", lambda m: f"[{m.group(0)}]", namespace)


def has_template_code(namespace: str) -> bool:
    """A `%` outside a bracket class: a strftime code of a collection-per-period template
    (`[%]` is a literal percent sign of a glob)."""
    return "%" in namespace and "%" in re.sub(r"\[!?\]?[^\]]*\]", "", namespace)


def check_namespace(coll: CollectionEntry, own_database: str = "zonectl") -> list[Diagnostic]:
    """MongoDB's naming rules for a sharded collection (db < 64 bytes, ns <= 255 bytes);
    a pattern gets the glob rules of `check_pattern` instead."""
    ns = coll.namespace
    if has_template_code(ns) or coll.model.slices is not None:
        return check_template(coll, own_database)
    if is_pattern(ns):
        return check_pattern(coll, own_database)
    db, dot, name = ns.partition(".")
    problem: str | None = None
    if not dot or not db or not name:
        problem = 'expected "database.collection"'
    elif set(db) & _DB_FORBIDDEN:
        bad = "".join(sorted(set(db) & _DB_FORBIDDEN))
        problem = f"database name {db!r} contains {bad!r}"
    elif len(db.encode()) >= 64:
        problem = "database name is 64 bytes or longer"
    elif "$" in name or "\0" in name:
        problem = "collection names cannot contain '$' or NUL"
    elif len(ns.encode()) > 255:
        problem = "namespace is longer than 255 bytes"
    elif db in ("admin", "local") or (db == "config" and name != "system.sessions"):
        problem = f"collections of the {db} database cannot be sharded"
    elif name.startswith("system.") and ns != "config.system.sessions":
        problem = "system collections cannot be sharded"
    if problem is None:
        return []
    message = f"{ns!r} is not a valid namespace: {problem}"
    return [_error("ZP140", coll.at(key=True), message)]


def check_pattern(coll: CollectionEntry, own_database: str) -> list[Diagnostic]:
    """A glob "db.coll" (fnmatch, the dot literal): both parts present, brackets closed and
    not empty, no character a database name cannot hold, and never a literal internal
    database or zonectl's own, which wildcards never match either."""
    ns = coll.namespace
    db, dot, name = ns.partition(".")
    problem: str | None = None
    hint = 'e.g. "logs.*" or "tenant_*.events"'
    if not dot or not db or not name:
        problem = 'expected "database.collection" with wildcards in either part'
    elif (bad := _unclosed_bracket(db) or _unclosed_bracket(name)) is not None:
        problem = bad
    elif set(db) & (_DB_FORBIDDEN - GLOB_CHARS - {"]"}):
        chars = "".join(sorted(set(db) & (_DB_FORBIDDEN - GLOB_CHARS)))
        problem = f"database part {db!r} contains {chars!r}"
    elif db in (*INTERNAL_DATABASES, own_database):
        problem = f"the {db} database is never managed by a pattern"
        hint = f"name {db} collections one by one, or use a pattern for another database"
    elif "$" in name or "\0" in name:
        problem = "collection names cannot contain '$' or NUL"
    if problem is None:
        return []
    message = f"{ns!r} is not a valid namespace pattern: {problem}"
    return [_error("ZP141", coll.at(key=True), message, hint)]


def check_template(coll: CollectionEntry, own_database: str) -> list[Diagnostic]:
    """A collection-per-period entry: a literal database, a collection name with strftime
    codes among %Y %m %d %H (at least %Y), `slices:` and none of pin/firehose/ranges."""
    ns, model = coll.namespace, coll.model
    db, dot, name = ns.partition(".")
    codes = [name[i + 1 : i + 2] for i in range(len(name)) if name[i] == "%"]
    problem: str | None = None
    hint = 'e.g. "metrics.events_%Y%m%d" with slices: {schedule: "0 0 * * *", keep: 7, ...}'
    if model.slices is None:
        problem = "a name with strftime codes needs `slices:` (a collection-per-period window)"
    elif not dot or not db or "%" in db or set(db) & (_DB_FORBIDDEN | GLOB_CHARS):
        problem = "the database part must be a plain database name"
    elif "%" not in name:
        problem = "`slices:` needs a collection name with strftime codes such as %Y%m%d"
    elif db in (*INTERNAL_DATABASES, own_database):
        problem = f"the {db} database is never managed by a pattern"
    elif any(code not in TEMPLATE_CODES for code in codes) or "Y" not in codes:
        problem = "use %Y (required), %m, %d and %H only"
    elif model.pin or model.firehose or model.ranges:
        problem = "`slices:` pins each slice whole: drop pin, firehose and ranges"
    if problem is None and model.slices is not None:
        from zonectl.firehose import validate_schedule

        bad = validate_schedule(model.slices.schedule, model.slices.timezone)
        if bad is not None:
            return [_error("ZP142", coll.at("slices", "schedule"), f"slices of {ns}: {bad}")]
    if problem is None:
        return []
    message = f"{ns!r} is not a valid collection-per-period template: {problem}"
    return [_error("ZP142", coll.at(key=True), message, hint)]


def _unclosed_bracket(part: str) -> str | None:
    """fnmatch reads an unclosed `[` literally; in a policy it is a typo, so refuse it."""
    i = 0
    while i < len(part):
        if part[i] == "[":
            j = i + 1
            if j < len(part) and part[j] in "!^":
                j += 1
            if j < len(part) and part[j] == "]":
                j += 1
            close = part.find("]", j)
            if close < 0:
                return f"'[' at offset {i} of {part!r} is never closed"
            if close == i + 1:
                return f"empty '[]' in {part!r}"
            i = close
        i += 1
    return None


def check_shard(shard: ShardEntry) -> list[Diagnostic]:
    problems: list[Diagnostic] = []
    if not shard.name.strip():
        problems.append(_error("ZP303", shard.at(key=True), "empty shard name"))
    seen: set[str] = set()
    for i, zone in enumerate(shard.zones):
        if not zone.strip():
            where = shard.zone_at(i)
            problems.append(_error("ZP303", where, f"empty zone name for shard {shard.name}"))
        elif zone in seen:
            message = f'zone "{zone}" is listed twice for shard {shard.name}'
            problems.append(Diagnostic("ZP302", Severity.WARNING, shard.zone_at(i), message))
        seen.add(zone)
    return problems


def check_zone_references(
    collections: Iterable[CollectionEntry], assigned: frozenset[str]
) -> list[Diagnostic]:
    """Each zone a range, pin or firehose uses must be on some shard of the policy, else
    MongoDB answers ZoneNotFound. Reported once per zone, at its first use."""
    uses: dict[str, list[Position]] = {}
    for coll in collections:
        for zone, where in references(coll):
            if zone not in assigned:
                uses.setdefault(zone, []).append(where())
    problems = []
    for zone, places in uses.items():
        first = min(places)
        others = len(places) - 1
        more = f" (and {others} more {'use' if others == 1 else 'uses'})" if others else ""
        message = f"zone {zone} is not assigned to any shard in the policy{more}"
        hint = f"add it under shards:, e.g. <shard>: [{zone}]; MongoDB answers ZoneNotFound"
        problems.append(_error("ZP301", first, message, hint))
    return problems


def references(coll: CollectionEntry) -> Iterator[tuple[str, Callable[[], Position]]]:
    """Each zone the entry uses, with where it is written: looked up when asked, as the
    checks ask only for the zones they report."""
    for r in coll.ranges:
        yield r.zone, partial(_given, r.position)
    model = coll.model
    if model.pin is not None:
        yield model.pin, partial(coll.at, "pin")
    if model.firehose is not None:
        yield model.firehose.hot, partial(coll.at, "firehose", "hot")
        if model.firehose.cold is not None:
            yield model.firehose.cold, partial(coll.at, "firehose", "cold")
    if model.slices is not None:
        yield model.slices.hot, partial(coll.at, "slices", "hot")
        if model.slices.cold is not None:
            yield model.slices.cold, partial(coll.at, "slices", "cold")


def _given(position: Position) -> Position:
    return position


def check_balancer(balancer: BalancerModel, doc: Document) -> list[Diagnostic]:
    problems = _balancer_timezone(balancer, doc)
    window = balancer.activeWindow
    if window is None:
        return problems
    for name, text in (("start", window.start), ("stop", window.stop)):
        if not _HHMM.match(text):
            message = f'activeWindow.{name} "{text}" is not a time of day "HH:MM"'
            where = doc.position(("balancer", "activeWindow", name))
            problems.append(_error("ZP501", where, message, 'e.g. "23:00"'))
    if not problems and _minutes(window.start) == _minutes(window.stop):
        message = f'activeWindow start and stop are both "{window.start}"; the window is empty'
        hint = "to balance all day, set activeWindow: null"
        problems.append(_error("ZP502", doc.position(("balancer", "activeWindow")), message, hint))
    return problems


def _balancer_timezone(balancer: BalancerModel, doc: Document) -> list[Diagnostic]:
    name = balancer.timezone
    if name is None:
        return []
    try:
        load_time_zone(name)
    except ValueError:
        close = difflib.get_close_matches(name, sorted(_timezones()), n=1)
        hint = f'did you mean "{close[0]}"?' if close else 'use an IANA name such as "UTC"'
        message = f'balancer timezone "{name}" is not a known IANA time zone'
        return [_error("ZP503", doc.position(("balancer", "timezone")), message, hint)]
    return []


def _timezones() -> set[str]:
    try:
        return zoneinfo.available_timezones()
    except Exception:  # no tz database to list: no suggestion, the error still stands
        return set()


def _minutes(text: str) -> int:
    hours, minutes = text.split(":")
    return int(hours) * 60 + int(minutes)


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)


def check_sampling(coll: CollectionEntry) -> list[Diagnostic]:
    """Query sampling refuses the internal databases (configureQueryAnalyzer's
    validateNamespace: "Cannot run against an internal collection") and system
    collections; the (0, 50] range is the schema's."""
    if coll.model.sampling is None:
        return []
    db, _, name = coll.namespace.partition(".")
    if db in INTERNAL_DATABASES or name.startswith("system."):
        what = "system collection" if db not in INTERNAL_DATABASES else f"{db} database"
        return [
            _error(
                "ZP601",
                coll.at("sampling", key=True),
                f"{coll.namespace}: queries of the {what} cannot be sampled",
                "remove `sampling` from this collection",
            )
        ]
    return []
