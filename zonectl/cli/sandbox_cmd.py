"""`zonectl sandbox`: run the simulated sharded cluster in the foreground until a signal."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from zonectl.cli.error_boundary import guarded, stderr
from zonectl.errors import UsageError
from zonectl.forecast.units import format_rate, parse_rate
from zonectl.sandbox.versions import DEFAULT_VERSION, PROFILES

# From the versions table, so a profile added there is offered here.
VERSIONS_HELP = ", ".join(f"{v} (default)" if v == DEFAULT_VERSION else v for v in PROFILES)


@guarded
def command(
    port: Annotated[
        int, typer.Option("--port", "-p", min=0, max=65535, help="TCP port (0: any free).")
    ] = 27017,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    cluster: Annotated[
        Path | None,
        typer.Option("--cluster", help="Cluster file (YAML); default: the shipped demo cluster."),
    ] = None,
    version: Annotated[
        str | None,
        typer.Option("--version", help=f"Server version to imitate: {VERSIONS_HELP}."),
    ] = None,
    state: Annotated[
        Path | None,
        typer.Option("--state", help="Load state from FILE if it exists; save it there on exit."),
    ] = None,
    auth: Annotated[
        bool, typer.Option("--auth", help="Require SCRAM users from the cluster file.")
    ] = False,
    balancer_interval: Annotated[
        float,
        typer.Option(
            "--balancer-interval",
            help="Seconds between balancer rounds (MongoDB's default round interval is 10 s).",
        ),
    ] = 10.0,
    time_scale: Annotated[
        float,
        typer.Option(
            "--time-scale",
            help="Run simulated time N times faster than real time (migrations, balancer "
            "rounds and windows), so a demo can watch hours pass in seconds. Default 1.",
        ),
    ] = 1.0,
    copy_rate: Annotated[
        str | None,
        typer.Option(
            "--copy-rate",
            help="Simulated migration copy rate of shards without their own, e.g. 40MiB/s "
            "(default: the cluster file's balancer.copyRate, else 64MiB/s).",
        ),
    ] = None,
) -> int:
    """Run the simulated sharded cluster (a mongos look-alike) on a local port.

    Every chunk migration, the balancer's and moveChunk/moveRange alike, takes simulated
    time: MongoDB's fixed steps, then its bytes at the slower shard's copy rate (cluster
    file: per-shard rates, per-document cost, jitter), and a manual move blocks until it
    commits, as on a real cluster.
    """
    from zonectl.sandbox.launch import serve
    from zonectl.sandbox.uri import SandboxHandle, SandboxOptions, build_sandbox

    if time_scale <= 0:
        raise UsageError(f"--time-scale {time_scale:g}: must be above zero (1 = real time)")
    try:
        rate = parse_rate(copy_rate) if copy_rate is not None else None
    except ValueError as exc:
        raise UsageError(f"--copy-rate: {exc}") from None
    options = SandboxOptions(
        cluster=cluster, version=version, state=state, balancer_interval=balancer_interval,
        auth=auth, copy_rate=rate, time_scale=time_scale,
    )  # fmt: skip
    sandbox = build_sandbox(options)
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    previous = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    handle = SandboxHandle(sandbox, serve(sandbox, host=host, port=port), options)
    try:
        if balancer_interval > 0:
            sandbox.balancer.start(balancer_interval)
        stderr.print(
            f"zonectl sandbox: MongoDB {sandbox.version.version} mongos on {handle.uri} "
            f"({len(sandbox.cluster.shard_names())} shards, copy rate "
            f"{format_rate(sandbox.balancer.copy_rate)}, time x{time_scale:g}); Ctrl-C to stop",
            markup=False,
        )
        while not stop.wait(0.5):
            pass
    finally:
        handle.close()
        for s, h in previous.items():
            signal.signal(s, h)
    if state is not None:
        stderr.print(f"zonectl sandbox: state saved to {state}", markup=False)
    return 0
