"""Why a drain in flight does not progress, read from the live cluster alone (no policy):
the blockers status, metrics and analyze report for each draining shard. The planner names
its own, with the policy's zones (plan/shard_removal.py). Pure: whether the balancer's
window is open now is an input (the caller reads it in the config server's time zone)."""

from __future__ import annotations

from zonectl.model.cluster import ClusterState
from zonectl.model.keys import format_value
from zonectl.model.shard_lifecycle import Blocker, ShardDrain

JUMBO_NAMED = 3  # jumbo chunks named in the message; the rest are counted


def drain_blockers(
    state: ClusterState, drain: ShardDrain, window_open: bool | None = None
) -> tuple[Blocker, ...]:
    """Balancer off, window closed (`window_open` False), jumbo chunks, and a zone of the
    drained collections' ranges with no other non-draining shard: only while chunks remain
    on the shard (unsharded data and primaries move by command, never by the balancer)."""
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
    elif window_open is False:
        window = balancer.active_window or {}
        when = (
            "its day-of-week windows are"
            if balancer.day_windows
            else f"its window {window.get('start')}-{window.get('stop')} is"
        )
        out.append(
            Blocker(
                "outside-window",
                f"the balancer's {when} closed: the {chunks} left on {drain.shard} wait "
                "for it to open",
                "wait for the window, widen it, or move them with `zonectl apply --migrate`",
            )
        )
    if drain.jumbo:
        out.append(_jumbo(drain))
    out += _no_recipient(state, drain)
    return tuple(out)


def _jumbo(drain: ShardDrain) -> Blocker:
    """The balancer skips a jumbo chunk on a draining shard whatever attemptToBalanceJumbo
    Chunks says (balancer_policy.cpp, the draining loop: `if (chunk.isJumbo()) {
    numJumboChunks++; continue; }`, then warning 21890), so the drain never finishes."""
    named = [f"{j.namespace} min {format_value(j.min)}" for j in drain.jumbo[:JUMBO_NAMED]]
    more = len(drain.jumbo) - len(named)
    listed = ", ".join(named) + (f" and {more} more" if more > 0 else "")
    return Blocker(
        "jumbo",
        f"{_plural(len(drain.jumbo), 'jumbo chunk')} on {drain.shard} the balancer never "
        f"moves off a draining shard: {listed}",
        "`zonectl apply --migrate --force-jumbo`, split the chunk, or reshard the collection",
    )


def stranded_zones(state: ClusterState, drain: ShardDrain) -> list[tuple[str, str, list[str]]]:
    """(zone, a namespace of its ranges, its other shards) for each zone with ranges in a
    collection the shard still holds chunks of, whose every other shard is draining (or
    that no other shard carries): `isShardSuitableReceiver` finds no recipient, and the
    balancer logs it only at debug level (reference §3)."""
    first: dict[str, str] = {}
    for c in drain.collections:
        for r in state.ranges_of(c.namespace):
            first.setdefault(r.zone, c.namespace)
    out = []
    for zone, ns in sorted(first.items()):
        carriers = [s for s in state.shards if zone in s.zones and s.id != drain.shard]
        if not any(not s.draining for s in carriers):
            out.append((zone, ns, [s.id for s in carriers]))
    return out


def _no_recipient(state: ClusterState, drain: ShardDrain) -> list[Blocker]:
    out = []
    for zone, ns, others in stranded_zones(state, drain):
        why = (
            f"its other shards ({', '.join(others)}) are draining"
            if others
            else "no other shard has it"
        )
        out.append(
            Blocker(
                "no-recipient",
                f"zone {zone} (ranges of {ns}) has no shard to take {drain.shard}'s chunks "
                f"in it: {why}",
                f"give zone {zone} to an active shard (under `shards:` in the policy, or "
                "addShardToZone)",
            )
        )
    return out


def _plural(n: int, word: str) -> str:
    return f"{n:,} {word}" if n == 1 else f"{n:,} {word}s"
