"""`zonectl sandbox`: run the simulated sharded cluster in the foreground."""

from __future__ import annotations

import typer

from zonectl.cli.boundary import guarded
from zonectl.errors import ZonectlError


@guarded
def command(
    port: int = typer.Option(27017, "--port", "-p", help="TCP port on 127.0.0.1."),
) -> int:
    """Run the simulated sharded cluster (a mongos look-alike) on a local port."""
    raise ZonectlError(f"the sandbox is not built yet (port {port})")
