"""The `Setting` row and the few ways MongoDB stores and writes one (reference
balancer-settings.md §1-§5): a field of a `config.settings` document written by an upsert
through mongos, or a `config.collections` field written by `configureCollectionBalancing`."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

Scope = Literal["cluster", "collection"]
MB = 1024 * 1024
# mongosh's sh.startAutoMerger and friends write with this concern (reference §3.1).
MAJORITY = {"w": "majority", "wtimeout": 60_000}


def identity(value: Any) -> Any:
    return value


def on_off(value: Any) -> str:
    return "on" if value else "off"


@dataclass(frozen=True)
class Setting:
    """One managed setting. `doc` is the config.settings `_id` (cluster scope, "" for a
    collection); `field` the field MongoDB stores it in. `absent` is the policy value that
    means the same as nothing stored (None: no policy value does)."""

    key: str
    scope: Scope
    annotation: Any  # the pydantic type, bounds included: validation and JSON Schema
    summary: str  # what it does, one sentence (schema description, docs)
    doc: str
    field: str
    since: tuple[int, int] | None  # first feature release (binary and FCV) that has it
    example: Any
    absent: Any = None
    to_stored: Callable[[Any], Any] = identity
    from_stored: Callable[[Any], Any] = identity
    show: Callable[[Any], str] = str
    command_field: str = ""  # collection scope: the configureCollectionBalancing field
    # balancerStart/balancerStop (7.0+) write it too: planned after the switch (§3.1).
    set_by_balancer_switch: bool = False
    once: bool = False  # a one-shot action (defragmentation), not a steady state
    notes: str = ""  # docs only: caveats, per-version behaviour
    # How each command that reads the cluster reads this row, or "not relevant because ...":
    # a setting is done when every reader has it (tests/balancer_settings/test_readers.py).
    forecast: str = ""  # plan's and status's time-to-compliance forecast
    status: str = ""  # `zonectl status` (text, json, html)
    metrics: str = ""  # the OpenMetrics families
    twin: str = ""  # `zonectl twin` capture, its cluster file, and the sandbox loading it

    @property
    def readers(self) -> dict[str, str]:
        return {
            "forecast": self.forecast,
            "status": self.status,
            "metrics": self.metrics,
            "twin": self.twin,
        }

    @property
    def since_text(self) -> str:
        if self.since is None:
            return "every supported release"
        return f"{self.since[0]}.{self.since[1]}+"

    @property
    def stored_text(self) -> str:
        """Where MongoDB keeps it, as the docs and status say it."""
        if self.scope == "cluster":
            return f'config.settings {{_id: "{self.doc}"}} `{self.field}`'
        return f"config.collections `{self.field}`"

    def shown(self, value: Any) -> str:
        """A policy value (None: nothing stored) as plan and status print it."""
        if value is None:
            return "unset (MongoDB's default)"
        return self.show(value)

    def command(self, ns: str | None, value: Any) -> tuple[str, dict[str, Any]]:
        """(database, command document) that stores `value`."""
        if self.scope == "collection":
            return "admin", {"configureCollectionBalancing": ns, self.command_field: value}
        stored = self.to_stored(value)
        update: dict[str, Any]
        if stored is None:  # the value MongoDB keeps as no field at all
            update = {"$unset": {self.field: True}}
        else:
            update = {"$set": {self.field: stored}}
        return "config", {
            "update": "settings",
            "updates": [{"q": {"_id": self.doc}, "u": update, "upsert": True}],
            "writeConcern": dict(MAJORITY),
        }

    def live_value(self, stored: Mapping[str, Any] | None) -> Any:
        """The policy value the stored document (or collection entry) holds: `absent`
        when the field is missing."""
        if stored is None or self.field not in stored:
            return self.absent
        return self.from_stored(stored[self.field])

    def is_stored(self, stored: Mapping[str, Any] | None) -> bool:
        return stored is not None and self.field in stored

    def is_set_apart(self, stored: Mapping[str, Any] | None) -> bool:
        """Stored with a value that behaves otherwise than nothing stored: a choice someone
        made (a 7.0 collection's `enableAutoMerge: true` is MongoDB's default, not one)."""
        if not self.is_stored(stored):
            return False
        return self.absent is None or self.live_value(stored) != self.absent


_REGISTERED: list[Setting] = []
_TABLE_BUILT = False


def register(setting: Setting) -> Setting:
    """Add a row declared outside the table module (its own module, a test's fixture): the
    table (zonectl.balancer_settings.table) puts it after its own rows of that scope, and
    every reader follows, as it does for the table's rows. Rows register before the table is
    built, which is when `zonectl.balancer_settings.table` is first imported: the policy
    schema, the planner and the readers take the rows then, once."""
    if _TABLE_BUILT:
        raise RuntimeError(
            f"balancer setting {setting.scope}.{setting.key} registered after the settings "
            "table was built: register it before zonectl.balancer_settings.table is imported"
        )
    if any((r.scope, r.key) == (setting.scope, setting.key) for r in _REGISTERED):
        raise ValueError(f"{setting.scope} balancer setting {setting.key!r} registered twice")
    _REGISTERED.append(setting)
    return setting


def registered(scope: Scope) -> tuple[Setting, ...]:
    """The rows `register` took for `scope`; from now on it takes none (the table's build)."""
    global _TABLE_BUILT
    _TABLE_BUILT = True
    return tuple(r for r in _REGISTERED if r.scope == scope)
