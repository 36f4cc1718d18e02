"""The sandbox balancer: rounds, in-flight migrations, and the settings they obey (ref §5)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox


class Balancer:
    def __init__(self, sandbox: Sandbox) -> None:
        self.sandbox = sandbox
