"""A plan restricted to firehose windows (what `zonectl rotate` runs), the drift it leaves
alone, and the checks that make a window swap safe to send. Pure: no clock, no I/O."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bson import Int64, ObjectId
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.model.bsontypes import type_name
from zonectl.model.cluster import ClusterState
from zonectl.model.desired import DesiredState, Firehose
from zonectl.model.keys import compare, format_value, sort_key, type_rank
from zonectl.plan.ops import Op, format_range
from zonectl.plan.plan import Plan
from zonectl.plan.planner import make_plan

# Epoch values below this are read as seconds, above as milliseconds: 1e11 s is the year
# 5138 and 1e11 ms is March 1973, so no plausible timestamp is ambiguous.
_SECONDS_LIMIT = 10**11


@dataclass(frozen=True)
class WindowMove:
    """One namespace's window swap: the live boundary, the new one, and the range ops."""

    ns: str
    old: Any  # boundary value found in config.tags (None: no window was set)
    new: Any
    ops: tuple[Op, ...]

    def describe(self) -> str:
        return f"{self.ns}: window {_show(self.old)} -> {_show(self.new)}"

    @property
    def backwards(self) -> bool:
        """The new boundary is earlier than the live one: the newest data would leave the
        hot zone's range and older data come back into it. Values of different BSON types
        are not ordered in time (a changed `type` is key_type_problem's to report)."""
        if self.old is None or self.new is None:
            return False
        return type_rank(self.old) == type_rank(self.new) and compare(self.new, self.old) < 0

    def shown(self, which: str) -> str:
        """`old` or `new` as the operator reads it (an ObjectId with its creation second)."""
        return _show(self.old if which == "old" else self.new)


def _show(value: Any) -> str:
    if value is None:
        return "(none)"
    if isinstance(value, ObjectId):  # the creation second is what the operator reads
        return f"{format_value(value)} ({value.generation_time:%Y-%m-%dT%H:%M:%SZ})"
    return format_value(value)


@dataclass(frozen=True)
class WindowPlan:
    plan: Plan  # only window range ops; its fingerprint covers the firehose namespaces
    moves: tuple[WindowMove, ...]  # one per namespace whose window changes
    left: tuple[Op, ...] = ()  # pattern namespaces' ops only `zonectl apply` runs (drift)


def window_namespaces(desired: DesiredState) -> list[str]:
    return sorted(ns for ns, cp in desired.collections.items() if cp.firehose is not None)


def window_desired(desired: DesiredState) -> DesiredState:
    """The policy cut to its firehose collections and without balancer settings, so that a
    problem in an unrelated collection never blocks the daily rotation."""
    keep = {ns: cp for ns, cp in desired.collections.items() if cp.firehose is not None}
    return dataclasses.replace(desired, collections=keep, balancer=None)


def is_window_op(op: Op, desired: DesiredState) -> bool:
    """A range op of a firehose namespace in its hot or cold zone."""
    change = op.range_change()
    if change is None:
        return False
    cp = desired.collections.get(change.ns)
    fh = cp.firehose if cp is not None else None
    return fh is not None and change.zone in {fh.hot, fh.cold}


def make_window_plan(
    desired: DesiredState,
    actual: ClusterState,
    *,
    boundaries: Mapping[str, Any],
    at: dt.datetime,
    valid_until: dt.datetime | None = None,
) -> WindowPlan:
    """The window range ops at `at` (removals, then additions, per namespace, as the planner
    orders them) and a WindowMove per namespace. Memberships, balancing switches and other
    zones' ranges are not in it: they are drift for `zonectl apply`."""
    cut = window_desired(desired)
    full = make_plan(cut, actual, boundaries=boundaries, at=at, namespaces=list(cut.collections))
    ops = tuple(op for op in full.ops if is_window_op(op, desired))
    plan = dataclasses.replace(full, ops=ops, valid_until=valid_until)
    moves = []
    for ns in window_namespaces(desired):
        ns_ops = tuple(op for op in ops if op.namespace == ns)
        if ns_ops:
            fh = desired.collections[ns].firehose
            assert fh is not None
            moves.append(WindowMove(ns, live_boundary(actual, ns, fh), boundaries.get(ns), ns_ops))
    return WindowPlan(plan, tuple(moves))


