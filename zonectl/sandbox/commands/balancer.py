"""Balancer control commands: balancerStart/Stop/Status (reference §3.1-§3.2); the
per-collection ones are in `collection_balancing`.

Start and stop write `config.settings` first and reload the settings right after, so a
reload error (a malformed activeWindow) is returned although the write happened
(`BalancerConfiguration::setBalancerMode`). Stop then waits for the current round.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.catalog import settings_schema
from zonectl.sandbox.catalog.cluster import SETTINGS
from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import max_time_expired
from zonectl.sandbox.state import Sandbox


def _upsert_setting(sandbox: Sandbox, _id: str, fields: Mapping[str, Any]) -> None:
    """`updateConfigDocument(..., {$set: fields}, upsert: true)` on config.settings: an
    update like any other, so the validator (7.0+) checks the whole document (a field it
    refuses, written before the FCV upgrade, makes the command fail; inferred)."""
    coll = sandbox.cluster.coll(SETTINGS)
    doc = dict(coll.get(_id) or {"_id": _id})
    doc.update(fields)
    settings_schema.check_write(sandbox.catalog, sandbox.version, SETTINGS, doc)
    coll.put(doc)


def _set_mode(sandbox: Sandbox, mode: str) -> None:
    """_configsvrBalancerStart/Stop: mode, then (7.0+) automerge, then the actionlog."""
    _upsert_setting(sandbox, "balancer", {"stopped": mode == "off", "mode": mode})
    sandbox.balancer.reload_settings()  # raises the reload error after the write
    if sandbox.version.balancer_toggles_automerge:
        _upsert_setting(sandbox, "automerge", {"enabled": mode == "full"})
        sandbox.balancer.reload_settings()
        what = "balancer.start" if mode == "full" else "balancer.stop"
        sandbox.cluster.log_action(what, {})


@command("balancerStart", admin_only=True, supports_write_concern=False)
def balancer_start(request: Request) -> dict[str, Any]:
    _set_mode(request.sandbox, "full")
    return {}


@command("balancerStop", admin_only=True, supports_write_concern=False)
def balancer_stop(request: Request) -> dict[str, Any]:
    deadline = move_rules.deadline_of(request)
    _set_mode(request.sandbox, "off")
    # joinCurrentRound: "off" is stored already; a maxTimeMS expiry leaves it stored.
    if not request.sandbox.balancer.join_current_round(deadline):
        raise max_time_expired()
    return {}


@command("balancerStatus", admin_only=True, supports_write_concern=False)
def balancer_status(request: Request) -> dict[str, Any]:
    return request.sandbox.balancer.report()
