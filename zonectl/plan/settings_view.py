"""The balancer settings as status shows them, one line per setting the cluster stores or the
policy names: its live value, and (with a policy) whether it is managed and matches, drifts,
or waits for a release the cluster lacks. Read from the same table rows as the planner."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.model.cluster import ClusterState, is_mongodb_own
from zonectl.model.desired import DesiredState, SettingValue
from zonectl.plan.settings import has_gate, progress, stopping


@dataclass(frozen=True)
class SettingLine:
    name: str  # "balancer.chunkSizeMB", "app.events chunkSizeMB"
    live: str  # the stored value as the policy would say it
    state: str  # "set" (no policy given) | "unmanaged" | "managed" | "drift" | "needs 7.0+"
    wanted: str | None = None  # the policy's value, when it names the setting
    stored: str = ""  # where MongoDB keeps it
    namespace: str | None = None  # None: the cluster's setting
    key: str = ""  # the policy key

    @property
    def drifts(self) -> bool:
        return self.state == "drift"


def setting_lines(actual: ClusterState, desired: DesiredState | None) -> tuple[SettingLine, ...]:
    named = desired.balancer.settings if desired is not None and desired.balancer else {}
    lines = [
        line
        for r in CLUSTER
        if (
            line := _line(
                r, f"balancer.{r.key}", actual.settings.get(r.doc), named, actual, desired
            )
        )
    ]
    for ns in sorted(actual.collections):
        live = actual.collections[ns]
        cp = desired.collections.get(ns) if desired is not None else None
        if cp is None and is_mongodb_own(ns):
            continue  # config.system.sessions' own chunk size is MongoDB's, not unmanaged
        wanted = cp.settings if cp is not None else {}
        for r in COLLECTION:
            if r.once and live.settings.get(r.field):
                shown = f"running, {progress(live.settings, live.balancer_status)}"
                state = "managed" if r.key in wanted else "set"
                want = wanted.get(r.key)
                if want is not None and want.value is False and not stopping(live.settings):
                    state = "drift"  # the policy says none runs: the plan stops it
                shown_wanted = r.shown(want.value) if want is not None else None
                lines.append(
                    SettingLine(f"{ns} {r.key}", shown, state, shown_wanted, "", ns, r.key)
                )
            elif not r.once and (
                line := _line(r, f"{ns} {r.key}", live.settings, wanted, actual, desired)
            ):
                lines.append(line)
    return tuple(lines)


def _line(
    r: Setting,
    name: str,
    stored: Mapping[str, Any] | None,
    named: Mapping[str, SettingValue],
    actual: ClusterState,
    desired: DesiredState | None,
) -> SettingLine | None:
    wanted = named.get(r.key)
    if wanted is None and not r.is_stored(stored):
        return None
    ns = None if r.scope == "cluster" else name.rsplit(" ", 1)[0]
    live = r.live_value(stored)
    shown = r.shown(live)
    if wanted is None:
        state = "set" if desired is None else "unmanaged"
        return SettingLine(name, shown, state, None, r.stored_text, ns, r.key)
    if not has_gate(r, actual):
        state = f"needs MongoDB {r.since_text}"
    else:
        state = "managed" if live == wanted.value else "drift"
    return SettingLine(name, shown, state, r.shown(wanted.value), r.stored_text, ns, r.key)
