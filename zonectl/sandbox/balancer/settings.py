"""Parse the balancer's `config.settings` documents the way the config server reloads them.

Mirrors `BalancerSettingsType::fromBSON` / `ChunkSizeSettingsType::fromBSON` /
`AutoMergeSettingsType::fromBSON` in mongo:src/mongo/s/balancer_configuration.cpp
(reference §2.5). A reload error is a `CommandError` carrying the server's own context
("Failed to refresh the balancer settings :: caused by :: ...").
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Mapping
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from bson import Decimal128

from zonectl.sandbox.balancer.window_dow import Window, in_dow_window, parse_dow
from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.tostring import to_string
from zonectl.sandbox.versions import VersionProfile

SETTINGS_NS = "config.settings"
MB = 1024 * 1024

# sscanf("%d:%d") semantics: leading blanks and a sign are allowed, trailing text ignored.
_HHMM = re.compile(r"\s*([+-]?\d+):\s*([+-]?\d+)")


@dataclass(frozen=True)
class BalancerSettings:
    mode: str = "full"  # "full" | "off" | "autoSplitOnly" (<= 6.0)
    window: tuple[int, int] | None = None  # start, stop in minutes of the day
    wait_for_delete: bool = False
    attempt_to_balance_jumbo_chunks: bool = False
    max_chunk_size_bytes: int = 128 * MB
    auto_merge: bool = True
    # `_secondaryThrottle`: None = kDefault (absent), True/False = kOn/kOff, a dict = a
    # write concern (MigrationSecondaryThrottleOptions::createFromBalancerConfig)
    secondary_throttle: bool | dict[str, Any] | None = None
    dow: tuple[Window, ...] | None = None  # 8.3 activeWindowDOW, when it replaces activeWindow

    def should_balance(self, now: dt.datetime) -> bool:
        """`BalancerConfiguration::shouldBalance`: mode full and inside the window.

        The window is read in the config server's local time; the sandbox clock is taken
        as that local time, in UTC (a sandbox has no other time zone to offer).
        """
        return self.mode == "full" and self.in_window(now)

    def in_window(self, now: dt.datetime) -> bool:
        # isTimeInBalancingWindow compares whole ptimes of today; both ends are inclusive,
        # and `now` carries seconds, so stop "06:00" admits 06:00:00 only.
        if self.dow is not None:
            return in_dow_window(self.dow, now)
        if self.window is None:
            return True
        if now.tzinfo is not None:
            now = now.astimezone(dt.UTC)
        seconds = now.hour * 3600 + now.minute * 60 + now.second
        start, stop = (m * 60 for m in self.window)
        if stop > start:
            return start <= seconds <= stop
        return seconds >= start or seconds <= stop


def _wrap(context: str, err: CommandError) -> CommandError:
    # Status::withContext: "<context> :: caused by :: <reason>", same code.
    return CommandError(err.code, f"{context} :: caused by :: {err.message}", err.code_name)


def _bool_field(doc: Mapping[str, Any], name: str, default: bool | None) -> bool:
    """bsonExtractBooleanField(WithDefault): booleans and numbers are accepted. The message
    with a default is bsonExtractBooleanFieldWithDefault's (mongo:src/mongo/bson/util/
    bson_extract.cpp): `_waitForDelete: "yes"` fails the refresh with TypeMismatch."""
    if name not in doc:
        if default is None:
            raise CommandError.of("NoSuchKey", f'Missing expected field "{name}"')
        return default
    value = doc[name]
    if isinstance(value, bool | int | float | Decimal128):
        return bool(value.to_decimal()) if isinstance(value, Decimal128) else bool(value)
    if default is not None:
        raise CommandError.of(
            "TypeMismatch",
            f'Expected boolean or number type for field "{name}", found {type_name(value)}',
        )
    raise CommandError.of(
        "TypeMismatch",
        f'"{name}" had the wrong type. Expected boolean or number, found {type_name(value)}',
    )


def _minutes(text: str) -> int | None:
    """`toPointInTime`: "hh:mm" with `hh / 24 == 0 && mm / 60 == 0` in C integer division."""
    match = _HHMM.match(text)
    if match is None:
        return None
    hh, mm = int(match.group(1)), int(match.group(2))
    if abs(hh) >= 24 or abs(mm) >= 60:
        return None
    return hh * 60 + mm


def parse_window(doc: Mapping[str, Any]) -> tuple[int, int] | None:
    if "activeWindow" not in doc:
        return None
    window = doc["activeWindow"]
    if not isinstance(window, Mapping):
        raise CommandError.of(
            "TypeMismatch",
            f'"activeWindow" had the wrong type. Expected object, found {type_name(window)}',
        )
    if not window:
        raise CommandError.of("BadValue", "activeWindow not specified")
    # BSONElement::str() is "" for a non-string, so a number counts as missing.
    start = window.get("start") if isinstance(window.get("start"), str) else ""
    stop = window.get("stop") if isinstance(window.get("stop"), str) else ""
    if not start or not stop:
        raise CommandError.of(
            "BadValue",
            f"must specify both start and stop of balancing window: {to_string(window)}",
        )
    start_min, stop_min = _minutes(str(start)), _minutes(str(stop))
    if start_min is None or stop_min is None:
        raise CommandError.of(
            "BadValue", 'activeWindow format is  { start: "hh:mm" , stop: "hh:mm" }'
        )
    if start_min == stop_min:
        raise CommandError.of("BadValue", "start and stop times must be different")
    return start_min, stop_min


def _parse_mode(doc: Mapping[str, Any], version: VersionProfile) -> str:
    if _bool_field(doc, "stopped", False):
        return "off"
    mode = doc.get("mode", "full")
    if not isinstance(mode, str):
        raise CommandError.of(
            "TypeMismatch",
            f'"mode" had the wrong type. Expected string, found {type_name(mode)}',
        )
    modes = ("full", "autoSplitOnly", "off") if version.has_autosplit_only_mode else ("full", "off")
    if mode in modes:
        return mode
    if version.unknown_mode_is_off:
        return "off"  # 7.x: warning 7575700, "Balancer turned off because ... not valid"
    raise CommandError.of("BadValue", "Invalid balancer mode")


def _secondary_throttle(doc: Mapping[str, Any]) -> bool | dict[str, Any] | None:
    """`MigrationSecondaryThrottleOptions::createFromBalancerConfig` (reference §1.2)."""
    if "_secondaryThrottle" not in doc:
        return None
    value = doc["_secondaryThrottle"]
    if isinstance(value, bool):
        return value
    if isinstance(value, Mapping):
        return dict(value)
    raise CommandError.of(
        "TypeMismatch",
        f'"_secondaryThrottle" had the wrong type. Expected object, found {type_name(value)}',
    )


def _parse_balancer(
    doc: Mapping[str, Any], version: VersionProfile, dow_enabled: bool
) -> dict[str, Any]:
    mode = _parse_mode(doc, version)
    dow = parse_dow(doc, _minutes, dow_enabled) if version.has_window_dow else None
    return {
        "mode": mode,
        "dow": dow,
        # A non-empty activeWindowDOW in force: activeWindow is neither used nor checked.
        "window": parse_window(doc) if dow is None else None,
        "secondary_throttle": _secondary_throttle(doc),
        "wait_for_delete": _bool_field(doc, "_waitForDelete", False),
        "attempt_to_balance_jumbo_chunks": _bool_field(doc, "attemptToBalanceJumboChunks", False),
    }


def _parse_chunk_size(doc: Mapping[str, Any] | None, version: VersionProfile) -> int:
    if doc is None:
        return version.default_chunk_size_mb * MB
    megabytes = _integer_field(doc, "value")
    if not 1 <= megabytes <= 1024:
        raise CommandError.of("BadValue", f"{megabytes} is not a valid value for chunksize")
    return megabytes * MB


def _integer_field(doc: Mapping[str, Any], name: str) -> int:
    """bsonExtractIntegerField (mongo:src/mongo/bson/util/bson_extract.cpp): a number whose
    value is exactly an int64. The config.settings validator only asks for a number in
    [1, 1024], so `value: 3.5` is written and then fails every refresh with BadValue
    (jstests/sharding/config_settings_schema.js: "the balancer will fail until a correct
    value is set")."""
    if name not in doc:
        raise CommandError.of("NoSuchKey", f'Missing expected field "{name}"')
    value = doc[name]
    if isinstance(value, bool) or not isinstance(value, int | float | Decimal128):
        raise CommandError.of(
            "TypeMismatch",
            f'Expected field "{name}" to have numeric type, but found {type_name(value)}',
        )
    number = value.to_decimal() if isinstance(value, Decimal128) else Decimal(value)
    exact = number.is_finite() and abs(number) < 2**63 and number == number.to_integral_value()
    if not exact:
        raise CommandError.of(
            "BadValue",
            f'Expected field "{name}" to have a value exactly representable as a 64-bit '
            f"integer, but found {name}: {to_string(value)}",
        )
    return int(number)


def parse_settings(
    balancer: Mapping[str, Any] | None,
    chunksize: Mapping[str, Any] | None,
    automerge: Mapping[str, Any] | None,
    version: VersionProfile,
    *,
    dow_enabled: bool = False,
) -> BalancerSettings:
    """`BalancerConfiguration::refreshAndCheck`: balancer, then chunk size, then automerge.
    `dow_enabled`: featureFlagBalancerWindowDOW, on at FCV 8.3 and above."""
    try:
        fields = _parse_balancer(balancer or {}, version, dow_enabled)
    except CommandError as err:
        raise _wrap("Failed to refresh the balancer settings", err) from None
    try:
        chunk_bytes = _parse_chunk_size(chunksize, version)
    except CommandError as err:
        raise _wrap("Failed to refresh the chunk sizes settings", err) from None
    auto_merge = True
    if version.balancer_toggles_automerge and automerge is not None:
        try:
            auto_merge = _bool_field(automerge, "enabled", None)
        except CommandError as err:
            raise _wrap("Failed to refresh the autoMerge settings", err) from None
    return BalancerSettings(max_chunk_size_bytes=chunk_bytes, auto_merge=auto_merge, **fields)
