"""The time-to-compliance forecast's options for `plan` and `status` (--copy-rate,
--parallel, --balancer-tz) and their checks before anything is sent; the reads and the
forecast are zonectl.session.forecast."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import typer

from zonectl.errors import UsageError
from zonectl.forecast.units import DEFAULT_COPY_RATE, parse_rate
from zonectl.model.desired import DesiredState
from zonectl.session.forecast import ForecastFlags
from zonectl.time_zones import load_time_zone

__all__ = [
    "balancer_tz_option",
    "copy_rate_option",
    "parallel_forecast_option",
    "parse_forecast_flags",
    "policy_timezone",
    "with_policy_timezone",
]


def copy_rate_option() -> Any:
    return typer.Option(
        "--copy-rate",
        help="Copy rate of one migration for the forecast, e.g. 40MiB/s, instead of the "
        "rate learned from config.changelog (or, with no history, 64MiB/s assumed).",
    )


def parallel_forecast_option() -> Any:
    return typer.Option(
        "--parallel",
        help="Forecast `--migrate --parallel N` (default: the shard count).",
    )


def balancer_tz_option() -> Any:
    return typer.Option(
        "--balancer-tz",
        help="IANA time zone of the config server, in which the balancer reads its "
        "active window, e.g. Europe/Berlin; overrides the policy's balancer.timezone "
        "(default UTC).",
    )


def with_policy_timezone(
    flags: ForecastFlags, desired: DesiredState | None, environ_zone: str | None = None
) -> ForecastFlags:
    """The balancer's time zone: --balancer-tz, else $ZONECTL_CONFIG_TIMEZONE (`environ_zone`),
    else the policy's `balancer.timezone` (validated with the policy, ZP503), else UTC."""
    if flags.tz_given:
        return flags
    if environ_zone is not None:
        try:
            return replace(
                flags, tz=load_time_zone(environ_zone), tz_name=environ_zone, tz_given=True
            )
        except ValueError as exc:
            raise UsageError(f"ZONECTL_CONFIG_TIMEZONE: {exc}") from None
    stated = policy_timezone(desired)
    if stated is None:
        return flags
    return replace(flags, tz=load_time_zone(stated), tz_name=stated)


def policy_timezone(desired: DesiredState | None) -> str | None:
    return desired.balancer.timezone if desired and desired.balancer else None


def parse_forecast_flags(
    copy_rate: str | None, parallel: int | None, balancer_tz: str | None
) -> ForecastFlags:
    """The forecast options, checked before anything is sent (UsageError: exit 2)."""
    try:
        rate = parse_rate(copy_rate) if copy_rate is not None else float(DEFAULT_COPY_RATE)
    except ValueError as exc:
        raise UsageError(f"--copy-rate: {exc}") from None
    if parallel is not None and parallel < 1:
        raise UsageError(f"--parallel {parallel}: must be at least 1 (moves at once)")
    try:
        tz = load_time_zone(balancer_tz or "UTC")
    except ValueError as exc:
        raise UsageError(f"--balancer-tz: {exc}") from None
    return ForecastFlags(
        rate,
        parallel,
        tz,
        balancer_tz or "UTC",
        tz_given=balancer_tz is not None,
        rate_given=copy_rate is not None,
    )
