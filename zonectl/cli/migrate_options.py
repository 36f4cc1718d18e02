"""Options shared by `apply --migrate` and `rotate --migrate`: --parallel and --budget, and
their checks (a usage error, exit 2, before anything is sent)."""

from __future__ import annotations

from typing import Any

import typer

from zonectl.errors import UsageError


def parallel_option() -> Any:
    return typer.Option(
        "--parallel",
        help="With --migrate: moves at once, over disjoint shard pairs (no shard in two "
        "moves: MongoDB lets a shard take part in one migration at a time). Default: the "
        "shard count, i.e. as many as the shards allow; lower it to spare a busy cluster.",
    )


def budget_option() -> Any:
    return typer.Option(
        "--budget",
        "--migrate-budget",
        help="With --migrate: start no new move after this long (e.g. 30m, 2h); moves "
        "already running finish, the rest is left to the balancer and reported.",
    )


def check_parallel(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise UsageError(f"--parallel {value}: must be at least 1 (moves at once)")
    return value
