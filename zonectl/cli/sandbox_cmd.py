"""`zonectl sandbox`: run the simulated sharded cluster in the foreground until a signal."""

from __future__ import annotations

import signal
import threading
from pathlib import Path
from types import FrameType
from typing import Annotated

import typer

from zonectl.cli.boundary import guarded, stderr


@guarded
def command(
    port: Annotated[int, typer.Option("--port", "-p", help="TCP port (0: any free).")] = 27017,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    cluster: Annotated[
        Path | None,
        typer.Option("--cluster", help="Cluster file (YAML); default: the shipped demo cluster."),
    ] = None,
    version: Annotated[
        str | None,
        typer.Option("--version", help="Server version to imitate: 5.0, 6.0, 7.0 (default), 8.0."),
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
) -> int:
    """Run the simulated sharded cluster (a mongos look-alike) on a local port."""
    from zonectl.sandbox.launch import serve
    from zonectl.sandbox.uri import SandboxHandle, SandboxOptions, build_sandbox

    options = SandboxOptions(
        cluster=cluster, version=version, state=state, balancer_interval=balancer_interval,
        auth=auth,
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
            f"({len(sandbox.cluster.shard_names())} shards); Ctrl-C to stop",
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
