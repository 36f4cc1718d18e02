"""The reshard route's phases learned from the cluster's own reshardings: the coordinator's
`resharding.coordinator.transition` entries in config.changelog (one per state change:
newState, oldState, reshardingUUID; mongo:src/mongo/db/s/resharding/resharding_coordinator.cpp)
date each run's cloning, applying (the oplog catch-up) and blocking-writes. Without such a
history the phases are assumptions of zonectl's own, stated in the plan. Pure."""

from __future__ import annotations

import datetime as dt
import statistics
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# MongoDB's documented defaults (manual, "Resharding Process" and reshardCollection):
MINIMUM_S = 300.0  # reshardingMinimumOperationDurationMillis: the coordinator waits it out
CRITICAL_S = 2.0  # "blocks writes for two seconds or less" at the commit
# zonectl's assumptions when the cluster has no finished resharding to learn from. The
# catch-up replays the writes made during the copy, which zonectl cannot see: assume they
# take a tenth of the copy's time, at least half a minute (errs long: a forecast that ends
# early misleads more than one that ends late). Not the sandbox's figures.
ASSUMED_CATCH_UP_SHARE = 0.10
ASSUMED_CATCH_UP_FLOOR_S = 30.0
# A run whose blocking-writes begins within this of the minimum duration waited the minimum
# out in its applying phase: that phase says nothing of its catch-up.
_MINIMUM_SLACK_S = 1.0


@dataclass(frozen=True)
class ReshardPhases:
    """What a resharding costs beside the copy itself, and where the figures come from."""

    catch_up_share: float = ASSUMED_CATCH_UP_SHARE  # oplog catch-up over the cloning time
    catch_up_floor_s: float = ASSUMED_CATCH_UP_FLOOR_S
    critical_s: float = CRITICAL_S
    minimum_s: float = MINIMUM_S
    runs: int = 0  # finished reshardings the figures were learned from (0: assumed)
    catch_up_runs: int = 0  # of them, those whose catch-up was not hidden by the minimum

    def describe(self) -> str:
        """One line for the plan: the figures, learned or assumed."""
        catch_up = f"oplog catch-up {self.catch_up_share:.0%} of the copy"
        if self.catch_up_runs == 0:
            catch_up += f" (at least {self.catch_up_floor_s:.0f}s, assumed)"
        critical = f"writes blocked {self.critical_s:.0f}s"
        minimum = f"{self.minimum_s / 60:.0f} min minimum (MongoDB's default)"
        if self.runs == 0:
            return (
                f"phases assumed (no finished resharding in config.changelog): {catch_up}, "
                f"{critical} (MongoDB's bound), {minimum}"
            )
        return (
            f"phases learned from {self.runs} resharding(s) in config.changelog: {catch_up}, "
            f"{critical}, {minimum}"
        )


def learn_phases(entries: Iterable[Mapping[str, Any]]) -> ReshardPhases:
    """The phases of the finished, not aborted, runs among `entries` (medians), else the
    assumptions. A run must date cloning, applying, blocking-writes and done apart: a tool
    that logs them all at one instant teaches nothing of their lengths."""
    runs: dict[str, dict[str, dt.datetime]] = {}
    for e in entries:
        d, when = e.get("details"), e.get("time")
        if e.get("what") != "resharding.coordinator.transition" or not isinstance(d, Mapping):
            continue
        run, state = d.get("reshardingUUID"), d.get("newState")
        if isinstance(run, str) and isinstance(state, str) and isinstance(when, dt.datetime):
            t = when if when.tzinfo is not None else when.replace(tzinfo=dt.UTC)
            runs.setdefault(run, {}).setdefault(state, t)
    shares: list[float] = []
    criticals: list[float] = []
    for at in runs.values():
        if "aborting" in at or not {"cloning", "applying", "blocking-writes", "done"} <= set(at):
            continue
        start = min(at.values())
        cloning = (at["applying"] - at["cloning"]).total_seconds()
        applying = (at["blocking-writes"] - at["applying"]).total_seconds()
        critical = (at["done"] - at["blocking-writes"]).total_seconds()
        if cloning <= 0 or applying <= 0 or critical <= 0:
            continue
        criticals.append(critical)
        if (at["blocking-writes"] - start).total_seconds() > MINIMUM_S + _MINIMUM_SLACK_S:
            shares.append(applying / cloning)
    if not criticals:
        return ReshardPhases()
    return ReshardPhases(
        catch_up_share=statistics.median(shares) if shares else ASSUMED_CATCH_UP_SHARE,
        catch_up_floor_s=0.0 if shares else ASSUMED_CATCH_UP_FLOOR_S,
        critical_s=statistics.median(criticals),
        runs=len(criticals),
        catch_up_runs=len(shares),
    )
