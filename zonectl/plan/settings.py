"""Planning the balancer settings table: diff each row the policy names against what MongoDB
stores, behind the row's version gate; rows the policy does not name are reported as
unmanaged and never touched.

Order (reference balancer-settings §3.1): on 7.0+ balancerStart/balancerStop also write
`automerge.enabled`, so rows the switch writes are planned after SetBalancerEnabled and
diffed against the value the switch leaves; every other cluster row goes before it, so a
balancer being started runs with its new settings. A collection's rows follow the table's
order (its chunk size before a defragmentation that measures chunks against it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.diagnostics import Position
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState
from zonectl.plan.ops import Op, SetBalancerEnabled, SetBalancerWindow
from zonectl.plan.plan import Unmanaged
from zonectl.plan.ranges import Problems
from zonectl.plan.setting_ops import SetClusterSetting, SetCollectionSetting


def has_gate(setting: Setting, actual: ClusterState) -> bool:
    """Whether the cluster's feature release (binary and FCV) has the setting."""
    return setting.since is None or actual.features >= setting.since


def _gated(
    setting: Setting, actual: ClusterState, where: Position | None, what: str, problems: Problems
) -> bool:
    if has_gate(setting, actual):
        return False
    problems.warn(
        where,
        f"`{what}` needs MongoDB {setting.since_text} (binary and feature compatibility "
        f"version); this cluster runs {actual.features_text or 'an older version'}: "
        "nothing is written",
    )
    return True


def cluster_setting_ops(
    desired: DesiredState, actual: ClusterState, switch: bool | None, problems: Problems
) -> tuple[list[Op], list[Op]]:
    """(before, after) the balancer switch; `switch` is the state SetBalancerEnabled sets,
    None when the plan has no such op."""
    policy = desired.balancer
    if policy is None:
        return [], []
    before: list[Op] = []
    after: list[Op] = []
    for r in CLUSTER:
        wanted = policy.settings.get(r.key)
        if wanted is None or _gated(r, actual, wanted.position, f"balancer.{r.key}", problems):
            continue
        current = r.live_value(actual.settings.get(r.doc))
        if r.set_by_balancer_switch and switch is not None and actual.features >= (7, 0):
            current = switch  # what balancerStart/balancerStop leave (§3.1)
        if current == wanted.value:
            continue
        op = SetClusterSetting(r.key, wanted.value, current)
        (after if r.set_by_balancer_switch else before).append(op)
    return before, after


def collection_setting_ops(
    desired: DesiredState, actual: ClusterState, ns: str, problems: Problems, notes: list[str]
) -> list[Op]:
    cp = desired.collections[ns]
    live = actual.collections.get(ns)
    ops: list[Op] = []
    for r in COLLECTION:
        wanted = cp.settings.get(r.key)
        if wanted is None:
            continue
        if live is None:
            problems.warn(wanted.position, f"{ns} is not sharded: `{r.key}` is ignored")
            continue
        if _gated(r, actual, wanted.position, f"{ns} {r.key}", problems):
            continue
        current = r.live_value(live.settings)
        if r.once and wanted.value is False:
            # Stop one running: sent once; MongoDB then marks it `finished` until the
            # balancer's next round clears the flag (§5.4), which the plan waits for.
            if current and not stopping(live.settings):
                ops.append(SetCollectionSetting(ns, r.key, False, True, live.uuid))
            elif current:
                notes.append(f"{ns}: {r.key} stopping, {STOPPING}")
            continue
        if r.once:
            if current:
                shown = progress(live.settings, live.balancer_status)
                notes.append(f"{ns}: {r.key} running, {shown}")
            elif (ns, r.key) not in actual.once_done:
                ops.append(SetCollectionSetting(ns, r.key, wanted.value, None, live.uuid))
            continue
        if current != wanted.value:
            ops.append(SetCollectionSetting(ns, r.key, wanted.value, current))
    return ops


# abortCollectionDefragmentation persists `finished` (7.0+; 6.x `splitChunks`, a phase
# 6.0.3+ skips): the flag goes at the balancer's next round (balancer-settings §5.4).
_ABORTED = ("finished", "splitChunks")
STOPPING = "asked to stop; the balancer clears it at its next round (while on and in its window)"


def stopping(fields: Mapping[str, Any]) -> bool:
    """A defragmentation already asked to stop (its persisted phase is the abort's)."""
    return fields.get("defragmentationPhase") in _ABORTED


def progress(fields: Mapping[str, Any], status: Mapping[str, Any] | None) -> str:
    """A defragmentation's phase and progress as balancerCollectionStatus reports them
    (§5.3): `details.currentPhase` and `details.progress.remainingChunksToProcess`."""
    if stopping(fields):
        return STOPPING
    details = (status or {}).get("details") or {}
    phase = details.get("currentPhase") or fields.get("defragmentationPhase")
    remaining = (details.get("progress") or {}).get("remainingChunksToProcess")
    if not phase or phase == "none":
        return "phase not started yet (the balancer runs it while on and inside its window)"
    text = f"phase {phase}"
    if remaining is not None:
        text += f", {remaining} chunk(s) left in this phase"
    return text


def unmanaged_settings(desired: DesiredState, actual: ClusterState) -> list[Unmanaged]:
    """Settings set apart from MongoDB's default that the policy does not name: shown, left
    alone (a stored default says nothing an operator needs to know)."""
    named = desired.balancer.settings if desired.balancer is not None else {}
    out = [
        Unmanaged("setting", f"balancer.{r.key}", r.shown(r.live_value(actual.settings.get(r.doc))))
        for r in CLUSTER
        if r.key not in named and r.is_set_apart(actual.settings.get(r.doc))
    ]
    for ns in sorted(desired.collections):
        live = actual.collections.get(ns)
        if live is None:
            continue
        cp = desired.collections[ns]
        out += [
            Unmanaged("setting", f"{ns} {r.key}", r.shown(r.live_value(live.settings)))
            for r in COLLECTION
            if r.key not in cp.settings and not r.once and r.is_set_apart(live.settings)
        ]
    return out


def balancer_ops(desired: DesiredState, actual: ClusterState, problems: Problems) -> list[Op]:
    """The balancer's ops in the order above: its window and the rows before the switch,
    the switch, then the rows the switch writes."""
    policy, live = desired.balancer, actual.balancer
    if policy is None:
        return []
    switch = policy.enabled if policy.enabled not in (None, live.enabled) else None
    before, after = cluster_setting_ops(desired, actual, switch, problems)
    ops: list[Op] = []
    live_window = (
        (live.active_window["start"], live.active_window["stop"]) if live.active_window else None
    )
    if policy.manage_window:
        want = policy.active_window
        want_pair = (want.start, want.stop) if want is not None else None
        if want_pair != live_window:
            start, stop = want_pair if want_pair else (None, None)
            ops.append(SetBalancerWindow(start, stop, live_window))
    ops += before
    if switch is not None:
        ops.append(SetBalancerEnabled(switch, live.enabled))
    return ops + after
