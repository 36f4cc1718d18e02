"""The executor, apply's `send` port: every op sends exactly `op.command()` to
`op.database`, its answer read as the op says (`Op.reply`); a server error becomes an
OpFailedError naming the op, its namespace and MongoDB's code, codeName and message."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pymongo import MongoClient
from pymongo.errors import OperationFailure, PyMongoError

from zonectl.errors import redact
from zonectl.plan.failures import OpFailedError, OutcomeUnknownError
from zonectl.plan.ops import Op

Client = MongoClient[dict[str, Any]]
Reply = Mapping[str, Any]


def _send(client: Client, op: Op) -> Reply:
    command = op.command()
    try:
        return client[op.database].command(command)
    except OperationFailure as exc:
        details = exc.details or {}
        raise OpFailedError(
            op, exc.code, str(details.get("codeName", "")), str(details.get("errmsg", exc))
        ) from None
    except PyMongoError as exc:
        # apply sends an op that declares itself idempotent again (apply/resend.py) and
        # looks a move up (apply/move_lookup.py); any other op ends the run here.
        raise OutcomeUnknownError(
            f"{op.describe()}: the connection failed, the outcome is unknown: {redact(str(exc))}",
            hint="rerun `zonectl apply`: it re-reads the cluster and plans what is left",
        ) from None


def _write(client: Client, op: Op, must_match: bool) -> Reply:
    """An `update` command answers ok with writeErrors inside; those are failures too."""
    reply = _send(client, op)
    errors = reply.get("writeErrors") or []
    if errors:
        first = errors[0]
        raise OpFailedError(
            op, first.get("code"), str(first.get("codeName", "")), str(first.get("errmsg"))
        )
    wce = reply.get("writeConcernError")
    if wce:
        raise OpFailedError(
            op, wce.get("code"), str(wce.get("codeName", "")), str(wce.get("errmsg"))
        )
    if must_match and not reply.get("n"):
        raise OpFailedError(
            op, None, "NamespaceNotFound", f"no config.collections entry {op.namespace}"
        )
    return reply


def execute(client: Client, op: Op) -> Reply:
    """Send `op.command()` to `op.database` and read the answer as the op says (Op.reply):
    one path for every op kind, so a new op needs no handler here. A balancer setting's
    validator rejection (121, the 7.0+ $jsonSchema on config.settings, reference
    balancer-settings §2.3) names the setting; it is reported, never retried."""
    try:
        if op.reply == "command":
            # removeZoneRange answers ok even when nothing matched (reference §1.6): apply
            # verifies in config.tags after. moveCollection and reshardCollection return
            # when done (no socket timeout; apply watches them meanwhile).
            return _send(client, op)
        return _write(client, op, must_match=op.reply == "matched")
    except OpFailedError as exc:
        change = op.setting_change()
        if exc.code != 121 or change is None:
            raise
        ns, key, _ = change
        name = f"{ns} {key}" if ns else key
        raise OpFailedError(
            op,
            exc.code,
            exc.code_name,
            f"the server's config.settings validator refused balancer setting {name} "
            f"({exc.errmsg}); this server does not accept it: check the version it needs in "
            "docs/balancer-settings.md",
        ) from None


def bind(client: Client) -> Callable[[Op], Reply]:
    """The executor as apply's `send` port."""
    return lambda op: execute(client, op)
