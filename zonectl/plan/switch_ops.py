"""The balancer switches and schedule: balancing of one collection (noBalance), its query
sampling, the balancer on or off, and its active window. Each is counted as a setting."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from zonectl.plan.op_base import BALANCER_MAX_TIME_MS, MAJORITY, Format, Op, Reply, on_off


@dataclass(frozen=True)
class SetCollectionBalancing(
    Op,
    kind="set_collection_balancing",
    counts_as="setting",
    phase="last",
    idempotent=True,  # $set of one value, or the same enableBalancing
):
    """The noBalance switch: a plain update of config.collections through mongos, as the
    shell helpers sh.enableBalancing/sh.disableBalancing do (reference §3.5); with
    `by_command` (8.1+), configureCollectionBalancing enableBalancing, as mongosh does from FCV
    8.1 (balancer-settings §4.1; the manual says 8.0.10, mongosh gates on FCV 8.1)."""

    ns: str
    enabled: bool
    previous: bool | None = None
    by_command: bool = False

    @property
    def namespace(self) -> str:
        return self.ns

    @property
    def database(self) -> str:  # type: ignore[override]
        return "admin" if self.by_command else "config"

    def balancing_after(self) -> bool:
        return self.enabled

    @property
    def reply(self) -> Reply:
        # configureCollectionBalancing answers NamespaceNotSharded itself when no entry
        return "command" if self.by_command else "matched"

    def describe(self) -> str:
        return f"{'enable' if self.enabled else 'disable'} balancing of {self.ns}"

    def line(self) -> str:
        return f"balancing {on_off(self.previous)} -> {on_off(self.enabled)}"

    def callout(self, code: Format, prose: Format) -> str:
        if self.enabled:
            return ""
        ns = code(self.ns)
        return f"balancing of {ns} turned off: chunks stop moving, zones are not enforced"

    def command(self) -> dict[str, Any]:
        if self.by_command:
            return {"configureCollectionBalancing": self.ns, "enableBalancing": self.enabled}
        return {
            "update": "collections",
            "updates": [{"q": {"_id": self.ns}, "u": {"$set": {"noBalance": not self.enabled}}}],
            "writeConcern": dict(MAJORITY),
        }

    def inverse(self) -> Op | None:
        if self.previous is None:
            return None
        return SetCollectionBalancing(self.ns, self.previous, self.enabled, self.by_command)


@dataclass(frozen=True)
class SetQueryAnalyzer(Op, kind="set_query_analyzer", counts_as="setting", phase="last"):
    """Query sampling of one collection (7.0+): configureQueryAnalyzer with mode "full" and
    samplesPerSecond, or mode "off" (configure_query_analyzer_cmd.cpp). `rate` None: off;
    `previous` None: sampling was off (or never configured)."""

    ns: str
    rate: float | None
    previous: float | None = None

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        if self.rate is None:
            return f"turn query sampling off for {self.ns}"
        return f"sample {format_rate(self.rate)} queries/s of {self.ns}"

    def line(self) -> str:
        return f"query sampling {_samples(self.previous)} -> {_samples(self.rate)}"

    # No callout: query sampling on or off moves no data and enforces no zone; a setting,
    # listed with the changes, not a destructive change (docs/review.md counts these).

    def command(self) -> dict[str, Any]:
        if self.rate is None:
            return {"configureQueryAnalyzer": self.ns, "mode": "off"}
        return {"configureQueryAnalyzer": self.ns, "mode": "full", "samplesPerSecond": self.rate}

    def inverse(self) -> Op:
        return SetQueryAnalyzer(self.ns, self.previous, self.rate)


def format_rate(rate: float | None) -> str:
    """`5`, `0.5`; "off" for None."""
    if rate is None:
        return "off"
    return f"{rate:g}"


def _samples(rate: float | None) -> str:
    return "off" if rate is None else f"{format_rate(rate)} samples/s"


@dataclass(frozen=True)
class SetBalancerEnabled(
    Op,
    kind="set_balancer_enabled",
    counts_as="setting",
    phase="last",
    # Both upsert the same mode/stopped fields (reference §3.1); a second balancerStop waits
    # for the round again, nothing more.
    idempotent=True,
):
    """balancerStart/balancerStop; both write config.settings mode+stopped (reference §3.1)."""

    enabled: bool
    previous: bool | None = None

    def describe(self) -> str:
        return f"{'start' if self.enabled else 'stop'} the balancer"

    def line(self) -> str:
        return f"enabled {on_off(self.previous)} -> {on_off(self.enabled)}"

    def callout(self, code: Format, prose: Format) -> str:
        if self.enabled:
            return ""
        return "the balancer is stopped: no zone is enforced until it starts again"

    def command(self) -> dict[str, Any]:
        name = "balancerStart" if self.enabled else "balancerStop"
        return {name: 1, "maxTimeMS": BALANCER_MAX_TIME_MS}

    def inverse(self) -> Op | None:
        if self.previous is None:
            return None
        return SetBalancerEnabled(self.previous, self.enabled)


@dataclass(frozen=True)
class SetBalancerWindow(
    Op,
    kind="set_balancer_window",
    counts_as="setting",
    phase="last",
    idempotent=True,  # an upsert that $sets (or $unsets) one field
    database="config",
):
    """The activeWindow of config.settings {_id: "balancer"}; no server command sets it, the
    shell writes the document (reference §2.5). `start`/`stop` None removes the window."""

    start: str | None
    stop: str | None
    previous: tuple[str, str] | None = None

    @property
    def reply(self) -> Reply:
        return "write"

    def describe(self) -> str:
        if self.start is None:
            return "remove the balancer active window"
        return f"set the balancer active window to {self.start}-{self.stop}"

    def line(self) -> str:
        always = "none (always active)"
        before = f"{self.previous[0]}-{self.previous[1]}" if self.previous else always
        after = f"{self.start}-{self.stop}" if self.start else always
        return f"active window {before} -> {after}"

    def callout(self, code: Format, prose: Format) -> str:
        return f"balancer window changes: {prose(self.describe())}"

    def command(self) -> dict[str, Any]:
        update: dict[str, Any]
        if self.start is None:
            update = {"$unset": {"activeWindow": True}}
        else:
            update = {"$set": {"activeWindow": {"start": self.start, "stop": self.stop}}}
        return {
            "update": "settings",
            "updates": [{"q": {"_id": "balancer"}, "u": update, "upsert": True}],
            "writeConcern": dict(MAJORITY),
        }

    def inverse(self) -> Op:
        now = (self.start, self.stop) if self.start is not None and self.stop else None
        if self.previous is None:
            return SetBalancerWindow(None, None, now)
        return SetBalancerWindow(self.previous[0], self.previous[1], now)
