"""`configureFailPoint`: MongoDB's test-only fault injection, for the `failCommand` point.

Parsing follows mongo:src/mongo/util/fail_point.cpp `FailPoint::parseBSON`: mode is "off",
"alwaysOn", {times: N} or {skip: N} (N a non-negative int); `data` must be an object. The
reply's `count` is the number of times the point had fired before this call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox import failpoints as fp
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError


def _parse_mode(mode: Any) -> tuple[str, int]:
    if isinstance(mode, str):
        if mode in (fp.OFF, fp.ALWAYS_ON):
            return mode, 0
        raise CommandError.of("BadValue", f"unknown mode: {mode}")
    if isinstance(mode, Mapping):
        for key in (fp.TIMES, fp.SKIP):
            if key in mode:
                value = mode[key]
                if not isinstance(value, int | float) or isinstance(value, bool):
                    raise CommandError.of("TypeMismatch", f"'{key}' option must be a number")
                if value < 0:
                    raise CommandError.of("BadValue", f"'{key}' option to 'mode' must be positive")
                return key, int(value)
        if "activationProbability" in mode:
            raise CommandError.of(
                "BadValue", "activationProbability is not supported by the sandbox"
            )
        raise CommandError.of("BadValue", "invalid mode object")
    raise CommandError.of("TypeMismatch", "'mode' must be a string or JSON object")


@command("configureFailPoint", admin_only=True)
def configure_fail_point(request: Request) -> dict[str, Any]:
    name = request.arg
    points = request.sandbox.failpoints
    if not isinstance(name, str) or not points.known(name):
        raise CommandError.of("BadValue", f"Unknown fail point: {name}")
    if "mode" not in request.body:
        raise CommandError.of("BadValue", "Missing mode")
    mode, remaining = _parse_mode(request.body["mode"])
    data = request.body.get("data", {})
    if not isinstance(data, Mapping):
        raise CommandError.of("TypeMismatch", "the 'data' option must be a JSON object")
    count = points.configure(name, mode, remaining, data)
    return {"count": count}
