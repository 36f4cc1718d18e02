"""Safeguards as context managers that restore what they changed in `finally`: the lease
(renewed by a thread), signals turned into KeyboardInterrupt, balancing paused per
collection or for the whole balancer, and the journal recording each of them first."""

from __future__ import annotations

import contextlib
import datetime as dt
import getpass
import os
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import FrameType
from typing import Any

from zonectl.apply.interrupt import holding
from zonectl.apply.ports import BalancingControl, JournalStore, LeaseStore
from zonectl.apply.reach import TERMINATING, give_up_reason
from zonectl.errors import ClusterError, NeedsHumanError, ZonectlError, redact
from zonectl.model.lease_holder import holder_is_dead as holder_is_dead
from zonectl.plan.ops import SetBalancerEnabled, SetCollectionBalancing

# Sends a pause or restore: (action, what it does, whether its command is idempotent).
# apply's sends it again after a connection reset (apply/resend.py); the default once.
Sender = Callable[[Callable[[], None], str, bool], None]


def _once(action: Callable[[], None], what: str, idempotent: bool) -> None:
    action()


RESTORE_ATTEMPTS = 3
RESTORE_BACKOFF_S = 0.5


def whoami() -> dict[str, Any]:
    user = os.environ.get("ZONECTL_OWNER") or _user()
    host = socket.gethostname()
    return {"owner": f"{user}@{host}", "host": host, "pid": os.getpid()}


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return "unknown"


# --------------------------------------------------------------------------- lease
@dataclass
class Lease:
    store: LeaseStore
    token: str
    ttl: dt.timedelta
    doc: dict[str, Any]
    lost: threading.Event = field(default_factory=threading.Event)
    warnings: list[str] = field(default_factory=list)

    def check(self) -> None:
        """Called before every state-changing step: never act without the lease."""
        if self.lost.is_set():
            raise ClusterError(
                "lost the apply lease (it expired or was broken); stopping before the next step"
            )

    def set_plan(self, plan_id: str) -> None:
        """Name the plan in the lease, for whoever is refused it; informational only."""
        try:
            self.store.update(self.token, {"plan_id": plan_id})
        except ZonectlError as exc:
            self.warnings.append(f"lease not updated with the plan id: {exc.message}")


@contextlib.contextmanager
def held_lease(
    store: LeaseStore,
    *,
    operation: str,
    ttl: dt.timedelta,
    plan_id: str | None = None,
    break_lease: bool = False,
) -> Iterator[Lease]:
    """Take the lease (or fail fast naming its holder), renew it every ttl/3 on a thread,
    and release it in `finally`. An expired lease, or one whose holder died on this host,
    is taken over; `break_lease` takes any."""
    now = dt.datetime.now(dt.UTC)
    token = uuid.uuid4().hex
    fields = {
        **whoami(),
        "token": token,
        "operation": operation,
        "plan_id": plan_id,
        "acquired": now,
        "expires": now + ttl,
    }
    doc = store.acquire(fields, now=now, may_take=lambda h: break_lease or holder_is_dead(h))
    lease = Lease(store, token, ttl, doc)
    stop = threading.Event()
    thread = threading.Thread(
        target=_renew_loop, args=(lease, stop), name="zonectl-lease", daemon=True
    )
    thread.start()
    with holding(f"the {operation} lease"):
        try:
            yield lease
        finally:
            stop.set()
            thread.join(timeout=5)
            if (reason := give_up_reason()) is not None:
                lease.warnings.append(f"lease not released ({reason}); it expires by itself")
            else:
                _release(store, token, lease)


def _release(store: LeaseStore, token: str, lease: Lease) -> None:
    try:
        try:
            store.release(token)
        except ZonectlError:
            time.sleep(RESTORE_BACKOFF_S)  # one retry for a transient failure
            store.release(token)
    except ZonectlError as exc:
        # Not worth failing a finished run for: the lease expires at its TTL, and a run on
        # this host takes over a dead holder's lease at once.
        lease.warnings.append(f"{exc.message}; the lease expires by itself")


def _renew_loop(lease: Lease, stop: threading.Event) -> None:
    interval = max(lease.ttl.total_seconds() / 3, 0.5)
    while not stop.wait(interval):
        try:
            ok = lease.store.renew(lease.token, dt.datetime.now(dt.UTC) + lease.ttl)
        except Exception:  # a failed renewal is retried; expiry is what loses the lease
            continue
        if not ok:
            lease.lost.set()
            return


# --------------------------------------------------------------------------- signals
class _Signals:
    """SIGINT and SIGTERM raise KeyboardInterrupt in the main thread, so they unwind through
    the same `finally` blocks as an error; while a restore runs they are deferred."""

    def __init__(self) -> None:
        self.defer_depth = 0
        self.pending = False

    def handler(self, signum: int, frame: FrameType | None) -> None:
        if signum == signal.SIGTERM:
            TERMINATING.set()  # a supervisor's stop: nothing waits long from here on
        if self.defer_depth:
            self.pending = True
            return
        raise KeyboardInterrupt(signal.Signals(signum).name)

    @contextlib.contextmanager
    def deferred(self) -> Iterator[None]:
        self.defer_depth += 1
        try:
            yield
        finally:
            self.defer_depth -= 1
        if not self.defer_depth and self.pending:
            self.pending = False
            raise KeyboardInterrupt("deferred signal")


SIGNALS = _Signals()


@contextlib.contextmanager
def signals_as_interrupts() -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM)}
    for sig in previous:
        signal.signal(sig, SIGNALS.handler)
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


