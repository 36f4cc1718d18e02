"""`sandbox:` URIs: start an in-process sandbox server and hand back its mongodb:// URI.

    sandbox:                               the shipped demo cluster, version 7.0
    sandbox:PATH                           a cluster file
    sandbox:PATH?version=6.0&state=FILE    ...as server version 6.0, state loaded/saved
    sandbox:?balancer=2                    ...with balancer rounds every 2 s
    sandbox:?topology=standalone           ...posing as a standalone (or replicaSet)
    sandbox:?copyRate=40MiB/s              ...migrations copying at 40 MiB/s of sandbox time
    sandbox:?now=2026-11-23T17:01:00Z      ...its (virtual) clock starting at that instant,
                                           not now: a run that prints the same every day

zonectl's mongo layer connects to `handle.uri` with pymongo like any cluster, so the
sandbox path and the real path are the same code.
"""

from __future__ import annotations

import datetime as dt
import urllib.parse
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from zonectl.errors import UsageError
from zonectl.sandbox.rates import parse_rate
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.seed import persist, workload

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox
    from zonectl.sandbox.wire.server import SandboxServer

SCHEME = "sandbox:"
_PARAMS = {"version", "state", "balancer", "auth", "topology", "copyRate", "now"}


@dataclass(frozen=True)
class SandboxOptions:
    cluster: Path | None = None
    version: str | None = None
    state: Path | None = None
    balancer_interval: float | None = None
    auth: bool = False
    topology: str = "mongos"  # or standalone / replicaSet: pose as a wrong target
    copy_rate: float | None = None  # bytes/s of sandbox time; None: the cluster file's
    time_scale: float | None = None  # real-time clock N x faster; None: a virtual clock
    start: dt.datetime | None = None  # the virtual clock's first instant; None: now


def is_sandbox_uri(uri: str) -> bool:
    return uri.startswith(SCHEME)


def parse(uri: str) -> SandboxOptions:
    """The options of a `sandbox:` URI; unknown parameters are a usage error."""
    if not is_sandbox_uri(uri):
        raise UsageError(f"not a sandbox URI: {uri!r}")
    rest = uri[len(SCHEME) :]
    path, _, query = rest.partition("?")
    params = urllib.parse.parse_qs(query, keep_blank_values=True)
    unknown = set(params) - _PARAMS
    if unknown:
        raise UsageError(
            f"unknown sandbox URI parameter(s) {', '.join(sorted(unknown))}; "
            f"known: {', '.join(sorted(_PARAMS))}"
        )

    def one(name: str) -> str | None:
        values = params.get(name)
        return values[-1] if values else None

    interval = one("balancer")
    try:
        balancer_interval = float(interval) if interval else None
    except ValueError:
        raise UsageError(f"sandbox URI: balancer={interval!r} is not a number of seconds") from None
    rate_text = one("copyRate")
    try:
        copy_rate = parse_rate(rate_text) if rate_text else None
    except ValueError as exc:
        raise UsageError(f"sandbox URI: copyRate: {exc}") from None
    start_text = one("now")
    try:
        start = dt.datetime.fromisoformat(start_text) if start_text else None
    except ValueError:
        raise UsageError(f"sandbox URI: now={start_text!r} is not an ISO 8601 instant") from None
    if start is not None and start.tzinfo is None:
        raise UsageError(f"sandbox URI: now={start_text!r} needs an offset, e.g. Z")
    return SandboxOptions(
        start=start,
        copy_rate=copy_rate,
        cluster=Path(urllib.parse.unquote(path)) if path else None,
        version=one("version") or None,
        state=Path(state) if (state := one("state")) else None,
        balancer_interval=balancer_interval,
        auth=(one("auth") or "").lower() in ("1", "true", "yes"),
        topology=one("topology") or "mongos",
    )


def build_sandbox(options: SandboxOptions) -> Sandbox:
    """A sandbox from a cluster file (or the demo), or from saved state when it exists.
    Version: explicit, else the state file's, else the cluster file's, else 7.0."""
    from zonectl.sandbox.clock import Clock
    from zonectl.sandbox.state import Sandbox
    from zonectl.sandbox.versions import DEFAULT_VERSION, profile

    spec = seed.load(options.cluster)
    saved_version = persist.read_version(options.state) if options.state else None
    version = options.version or saved_version or spec.version or DEFAULT_VERSION
    try:
        profile(version)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    auth = seed.auth_config(spec) if options.auth else None
    if options.auth and auth is None:
        raise UsageError("--auth needs a 'users:' section in the cluster file")
    try:
        if options.time_scale:
            clock = Clock(scale=options.time_scale)
        else:
            clock = Clock.virtual(options.start)
        sandbox = Sandbox(version, auth=auth, topology=options.topology, clock=clock)
    except ValueError as exc:
        raise UsageError(f"sandbox URI: {exc}") from None
    source = str(options.cluster or seed.demo_path())
    seeded = not (saved_version is not None and options.state is not None)
    if not seeded and options.state is not None:
        persist.load(sandbox, options.state)
    else:
        seed.seed(sandbox, spec, source)
    workload.attach(sandbox, spec, seeded=seeded, source=source)
    # Migration costs are settings of the simulation, not saved state: the cluster file's
    # (also when the state file was loaded instead of the seed), the URI's copy rate first.
    seed.apply_costs(sandbox, spec, options.copy_rate)
    return sandbox


class SandboxHandle:
    """A running in-process sandbox: `.uri` to connect, `.close()` to stop (saving state
    to `options.state` when one was named)."""

    def __init__(self, sandbox: Sandbox, server: SandboxServer, options: SandboxOptions) -> None:
        self.sandbox = sandbox
        self.server = server
        self.options = options
        self.uri = server.uri
        self._closed = False

    def save(self) -> None:
        if self.options.state is not None:
            persist.save(self.sandbox, self.options.state)

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        try:
            self.sandbox.balancer.stop()
        finally:
            try:
                self.save()
            finally:
                self.server.close()

    def __enter__(self) -> SandboxHandle:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def start(uri: str, *, host: str = "127.0.0.1", port: int = 0) -> SandboxHandle:
    """Start the sandbox a `sandbox:` URI describes, listening on an ephemeral port."""
    from zonectl.sandbox.launch import serve

    options = parse(uri)
    sandbox = build_sandbox(options)
    server = serve(sandbox, host=host, port=port)
    if options.balancer_interval:
        sandbox.balancer.start(options.balancer_interval)
    return SandboxHandle(sandbox, server, options)
