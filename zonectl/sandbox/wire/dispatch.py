"""Run one command document the way a mongos does: look up, check, fail points, run, reply.

Check order follows mongo:src/mongo/db/commands.cpp `checkAuthorizationImplPreParse` and
mongo:src/mongo/s/commands/strategy.cpp: admin-only, then "requires authentication", then
authorization, then writeConcern support, then the failCommand fail point, then the command.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import bson
from bson import Int64, Timestamp

from zonectl.sandbox import commands
from zonectl.sandbox.codec import CODEC
from zonectl.sandbox.commands import authz, registry
from zonectl.sandbox.commands.registry import CommandSpec, Request, Session
from zonectl.sandbox.errors import CODES, CommandError
from zonectl.sandbox.sampling.served import observe

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox

log = logging.getLogger("zonectl.sandbox")

CODE_NAMES = {code: name for name, code in CODES.items() if code}

_ZERO_SIGNATURE = {"hash": bson.Binary(b"\x00" * 20), "keyId": Int64(0)}


@dataclass(frozen=True)
class Outcome:
    """The encoded reply, or None (moreToCome / closeConnection); `close` ends the session."""

    reply: bytes | None
    close: bool = False


class Dispatcher:
    def __init__(self, sandbox: Sandbox) -> None:
        commands.load_all()
        self.sandbox = sandbox
        self._ts_last = (0, 0)
        self._ts_lock = threading.Lock()
        # Set when the server closes: a command a fail point holds ends at once, unrun, and
        # its connection closes unanswered. commands.cpp holds it with `opCtx->sleepFor`,
        # an interruptible wait, which a mongod's shutdown interrupts.
        self.closing = threading.Event()

    def run(self, session: Session, body: dict[str, Any], *, reply: bool = True) -> Outcome:
        try:
            doc = self._run(session, body)
        except _CloseConnection:
            return Outcome(None, close=True)
        except CommandError as exc:
            doc = exc.reply()
        except Exception as exc:  # never a dropped connection for a handler bug
            log.exception("sandbox command %r failed", next(iter(body), ""))
            doc = CommandError.of("InternalError", f"{type(exc).__name__}: {exc}").reply()
        self._gossip(doc)
        if not reply:
            return Outcome(None)
        return Outcome(bson.encode(doc, codec_options=CODEC))

    def _run(self, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        if not body:
            raise CommandError.of("CommandNotFound", "no such command: ''")
        name = next(iter(body))
        spec = registry.lookup(name)
        if spec is None or not spec.exists_in_version(self.sandbox.version):
            raise CommandError.of("CommandNotFound", f"no such command: '{name}'")
        db = body.get("$db")
        if not isinstance(db, str):
            # op_msg.cpp: "OP_MSG requests require a $db argument" (40571).
            raise CommandError.assertion(40571, "OP_MSG requests require a $db argument")
        request = Request(name=name, body=body, db=db, session=session, sandbox=self.sandbox)
        self._check(spec, request)
        trip = self.sandbox.failpoints.evaluate(
            (spec.name, *spec.aliases), _namespace(request), _app_name(session)
        )
        if trip is not None:
            self._apply_trip(trip)
        self.sandbox.balancer.command_arrived()  # a virtual clock waits for quiet to jump
        with self.sandbox.lock:
            # The sampler sees time pass (and the simulated workload run) before the
            # command, then the served command itself (sampling/served.py).
            now = self.sandbox.clock.now()
            self.sandbox.sampler.advance(now)
            result = spec.handler(request)
            observe(self.sandbox.sampler, spec.name, db, body, result, now)
        doc = {**result, "ok": 1.0} if "ok" not in result else result
        if spec.supports_write_concern:
            wce = self.sandbox.failpoints.write_concern_error(
                (spec.name, *spec.aliases), _namespace(request), _app_name(session)
            )
            if wce is not None:
                doc["writeConcernError"] = wce
        return doc

    def _check(self, spec: CommandSpec, request: Request) -> None:
        if spec.admin_only and request.db != "admin":
            raise CommandError.of(
                "Unauthorized", f"{spec.name} may only be run against the admin database."
            )
        if self.sandbox.auth is not None:
            authz.check(spec, request)
        if not spec.supports_write_concern and "writeConcern" in request.body:
            raise CommandError.of("InvalidOptions", "Command does not support writeConcern")

    def _apply_trip(self, trip: Any) -> None:
        # commands.cpp evaluateFailCommandFailPoint: labels, block, close, then the error.
        if trip.data.get("blockConnection") is True:
            block = trip.data.get("blockTimeMS")
            if not isinstance(block, int) or isinstance(block, bool):
                raise CommandError.of(
                    "InvalidOptions", "must specify 'blockTimeMS' when 'blockConnection' is true"
                )
            if block < 0:
                raise CommandError.of("InvalidOptions", "'blockTimeMS' must be non-negative")
            # outside sandbox.lock: only this connection waits
            if self.closing.wait(block / 1000):
                raise _CloseConnection
        if trip.close_connection:
            raise _CloseConnection
        if trip.error_code is not None:
            extra: dict[str, Any] = {}
            if trip.error_labels:
                extra["errorLabels"] = list(trip.error_labels)
            info = trip.data.get("errorExtraInfo")
            if isinstance(info, dict):
                extra.update(info)
            # ErrorCodes::errorString names codes outside error_codes.yml "Location<N>".
            name = CODE_NAMES.get(trip.error_code, f"Location{trip.error_code}")
            raise CommandError(
                trip.error_code, "Failing command via 'failCommand' failpoint", name, **extra
            )

    def _gossip(self, doc: dict[str, Any]) -> None:
        """`$clusterTime` and `operationTime`, as a mongos attaches to every reply; with auth
        off the signature is a zero hash and keyId 0 (what mongos sends without keys)."""
        ts = self._next_timestamp()
        doc["$clusterTime"] = {"clusterTime": ts, "signature": _ZERO_SIGNATURE}
        doc["operationTime"] = ts

    def _next_timestamp(self) -> Timestamp:
        seconds = int(self.sandbox.clock.now().timestamp())
        with self._ts_lock:
            last_s, last_i = self._ts_last
            ts = (seconds, 1) if seconds > last_s else (last_s, last_i + 1)
            self._ts_last = ts
        return Timestamp(*ts)


class _CloseConnection(Exception):
    """failCommand closeConnection: the session ends without a reply."""


def _namespace(request: Request) -> str:
    arg = request.body.get(request.name)
    return f"{request.db}.{arg}" if isinstance(arg, str) and "." not in arg else str(arg)


def _app_name(session: Session) -> str:
    return str(session.scratch.get("appName", ""))
