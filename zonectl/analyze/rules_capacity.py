"""ZA115: a firehose hot zone too small for its window. The window's recent ingest per
period (dataSize of its last periods), stored as its database's data is, times `keep` plus
a period of headroom, against the room its hot shards have up to their disk limits
(zonectl/capacity/firehose_fit.py): the days until they are full and the `keep` that fits.
Also what plan warns with. Pure."""

from __future__ import annotations

from zonectl.analyze.report import Finding, Severity
from zonectl.capacity.firehose_fit import HEADROOM_PERIODS, WindowFit, fit_window
from zonectl.model.desired import DesiredState, Firehose
from zonectl.model.ingest import HotZoneInput
from zonectl.plan.op_base import format_bytes

RULE, NAME = "ZA115", "firehose-hot-zone-too-small"


def period_word(seconds: float) -> str:
    for length, word in ((86_400, "day"), (3_600, "hour"), (604_800, "week")):
        if seconds == length:
            return word
    return f"period ({seconds / 3_600:g} h)"


def hot_zone_finding(
    ns: str,
    firehose: Firehose,
    hot: tuple[str, ...],
    found: HotZoneInput | str | None,
    desired: DesiredState,
) -> Finding | None:
    """The finding when the window does not fit (or could not be checked); None when it
    fits, or nothing was taken in lately."""
    if found is None:
        return None
    if isinstance(found, str):
        return Finding(RULE, NAME, Severity.INFO, ns,
            f"hot zone {firehose.hot} not checked against its disks: {found}",
            "Grant the dbStats and find actions (clusterMonitor and read) to check it.",
            "dataSize and dbStats")  # fmt: skip
    fit = fit_window(found.ingest, firehose.keep, firehose.hot, hot, found.volumes, desired)
    if fit is None or fit.fits:
        return None
    return Finding(
        RULE, NAME, Severity.WARNING, ns, evidence(fit), fix(fit), "dataSize and dbStats"
    )


def evidence(fit: WindowFit) -> str:
    ingest, word = fit.ingest, period_word(fit.ingest.period_s)
    room = format_bytes(max(0, fit.room_bytes))
    full = (
        "they are past their limits already"
        if fit.room_bytes <= 0
        else f"full in {fit.days_until_full:.1f} days"
    )
    return (
        f"hot zone {fit.zone} ({', '.join(fit.shards)}) takes in about "
        f"{format_bytes(ingest.per_period)} a {word} ({format_bytes(fit.stored_per_period)} on "
        f"disk; the last {len(ingest.periods)} {word}s measured); keep {fit.keep} plus "
        f"{HEADROOM_PERIODS} {word} of headroom need "
        f"{format_bytes(fit.needed_bytes)} on disk, the window holds "
        f"{format_bytes(fit.held_bytes)} and its shards have {room} "
        f"left before their disk limits: {full}"
    )


def fix(fit: WindowFit) -> str:
    way = (
        f"Set keep to {fit.keep_that_fits} (what fits)"
        if fit.keep_that_fits
        else "No keep fits: even one period does not"
    )
    return (
        f"{way}, give zone {fit.zone} another shard or a larger volume, or compact its shards "
        "(WiredTiger keeps the space chunks left)."
    )
