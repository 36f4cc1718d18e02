"""Why a shard's drain does not progress: the blockers' facts and their words (code, message,
fix), one set for the planner (plan/shard_removal.py, which passes what the policy knows: its
time zone and the zones once the plan ran) and for status, metrics and analyze (the live
cluster alone). Pure: the wall clock is an input."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple

from zonectl.model.balancer_window import in_active_window
from zonectl.model.byte_size import format_bytes
from zonectl.model.cluster import ClusterState, LiveBalancer
from zonectl.model.keys import format_value
from zonectl.model.shard_lifecycle import Blocker, ShardDrain

JUMBO_NAMED = 10  # jumbo chunks named in the message; the rest are counted


@dataclass(frozen=True)
class WallClock:
    """The instant a drain is judged at, in the config server's time zone (the zone its
    balancer window is read in), and that zone's name as shown."""

    local: dt.datetime
    zone: str


class Stranded(NamedTuple):
    """A zone of the drained shard's collections that no shard can receive chunks in."""

    zone: str
    namespace: str  # a namespace of its ranges
    others: tuple[str, ...]  # the zone's other shards: each draining or leaving, or none


def drain_blockers(
    state: ClusterState,
    drain: ShardDrain,
    clock: WallClock | None = None,
    stranded: Sequence[Stranded] | None = None,
) -> tuple[Blocker, ...]:
    """Balancer off, window closed at `clock` (not judged without one), jumbo chunks, and
    the zones without a recipient (`stranded`; the live ones, `stranded_zones`, when not
    given): only while chunks remain on the shard (unsharded data and primaries move by
    command, never by the balancer)."""
    if not drain.chunks:
        return ()
    out: list[Blocker] = []
    chunks = _plural(drain.chunks, "chunk")
    balancer = state.balancer
    if not balancer.enabled:
        how = "stopped" if balancer.stopped else f"mode {balancer.mode}"
        out.append(
            Blocker(
                "balancer-off",
                f"the balancer is off ({how}): the {chunks} left on {drain.shard} do not move",
                "turn the balancer on (`balancer: {enabled: true}` in the policy, or "
                "sh.startBalancer()), or move them with `zonectl apply --migrate`",
            )
        )
    elif clock is not None and (closed := window_closed(balancer, clock)):
        out.append(
            Blocker(
                "outside-window",
                f"{closed}: the {chunks} left on {drain.shard} wait for it to open",
                "wait for the window, widen it, or move them with `zonectl apply --migrate`",
            )
        )
    if drain.jumbo:
        out.append(_jumbo(drain))
    zones = stranded_zones(state, drain) if stranded is None else stranded
    out += [_no_recipient(state, drain, s) for s in zones]
    return tuple(out)


def window_closed(balancer: LiveBalancer, clock: WallClock) -> str:
    """How the balancer's window reads when it is closed at `clock`; "" when it is open or
    absent."""
    if in_active_window(balancer.active_window, clock.local, balancer.day_windows):
        return ""
    now = f"{clock.local:%A %H:%M} ({clock.zone})"
    if balancer.day_windows:
        shown = ", ".join(
            f"{d.get('day')} {d.get('start')}-{d.get('stop')}" for d in balancer.day_windows
        )
        return f"the balancer's day-of-week windows ({shown}) are closed on {now}"
    window = balancer.active_window or {}
    return f"the balancer's window {window.get('start')}-{window.get('stop')} is closed at {now}"


def _jumbo(drain: ShardDrain) -> Blocker:
    """The balancer skips a jumbo chunk on a draining shard whatever attemptToBalanceJumbo
    Chunks says (balancer_policy.cpp, the draining loop: `if (chunk.isJumbo()) {
    numJumboChunks++; continue; }`, then warning 21890), so the drain never finishes."""
    named = [
        f"{j.namespace} [{format_value(j.min)}, {format_value(j.max)}) "
        f"({format_bytes(j.bytes) if j.bytes is not None else 'size unknown'})"
        for j in drain.jumbo[:JUMBO_NAMED]
    ]
    more = len(drain.jumbo) - len(named)
    listed = "; ".join(named) + (f"; and {more} more" if more > 0 else "")
    return Blocker(
        "jumbo",
        f"{_plural(len(drain.jumbo), 'jumbo chunk')} on {drain.shard} the balancer skips while "
        f"draining: {listed}",
        "`zonectl apply --migrate --force-jumbo`, split the chunk, or reshard the collection",
    )


def stranded_zones(state: ClusterState, drain: ShardDrain) -> list[Stranded]:
    """Each zone with ranges in a collection the shard still holds chunks of, whose every
    other shard is draining (or that no other shard carries): `isShardSuitableReceiver`
    finds no recipient, and the balancer logs it only at debug level (reference §3)."""
    first: dict[str, str] = {}
    for c in drain.collections:
        for r in state.ranges_of(c.namespace):
            first.setdefault(r.zone, c.namespace)
    out = []
    for zone, ns in sorted(first.items()):
        carriers = [s for s in state.shards if zone in s.zones and s.id != drain.shard]
        if not any(not s.draining for s in carriers):
            out.append(Stranded(zone, ns, tuple(s.id for s in carriers)))
    return out


def _no_recipient(state: ClusterState, drain: ShardDrain, stranded: Stranded) -> Blocker:
    zone, others = stranded.zone, stranded.others
    if not others:
        why = "no other shard has it"
    else:
        draining = all((s := state.shard(o)) is not None and s.draining for o in others)
        verb = "is" if len(others) == 1 else "are"
        state_of = "draining" if draining else "removed by the policy or draining"
        why = f"its other {_plural_word(len(others), 'shard')} ({', '.join(others)}) {verb} "
        why += state_of
    return Blocker(
        "no-recipient",
        f"zone {zone} (ranges of {stranded.namespace}) has no shard that can receive "
        f"{drain.shard}'s chunks in it: {why}",
        f"give zone {zone} to an active shard (under `shards:` in the policy, or addShardToZone)",
    )


def _plural(n: int, word: str) -> str:
    return f"{n:,} {_plural_word(n, word)}"


def _plural_word(n: int, word: str) -> str:
    return word if n == 1 else f"{word}s"
