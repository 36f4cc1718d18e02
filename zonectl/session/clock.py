"""rotate's guards on time: this host's clock against the cluster's (hello.localTime), and
no window boundary moved backwards unless asked. A clock that jumped (a bad NTP sync, a
restored VM) or a rotation run ahead with --at must not move data between shards."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from zonectl.errors import NeedsHumanError
from zonectl.forecast.units import format_duration
from zonectl.mongo.connect import Connection
from zonectl.plan.restrict import WindowMove
from zonectl.session.notice import Notice


def show(instant: dt.datetime) -> str:
    return f"{instant.astimezone(dt.UTC):%Y-%m-%dT%H:%M:%SZ}"


def clocks(conn: Connection) -> str:
    """Both clocks as the operator compares them; a sandbox's one clock (the run's and
    the cluster's: this host's plays no part) by that name."""
    local, cluster, skew = conn.local(), conn.wall(), conn.skew
    if conn.local_name != "this host's clock":
        return f"{conn.local_name} {show(local)} (the cluster's; this host's is not used)"
    if skew is None:
        return f"this host's clock {show(local)}, the cluster's unknown (hello sent no localTime)"
    said = f"this host's clock {show(local)}, the cluster's {show(cluster)} (hello.localTime"
    if skew.sure_s == 0:
        return said + ")"
    side = "ahead of" if skew.offset_s > 0 else "behind"
    return said + f", {_span(abs(skew.offset_s))} {side} this host)"


def check_skew(conn: Connection, bound_s: float) -> Notice | None:
    """Refuse (exit 5) when the clocks are surely further apart than `bound_s`: the window
    boundary follows this host's clock, and the lease is judged by each host's own. A
    warning when the cluster did not say its time."""
    skew = conn.skew
    if skew is None:
        return Notice(
            "hello sent no localTime: this host's clock cannot be checked against the cluster's"
        )
    if skew.sure_s <= bound_s:
        return None
    raise NeedsHumanError(
        f"refusing to rotate: the clocks differ by {_span(abs(skew.offset_s))}, more than "
        f"--max-clock-skew {_span(bound_s)}: {clocks(conn)}; nothing was sent",
        hint="sync this host and the cluster with NTP (`zonectl doctor` measures the skew); "
        "to rotate as of a chosen instant anyway, pass --at",
    )


def check_backwards(
    conn: Connection,
    moves: Sequence[WindowMove],
    slices: Sequence[str],
    instant: dt.datetime,
    given: bool,
    allow: bool,
) -> Notice | None:
    """Refuse (exit 5) to move any window's boundary earlier than the live one, naming each
    window's live and computed boundary (each slice brought back to its hot zone) and both
    clocks; with `allow`, a warning to show and go on."""
    back = [m for m in moves if m.backwards]
    if not back and not slices:
        return None
    source = "--at" if given else conn.local_name
    lines = [
        f"{m.ns}: live boundary {m.shown('old')} is later than {m.shown('new')}, "
        f"the boundary at {show(instant)} ({source})"
        for m in back
    ]
    lines += [f"{line}, at {show(instant)} ({source})" for line in slices]
    what = " and ".join(
        text
        for n, text in (
            (len(back), f"{len(back)} firehose window(s)"),
            (len(slices), f"{len(slices)} slice(s)"),
        )
        if n
    )
    if allow:
        return Notice(f"--allow-backwards: moving {what} back:", tuple(lines))
    raise NeedsHumanError(
        f"refusing to move {what} backwards; nothing was sent:",
        details=[*lines, clocks(conn)],
        hint="if a clock jumped back, fix it and rerun; if the live boundary is ahead "
        "(a `rotate --at` in the future), wait until the clock passes it, or rerun with "
        "--allow-backwards to move it back now",
    )


def future_warning(conn: Connection, instant: dt.datetime, bound_s: float) -> Notice | None:
    """--at later than the cluster's clock writes a window no plain run would: say that
    the next runs will refuse to move it back."""
    ahead = (instant - conn.wall()).total_seconds()
    if ahead <= bound_s:
        return None
    return Notice(
        f"--at {show(instant)} is {_span(ahead)} ahead of the cluster's clock "
        f"({show(conn.wall())}): a window moved to it stays there, and later runs "
        "refuse to move it back until then (or run with --allow-backwards)"
    )


def _span(seconds: float) -> str:
    return f"{seconds:.1f}s" if seconds < 60 else format_duration(seconds)
