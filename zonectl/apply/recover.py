"""Finishing what an interrupted apply left: every pause its journal recorded without a
matching restore is restored to the prior state, then the journal is closed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from zonectl.apply.ports import BalancingControl, JournalStore
from zonectl.apply.safeguards import restore


def pending_pauses(events: Sequence[Mapping[str, Any]]) -> list[tuple[str, str | None, bool]]:
    """(scope, ns, prior) of pauses not followed by a restore, in the order they were made."""
    open_: dict[tuple[str, str | None], bool] = {}
    for event in events:
        key = (str(event.get("scope")), event.get("ns"))
        if event.get("type") == "pause":
            open_[key] = bool(event.get("prior"))
        elif event.get("type") == "restored":
            open_.pop(key, None)
    return [(scope, ns, prior) for (scope, ns), prior in open_.items()]


def recover_open(journal: JournalStore, balancing: BalancingControl) -> list[str]:
    """Restore and close every open journal; what was done, one line each. A restore that
    keeps failing raises NeedsHumanError and leaves that journal open."""
    done: list[str] = []
    for header in journal.find_open():
        apply_id = str(header["_id"])
        for scope, ns, prior in reversed(pending_pauses(header.get("events", []))):
            if scope == "cluster":
                if prior and not balancing.balancer_running():
                    restore(lambda: balancing.set_balancer(True), scope, None, prior)
                    done.append(f"apply {apply_id}: restarted the balancer it had stopped")
            elif ns is not None and balancing.read_no_balance(ns) not in (None, prior):
                _restore_collection(balancing, ns, prior)
                done.append(f"apply {apply_id}: restored noBalance: {prior} on {ns}")
        journal.close(apply_id, "recovered")
        done.append(f"apply {apply_id} (plan {header.get('plan_id')}): journal closed")
    return done


def _restore_collection(balancing: BalancingControl, ns: str, prior: bool) -> None:
    restore(lambda: balancing.set_no_balance(ns, prior), "collection", ns, prior)
