"""Reading and setting balancing: per-collection `noBalance` (reference §3.5), the balancer
switch (balancerStart/balancerStop, §3.1), and waiting until no migration is in flight."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from pymongo.errors import OperationFailure, PyMongoError

from zonectl.balancer_settings.table import row
from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Client
from zonectl.plan.failures import OutcomeUnknownError
from zonectl.plan.ops import SetBalancerEnabled, SetCollectionBalancing

_POLL_SECONDS = 0.2


class MongoBalancing:
    def __init__(self, client: Client) -> None:
        self.client = client

    def read_no_balance(self, ns: str) -> bool | None:
        """noBalance of a sharded collection; None when `ns` is not sharded."""
        doc = self._read(lambda: self.client.config.collections.find_one({"_id": ns}))
        if doc is None or doc.get("dropped"):  # 4.4 keeps dropped entries (§2.4)
            return None
        return bool(doc.get("noBalance", False))

    def set_no_balance(self, ns: str, value: bool) -> None:
        """The sh.disableBalancing/enableBalancing update with majority write concern: the
        very command document SetCollectionBalancing describes."""
        command = SetCollectionBalancing(ns, enabled=not value).command()
        reply = self._run("config", command, f"setting noBalance: {value} on {ns}")
        errors = reply.get("writeErrors") or []
        if errors or reply.get("writeConcernError"):
            detail = errors[0] if errors else reply["writeConcernError"]
            raise ClusterError(
                f"setting noBalance: {value} on {ns} failed: "
                f"{detail.get('codeName', detail.get('code'))}: {detail.get('errmsg')}"
            )

    def balancer_running(self) -> bool:
        """mongosh's sh.getBalancerState: no settings document means running (§2.5, §3.6);
        `stopped: true` or a mode other than full means no migrations."""
        doc = self._read(lambda: self.client.config.settings.find_one({"_id": "balancer"})) or {}
        return doc.get("mode", "full") == "full" and not doc.get("stopped", False)

    def auto_merger(self) -> bool:
        """`automerge.enabled` as the policy reads it (absent: MongoDB's default, on)."""
        merger = row("cluster", "autoMerger")
        return bool(merger.live_value(self._setting(merger.doc)))

    def set_balancer(self, running: bool, auto_merger: bool | None = None) -> None:
        """balancerStart/balancerStop with maxTimeMS like sh.startBalancer (§3.1, §3.6).

        On 7.0+ both also write `automerge.enabled` (balancer-settings §3.1): a pause and its
        restore must leave the auto-merger as it was (a policy's `autoMerger: false`), so
        `auto_merger` (read before the pause and kept in the journal; None: read now) is
        written back at once. balancerStop writes it before it waits for the round to end:
        an interrupt or a crash in that wait leaves `false` behind, which a value read then
        would take for the prior one."""
        merger = row("cluster", "autoMerger")
        keep = self.auto_merger() if auto_merger is None else auto_merger
        command = SetBalancerEnabled(running).command()
        self._run("admin", command, f"{next(iter(command))}")
        if self.auto_merger() != keep:
            database, write = merger.command(None, keep)
            self._run(database, write, f"restoring automerge.enabled: {keep}")

    def _setting(self, _id: str) -> Mapping[str, Any] | None:
        doc: Mapping[str, Any] | None = self._read(
            lambda: self.client.config.settings.find_one({"_id": _id})
        )
        return doc

    def wait_idle(
        self, ns: str | None, timeout_s: float, stopped: Callable[[], bool] = lambda: False
    ) -> bool:
        """Wait until the balancer round running when we paused has ended and no
        `config.migrations` entry (4.4-6.x, §2.6) names `ns`. A paused collection gets no new
        migrations, but one already running is not cancelled (§3.5). False on timeout, or
        as soon as `stopped()` (a fleet run's Ctrl-C)."""
        deadline = time.monotonic() + timeout_s
        first_round: Any = None
        query: Mapping[str, Any] = {"ns": ns} if ns else {}
        while True:
            status = self._status()
            rounds = status.get("numBalancerRounds")
            if first_round is None:
                first_round = rounds
            round_over = not status.get("inBalancerRound", False) or rounds != first_round
            moving = self._read(lambda: self.client.config.migrations.count_documents(query))
            if round_over and not moving:
                return True
            remaining = deadline - time.monotonic()
            if remaining <= 0 or stopped():
                return False
            time.sleep(min(_POLL_SECONDS, remaining))

    def _status(self) -> Mapping[str, Any]:
        try:
            return self.client.admin.command({"balancerStatus": 1})
        except OperationFailure:
            return {}  # a router without balancerStatus: rely on config.migrations
        except PyMongoError as exc:
            raise ClusterError(f"balancerStatus failed: {redact(str(exc))}") from None

    def _read(self, fn: Any) -> Any:
        try:
            return fn()
        except PyMongoError as exc:
            raise ClusterError(f"reading balancing state failed: {redact(str(exc))}") from None

    def _run(self, db: str, command: Mapping[str, Any], what: str) -> Mapping[str, Any]:
        try:
            return self.client[db].command(dict(command))
        except OperationFailure as exc:
            details = exc.details or {}
            raise ClusterError(
                f"{what} failed: {details.get('codeName', exc.code)} ({exc.code}): "
                f"{redact(str(details.get('errmsg', exc)))}"
            ) from None
        except PyMongoError as exc:
            # The connection failed: apply sends these idempotent writes again (resend.py).
            raise OutcomeUnknownError(
                f"{what} failed: the connection failed, the outcome is unknown: {redact(str(exc))}"
            ) from None
