"""What a command may ask to watch on the connection it opens: every command sent, echoed
(`-v`), or counted (the plan's server footprint). Handed to zonectl.mongo.connect.connect."""

from __future__ import annotations

from collections.abc import Callable

from zonectl.mongo.echo import CommandEcho
from zonectl.mongo.footprint import Footprint

__all__ = ["CommandEcho", "Footprint", "Listener", "echo_listeners"]

Listener = CommandEcho | Footprint  # what zonectl.mongo.connect.connect is given to watch


def echo_listeners(emit: Callable[[str], None] | None) -> list[CommandEcho]:
    """A listener handing each command sent, as one redacted line, to `emit`; none
    without `emit`."""
    return [CommandEcho(emit)] if emit is not None else []