# --------------------------------------------------------------------------- journal
@dataclass
class Recorder:
    """The journal of one apply: a header, then one event per pause, restore and step."""

    store: JournalStore
    apply_id: str
    warnings: list[str] = field(default_factory=list)

    def step(self, index: int, kind: str, describe: str, status: str) -> None:
        self.store.event(
            self.apply_id,
            # Free text only: `ns` of pause/restore records is read back by recovery as is.
            {
                "type": "step",
                "index": index,
                "kind": kind,
                "op": redact(describe),
                "status": redact(status),
            },
        )

    def pause(
        self, scope: str, ns: str | None, prior: bool, auto_merger: bool | None = None
    ) -> None:
        """Write-ahead, before the pause: what recovery restores (`auto_merger`: the
        cluster pause's prior automerge.enabled, which balancerStop overwrites)."""
        doc = {"type": "pause", "scope": scope, "ns": ns, "prior": prior}
        if auto_merger is not None:
            doc["autoMerger"] = auto_merger
        self.store.event(self.apply_id, doc)

    def restored(self, scope: str, ns: str | None) -> None:
        # Best effort: the state is already right; an unrecorded restore is redone, harmlessly.
        try:
            self.store.event(self.apply_id, {"type": "restored", "scope": scope, "ns": ns})
        except ZonectlError as exc:
            self.warnings.append(f"journal: {exc.message}")


@contextlib.contextmanager
def journal(store: JournalStore, header: Mapping[str, Any]) -> Iterator[Recorder]:
    """Open the journal; close it in `finally` unless a restore failed (then `recover` needs
    it open)."""
    apply_id = str(header["_id"])
    store.open({**header, "state": "open", "started": dt.datetime.now(dt.UTC)})
    recorder = Recorder(store, apply_id)
    with holding(f"journal {apply_id} (open)"):
        outcome = "failed"
        try:
            yield recorder
            outcome = "done"
        except NeedsHumanError:
            raise  # keep it open for `zonectl recover`
        except BaseException:
            _close(store, apply_id, outcome, recorder)
            raise
        else:
            _close(store, apply_id, outcome, recorder)


def _close(store: JournalStore, apply_id: str, outcome: str, recorder: Recorder) -> None:
    if (reason := give_up_reason()) is not None:
        recorder.warnings.append(f"journal left open ({reason}); `zonectl recover` closes it")
        return
    try:
        store.close(apply_id, outcome)
    except ZonectlError as exc:
        recorder.warnings.append(f"journal left open ({exc.message}); the next run closes it")


# --------------------------------------------------------------------------- balancing
def human_command(scope: str, ns: str | None, prior: bool) -> str:
    """What an operator runs in mongosh when zonectl could not restore balancing."""
    if scope == "cluster":
        return "sh.startBalancer()" if prior else "sh.stopBalancer()"
    value = "true" if prior else "false"
    return (
        f'db.getSiblingDB("config").collections.updateOne({{_id: "{ns}"}}, '
        f'{{$set: {{noBalance: {value}}}}}, {{writeConcern: {{w: "majority"}}}})'
    )


def restore(action: Callable[[], None], scope: str, ns: str | None, prior: bool) -> None:
    """Run a restore, retrying transient failures; NeedsHumanError (exit 5) with the exact
    command when it keeps failing. Signals wait until it is done."""
    with SIGNALS.deferred():
        why = "unknown error"
        for attempt in range(RESTORE_ATTEMPTS):
            if (reason := give_up_reason()) is not None:
                why = reason  # the cluster stayed away: no more tries, the journal kept
                break
            try:
                action()
                return
            except ZonectlError as exc:
                why = exc.message
                time.sleep(RESTORE_BACKOFF_S * (attempt + 1))
        what = "the balancer" if scope == "cluster" else f"balancing of {ns}"
        raise NeedsHumanError(
            f"could not restore {what} ({why})",
            hint=f"run in mongosh: {human_command(scope, ns, prior)}; then 'zonectl recover'",
        )


@contextlib.contextmanager
def paused_collection(
    balancing: BalancingControl, recorder: Recorder, ns: str, send: Sender = _once
) -> Iterator[bool]:
    """noBalance: true around the body, restored to the prior value. A collection that
    already had noBalance keeps it and nothing is written; an unsharded namespace has
    nothing to balance. Yields whether zonectl paused it."""
    prior = balancing.read_no_balance(ns)
    if prior is None or prior:
        yield False
        return
    recorder.pause("collection", ns, prior)  # write-ahead: recover knows before we act
    same = SetCollectionBalancing.idempotent  # the noBalance update is this op's command

    def set_to(value: bool) -> Callable[[], None]:
        what = f"setting noBalance: {str(value).lower()} on {ns}"
        return lambda: send(lambda: balancing.set_no_balance(ns, value), what, same)

    with holding(f"balancing of {ns} (noBalance)"):
        try:
            set_to(True)()
            yield True
        finally:
            restore(set_to(prior), "collection", ns, prior)
            recorder.restored("collection", ns)


@contextlib.contextmanager
def paused_balancer(
    balancing: BalancingControl, recorder: Recorder, send: Sender = _once
) -> Iterator[bool]:
    """balancerStop around the body and balancerStart after, only if it was running: a
    balancer someone stopped stays stopped; the auto-merger ends as it was."""
    if not balancing.balancer_running():
        yield False
        return
    merger = balancing.auto_merger()  # before balancerStop writes it (MongoBalancing)
    recorder.pause("cluster", None, True, merger)
    same = SetBalancerEnabled.idempotent  # balancerStart/balancerStop are this op's commands

    def set_to(running: bool) -> Callable[[], None]:
        what = "balancerStart" if running else "balancerStop"
        return lambda: send(lambda: balancing.set_balancer(running, merger), what, same)

    with holding("the balancer (stopped)"):
        try:
            set_to(False)()
            yield True
        finally:
            restore(set_to(True), "cluster", None, True)
            recorder.restored("cluster", None)
