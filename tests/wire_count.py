"""The commands a pymongo client sends, counted over the wire (pymongo's command monitoring):
one listener for the round-trip tests, passed to a client or registered for the session."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager

from pymongo import monitoring


class Sent(monitoring.CommandListener):
    """The name of each command started while `on`, in order (`order`) and counted (`names`)."""

    def __init__(self, on: bool = True) -> None:
        self.on = on
        self.order: list[str] = []

    @property
    def names(self) -> Counter[str]:
        return Counter(self.order)

    def clear(self) -> None:
        self.order.clear()

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if self.on:
            self.order.append(event.command_name)

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass


def registered() -> Iterator[Sent]:
    """A listener registered for every client made from now on (pymongo keeps it for the
    session), counting only inside `counting`: the body of a module-scoped fixture."""
    listener = Sent(on=False)
    monitoring.register(listener)
    yield listener
    listener.on = False


@contextmanager
def counting(listener: Sent) -> Iterator[Sent]:
    """Count afresh what is sent inside the block."""
    listener.clear()
    listener.on = True
    try:
        yield listener
    finally:
        listener.on = False