def live_boundary(actual: ClusterState, ns: str, fh: Firehose) -> Any:
    """The boundary the live window has: the min of its hot range (else the max of its cold
    range) on the firehose field; None when neither exists."""
    for r in actual.ranges_of(ns):
        if r.zone == fh.hot and _is_top(r.max):
            return r.min.get(fh.field)
    for r in actual.ranges_of(ns):
        if fh.cold and r.zone == fh.cold and isinstance(r.min.get(fh.field), MinKey):
            return r.max.get(fh.field)
    return None


def backward_windows(
    desired: DesiredState, actual: ClusterState, boundaries: Mapping[str, Any]
) -> list[str]:
    """A warning per firehose window the plan would move to an earlier boundary than the
    live one, for `plan` and `apply` (which show it; `rotate` refuses it)."""
    out = []
    for ns in window_namespaces(desired):
        fh = desired.collections[ns].firehose
        assert fh is not None
        move = WindowMove(ns, live_boundary(actual, ns, fh), boundaries.get(ns), ())
        if move.backwards:
            out.append(
                f"{ns}: the window boundary moves back from {move.shown('old')} to "
                f"{move.shown('new')}: the live window is ahead of this instant (a `rotate "
                "--at` in the future, or a clock that jumped); `zonectl rotate` refuses this "
                "without --allow-backwards"
            )
    return out


def _is_top(bound: Mapping[str, Any]) -> bool:
    return all(isinstance(v, MaxKey) for v in bound.values())


def drift_ops(full: Plan, desired: DesiredState) -> list[Op]:
    """What a full plan would do that rotate leaves alone."""
    return [op for op in full.ops if not is_window_op(op, desired)]


def window_problems(window: WindowPlan, actual: ClusterState) -> list[str]:
    """Why sending the window ops would fail or leave a zone with nowhere to go, checked
    before anything is sent:

    * an added range's zone must exist, i.e. some shard carries it (ZoneNotFound otherwise,
      reference §1.5 (b)); rotate does not change memberships, so it must exist already;
    * an added range must not overlap any live range that stays (RangeOverlapConflict,
      §1.5 (d)): removals run first, so only ranges rotate does not remove can collide,
      e.g. another zone's range that only `zonectl apply` would remove.
    """
    problems: list[str] = []
    live_zones = actual.zones()
    for move in window.moves:
        ranged = [c for op in move.ops if (c := op.range_change()) is not None]
        removed = {(sort_key(c.min), sort_key(c.max), c.zone) for c in ranged if not c.adds}
        staying = [
            r
            for r in actual.ranges_of(move.ns)
            if (sort_key(r.min), sort_key(r.max), r.zone) not in removed
        ]
        for new in ranged:
            if not new.adds:
                continue
            if new.zone not in live_zones:
                problems.append(
                    f"{move.ns}: zone {new.zone} has no shard in the cluster, so the window "
                    f"{format_range(new.min, new.max)} would have nowhere to live; add a shard "
                    f"to zone {new.zone} (list it under `shards` and run `zonectl apply`)"
                )
                continue
            for r in staying:
                if compare(new.min, r.max) < 0 and compare(r.min, new.max) < 0:
                    problems.append(
                        f"{move.ns}: the new window {format_range(new.min, new.max)} of zone "
                        f"{new.zone} overlaps the live range {format_range(r.min, r.max)} of "
                        f"zone {r.zone}, which rotate does not remove; run `zonectl apply`"
                    )
    return problems


