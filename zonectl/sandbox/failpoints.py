"""The `failCommand` fail point: its mode, its data, and the decision whether a command trips it.

Behaviour follows mongo:src/mongo/db/commands.cpp (`shouldActivateFailCommandFailPoint`,
`evaluateFailCommandFailPoint`) and mongo:src/mongo/util/fail_point.cpp (modes and the
`timesEntered` count that `configureFailPoint` replies with as `count`).
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

OFF = "off"
ALWAYS_ON = "alwaysOn"
TIMES = "times"
SKIP = "skip"


@dataclass(frozen=True)
class Trip:
    """What a tripped fail point asks the dispatcher to do, in mongod's order:
    error labels, then block, then close the connection, then fail with `error_code`."""

    data: dict[str, Any]
    block_ms: int = 0
    close_connection: bool = False
    error_code: int | None = None
    error_labels: tuple[str, ...] = ()
    write_concern_error: dict[str, Any] | None = None


@dataclass
class FailPoint:
    mode: str = OFF
    remaining: int = 0  # times left (TIMES) or activations left to skip (SKIP)
    data: dict[str, Any] = field(default_factory=dict)
    times_entered: int = 0


class FailPoints:
    """Every fail point the sandbox knows; only `failCommand` is evaluated by dispatch."""

    NAMES = ("failCommand",)

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._points: dict[str, FailPoint] = {name: FailPoint() for name in self.NAMES}

    def known(self, name: str) -> bool:
        return name in self._points

    def configure(self, name: str, mode: str, remaining: int, data: Mapping[str, Any]) -> int:
        """Set a fail point; returns its `timesEntered` so far (fail_point.cpp `setMode`)."""
        with self._lock:
            point = self._points[name]
            point.mode = mode
            point.remaining = remaining
            point.data = dict(data)
            return point.times_entered

    def evaluate(self, names: tuple[str, ...], namespace: str, app_name: str) -> Trip | None:
        """Decide whether the command (canonical name and aliases in `names`) trips failCommand.

        mongod first checks that the data would act (closeConnection, blockConnection or
        errorCode) and that the command is targeted; only then does the mode count an entry
        (fail_point.cpp `executeIf`: the predicate runs before `shouldFail`).
        """
        with self._lock:
            point = self._points["failCommand"]
            if point.mode == OFF:
                return None
            data = point.data
            if not _acts(data) or not _targets(data, names, namespace, app_name):
                return None
            if not _consume(point):
                return None
            point.times_entered += 1
            return _trip(data)

    def write_concern_error(
        self, names: tuple[str, ...], namespace: str, app_name: str
    ) -> dict[str, Any] | None:
        """A `writeConcernError` to append after a successful write (commands.cpp
        `appendWriteConcernErrorToCmdResponse` path of failCommand)."""
        with self._lock:
            point = self._points["failCommand"]
            data = point.data
            wce = data.get("writeConcernError")
            if point.mode == OFF or not isinstance(wce, Mapping) or _acts(data):
                return None
            if not _targets(data, names, namespace, app_name) or not _consume(point):
                return None
            point.times_entered += 1
            return dict(wce)


def _acts(data: Mapping[str, Any]) -> bool:
    return (
        data.get("closeConnection") is True
        or data.get("blockConnection") is True
        or (isinstance(data.get("errorCode"), int) and not isinstance(data.get("errorCode"), bool))
    )


def _targets(data: Mapping[str, Any], names: tuple[str, ...], namespace: str, app: str) -> bool:
    # configureFailPoint is banned even when listed (commands.cpp).
    if "configureFailPoint" in names:
        return False
    if "appName" in data and data["appName"] != app:
        return False
    if "namespace" in data and data["namespace"] != namespace:
        return False
    if "failAllCommands" in data:
        return True
    commands = data.get("failCommands")
    if not isinstance(commands, list):
        return False
    # `cmd->hasAlias(name)`: any spelling of the command matches.
    return any(isinstance(c, str) and c in names for c in commands)


def _consume(point: FailPoint) -> bool:
    """Apply the mode: alwaysOn fires; times fires N times then turns off; skip passes N."""
    if point.mode == ALWAYS_ON:
        return True
    if point.mode == TIMES:
        if point.remaining <= 0:
            point.mode = OFF
            return False
        point.remaining -= 1
        if point.remaining == 0:
            point.mode = OFF
        return True
    if point.mode == SKIP:
        if point.remaining > 0:
            point.remaining -= 1
            return False
        return True
    return False


def _trip(data: Mapping[str, Any]) -> Trip:
    code = data.get("errorCode")
    labels = data.get("errorLabels")
    block = data.get("blockConnection") is True
    return Trip(
        data=dict(data),
        block_ms=int(data.get("blockTimeMS", 0)) if block else 0,
        close_connection=data.get("closeConnection") is True,
        error_code=int(code) if isinstance(code, int) and not isinstance(code, bool) else None,
        error_labels=tuple(str(x) for x in labels) if isinstance(labels, list) else (),
    )
