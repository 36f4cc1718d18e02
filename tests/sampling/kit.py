"""Helpers for the sampling tests: a served sandbox seeded from cluster-file text with its
workload attached (as `sandbox:` URIs and `zonectl sandbox` attach it), and clock steps."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from zonectl.sandbox.seed import workload
from zonectl.sandbox.seed.build import seed
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox


def serve_with_workload(sandbox_server: Callable[..., Any], text: str, version: str = "7.0") -> Any:
    sandbox = Sandbox(version)
    spec = load_cluster_file("cluster.yaml", text)
    seed(sandbox, spec, "cluster.yaml")
    workload.attach(sandbox, spec, seeded=True, source="cluster.yaml")
    return sandbox_server(version, sandbox=sandbox)


def step(handle: Any, seconds: float) -> None:
    """Move the virtual clock; the sampler sees time pass when the next command arrives."""
    handle.sandbox.clock.advance(dt.timedelta(seconds=seconds))
    handle.client.admin.command("ping")