def key_type_problem(ns: str, fh: Firehose, sample: Any) -> str | None:
    """Whether a live shard-key value of the firehose field (from a chunk bound) has the
    BSON type the policy's `type` encodes boundaries as. A date boundary against ObjectId
    keys sorts below every one of them (BSON orders by type first), so the whole
    collection would fall into the hot zone: refused, never sent."""
    if sample is None or isinstance(sample, MinKey | MaxKey):
        return None  # one chunk only: nothing to compare with
    found = type_name(sample)
    expected = {
        "date": isinstance(sample, dt.datetime),
        "objectId": isinstance(sample, ObjectId),
        "epochSeconds": _is_number(sample) and abs(sample) < _SECONDS_LIMIT,
        "epochMillis": _is_number(sample) and abs(sample) >= _SECONDS_LIMIT,
    }
    if expected.get(fh.type, False):
        return None
    if fh.type in ("epochSeconds", "epochMillis") and _is_number(sample):
        found = f"numbers like {sample!r}, which look like {_type_hint(sample)}"
    else:
        found = f"{found} values (e.g. {format_value(sample)})"
    return (
        f"{ns}: firehose type {fh.type} does not match the live shard key: chunk bounds "
        f"of field {fh.field!r} hold {found}; set `type: {_suggest(sample)}`"
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float | Int64) and not isinstance(value, bool)


def _suggest(value: Any) -> str:
    if isinstance(value, dt.datetime):
        return "date"
    if isinstance(value, ObjectId):
        return "objectId"
    if _is_number(value):
        return "epochSeconds" if abs(value) < _SECONDS_LIMIT else "epochMillis"
    return "date"


def _type_hint(value: Any) -> str:
    return "epoch seconds" if abs(value) < _SECONDS_LIMIT else "epoch milliseconds"


def with_pattern_ops(
    window: WindowPlan,
    desired: DesiredState,
    actual: ClusterState,
    *,
    origins: Mapping[str, str],
    notes: tuple[str, ...],
    boundaries: Mapping[str, Any],
    at: dt.datetime,
) -> WindowPlan:
    """Add what pattern rules ask of the namespaces they matched (a rotate run places a
    collection created since the last run): their range, moveCollection and balancing ops,
    never memberships or shard-key changes, which stay `zonectl apply`'s (and so do the
    range ops of a namespace with a range in a zone no shard carries yet) (a cron job must
    not start an hours-long resharding, nor a blocked key change stop the rotation).
    Converged namespaces add nothing, so a run with nothing new and no window due still
    sends no write."""
    if not origins:
        return window
    names = sorted(origins)
    cut = dataclasses.replace(
        desired, collections={ns: desired.collections[ns] for ns in names}, balancer=None
    )
    full = make_plan(
        cut, actual, boundaries=boundaries, at=at, namespaces=names, origins=origins, notes=notes
    )
    # A range in a zone no shard carries yet waits for the membership apply adds (the server
    # answers ZoneNotFound), and so do the other range ops of its namespace.
    live_zones = actual.zones()
    ranged = [c for op in full.ops if (c := op.range_change()) is not None]
    waiting = {c.ns for c in ranged if c.adds and c.zone not in live_zones}

    def apply_only(op: Op) -> bool:
        """Ops a rotate run leaves to `zonectl apply` (each op kind says: memberships and
        key changes), and the range ops of a namespace waiting for a membership."""
        return op.apply_only or (op.phase == "range" and op.namespace in waiting)

    have = window.plan.ops  # compared by value: range ops hold dict bounds, not hashable
    extra = tuple(op for op in full.ops if not apply_only(op) and op not in have)
    left = tuple(op for op in full.ops if apply_only(op))
    plan = dataclasses.replace(
        window.plan,
        ops=window.plan.ops + extra,
        origins=dict(origins),
        notes=full.notes,
        warnings=window.plan.warnings + full.warnings,
    )
    return WindowPlan(plan, window.moves, left)
