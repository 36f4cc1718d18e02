"""The two op kinds that carry any row of the balancer settings table: one for the cluster
(a field of a config.settings document) and one for a collection (configureCollectionBalancing).
The row says how the value is written and shown, so a new setting needs no new op."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import row
from zonectl.plan.op_base import Format, Op, Reply


def _frozen(value: Any) -> Any:
    """Lists as tuples (op fields are compared and saved; a saved plan loads lists as tuples)."""
    if isinstance(value, list | tuple):
        return tuple(_frozen(v) for v in value)
    if isinstance(value, Mapping):
        return {k: _frozen(v) for k, v in value.items()}
    return value


def _thawed(value: Any) -> Any:
    """The value as MongoDB stores it: tuples back to arrays."""
    if isinstance(value, list | tuple):
        return [_thawed(v) for v in value]
    if isinstance(value, Mapping):
        return {k: _thawed(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class SetClusterSetting(
    Op,
    kind="set_cluster_setting",
    counts_as="setting",
    phase="last",
    idempotent=True,  # an upsert that $sets (or $unsets) one field
    database="config",
):
    """One cluster-wide balancer setting: an upsert of its config.settings document through
    mongos, as mongosh's helpers and the manual do (reference balancer-settings §1-§3)."""

    key: str
    value: Any
    previous: Any = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _frozen(self.value))
        object.__setattr__(self, "previous", _frozen(self.previous))

    @property
    def row(self) -> Setting:
        return row("cluster", self.key)

    @property
    def reply(self) -> Reply:
        return "write"

    def describe(self) -> str:
        return f"set balancer {self.key} to {self.row.shown(_thawed(self.value))}"

    def line(self) -> str:
        r = self.row
        return f"{self.key} {r.shown(_thawed(self.previous))} -> {r.shown(_thawed(self.value))}"

    def callout(self, code: Format, prose: Format) -> str:
        # A balancer setting changes how every later migration runs: worth a glance.
        return f"balancer setting: {prose(self.describe())}"

    def command(self) -> dict[str, Any]:
        return self.row.command(None, _thawed(self.value))[1]

    def inverse(self) -> Op | None:
        if self.previous is None:
            return None
        return SetClusterSetting(self.key, self.previous, self.value)

    def setting_change(self) -> tuple[str | None, str, Any]:
        return None, self.key, _thawed(self.value)


@dataclass(frozen=True)
class SetCollectionSetting(Op, kind="set_collection_setting", counts_as="setting", phase="last"):
    """One balancer setting of a collection: configureCollectionBalancing (5.3+; reference
    balancer-settings §4). `uuid` names the collection a one-shot setting ran on."""

    ns: str
    key: str
    value: Any
    previous: Any = None
    uuid: Any = None

    @property
    def namespace(self) -> str:
        return self.ns

    @property
    def row(self) -> Setting:
        return row("collection", self.key)

    @property
    def idempotent(self) -> bool:  # type: ignore[override]
        """configureCollectionBalancing stores the value: twice is once; not a one-shot
        setting (it starts work in the balancer, and zonectl keeps a memo of the start)."""
        return not self.row.once or self.value is False  # a stop asked twice is one

    def describe(self) -> str:
        if self.row.once and self.value is False:
            return f"stop {self.key} of {self.ns}"
        if self.row.once:
            return f"start {self.key} of {self.ns}"
        return f"set {self.key} of {self.ns} to {self.row.shown(self.value)}"

    def line(self) -> str:
        r = self.row
        if r.once and self.value is False:
            return f"{self.key}: stop it (configureCollectionBalancing, it is running)"
        if r.once:
            return f"{self.key}: start it (configureCollectionBalancing, runs in the balancer)"
        return f"{self.key} {r.shown(self.previous)} -> {r.shown(self.value)}"

    def callout(self, code: Format, prose: Format) -> str:
        return f"{code(self.ns)}: {prose(self.describe())}"

    def command(self) -> dict[str, Any]:
        return self.row.command(self.ns, self.value)[1]

    def inverse(self) -> Op | None:
        if self.previous is None or self.row.once:
            return None
        return SetCollectionSetting(self.ns, self.key, self.previous, self.value)

    def setting_change(self) -> tuple[str | None, str, Any]:
        return self.ns, self.key, self.value

    def memo(self) -> dict[str, Any] | None:
        """What zonectl remembers once a one-shot setting has started (it must not start it
        again when the server has finished and forgotten it)."""
        if not self.row.once or self.value is False:
            return None
        return {"_id": f"{self.ns}|{self.key}", "ns": self.ns, "key": self.key, "uuid": self.uuid}
