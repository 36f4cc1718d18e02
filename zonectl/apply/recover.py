"""Finishing what an interrupted apply left: every pause its journal recorded without a
matching restore is restored to the prior state, then the journal is closed."""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.apply.ports import BalancingControl, JournalStore
from zonectl.apply.safeguards import restore

Pause = tuple[str, str | None, bool, bool | None]  # scope, ns, prior, prior auto-merger


def pending_pauses(events: Sequence[Mapping[str, Any]]) -> list[Pause]:
    """(scope, ns, prior, auto-merger) of pauses not followed by a restore, in the order
    they were made; the auto-merger's prior value where a cluster pause recorded it."""
    open_: dict[tuple[str, str | None], tuple[bool, bool | None]] = {}
    for event in events:
        key = (str(event.get("scope")), event.get("ns"))
        if event.get("type") == "pause":
            merger = event.get("autoMerger")
            open_[key] = (bool(event.get("prior")), None if merger is None else bool(merger))
        elif event.get("type") == "restored":
            open_.pop(key, None)
    return [(scope, ns, prior, merger) for (scope, ns), (prior, merger) in open_.items()]


def recover_open(journal: JournalStore, balancing: BalancingControl) -> list[str]:
    """Restore and close every open journal; what was done, one line each. A restore that
    keeps failing raises NeedsHumanError and leaves that journal open."""
    done: list[str] = []
    for header in journal.find_open():
        apply_id = str(header["_id"])
        for scope, ns, prior, merger in reversed(pending_pauses(header.get("events", []))):
            if scope == "cluster":
                start = functools.partial(balancing.set_balancer, True, merger)
                if prior and not balancing.balancer_running():
                    restore(start, scope, None, prior)
                    done.append(f"apply {apply_id}: restarted the balancer it had stopped")
                elif prior and merger is not None and balancing.auto_merger() != merger:
                    # running again (restarted by hand), the auto-merger not as it was
                    restore(start, scope, None, prior)
                    done.append(f"apply {apply_id}: restored automerge.enabled: {merger}")
            elif ns is not None and balancing.read_no_balance(ns) not in (None, prior):
                _restore_collection(balancing, ns, prior)
                done.append(f"apply {apply_id}: restored noBalance: {prior} on {ns}")
        journal.close(apply_id, "recovered")
        done.append(f"apply {apply_id} (plan {header.get('plan_id')}): journal closed")
    return done


def _restore_collection(balancing: BalancingControl, ns: str, prior: bool) -> None:
    restore(lambda: balancing.set_no_balance(ns, prior), "collection", ns, prior)
