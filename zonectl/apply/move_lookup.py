"""A move whose connection reset (a load balancer's idle timeout on a long moveRange, a
mongos restarted in a rolling upgrade) is looked up, not given up. The migration runs on the
donor on its own client and goes on without the client that asked for it (mongo:src/mongo/
db/s/shardsvr_move_range_command.cpp), so after a reset zonectl asks the cluster:
- the chunk is on its destination: it counts as moved ("found done");
- its migration still runs ($currentOp): it is awaited with short reads, then the owner is
  read again ("awaited"); a reset during a long migration costs no try;
- neither: the identical move is sent again ("sent again"); it joins the migration if that
  started meanwhile (the donor's active-migrations registry joins an identical request:
  mongo:src/mongo/db/s/active_migrations_registry.h) or starts it anew.
Only resets with no progress count toward giving up: a reset during a migration that is
awaited to its commit costs no try; one after which nothing ran, or whose awaited migration
ended without the chunk moving, does. After RESETS_IN_A_ROW of those for one move the run
gives up, as before.
A moveCollection is looked up the same way (apply/collection_moves.py: its home shard, and
its resharding in config.reshardingOperations)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TypeVar

from zonectl.apply.reach import check_reach
from zonectl.errors import ZonectlError
from zonectl.plan.failures import OpFailedError, OutcomeUnknownError

RESETS_IN_A_ROW = 3  # failures of one move with no progress between: the link is down
BACKOFF_S = 0.5  # before the lookup: x1, x2, x3 after each failure in a row
POLL_S = 0.5  # between two reads while a migration is awaited

T = TypeVar("T")


@dataclass
class Resets:
    """The run's connection resets during moves and idempotent commands, and what each
    turned out to be."""

    found_done: int = 0
    awaited: int = 0
    sent_again: int = 0
    resent: int = 0  # idempotent commands sent again (apply/resend.py)
    gave_up: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    @property
    def total(self) -> int:
        return self.found_done + self.awaited + self.sent_again + self.resent + self.gave_up

    def count(self, outcome: str) -> None:
        with self._lock:
            setattr(self, outcome, getattr(self, outcome) + 1)

    def describe(self) -> str:
        """ "; 5 connection resets (3 found done, 2 sent again)", or "" when none."""
        if not self.total:
            return ""
        parts = [
            f"{n} {what}"
            for n, what in (
                (self.found_done, "found done"),
                (self.awaited, "awaited"),
                (self.sent_again, "sent again"),
                (self.resent, "command re-sent" if self.resent == 1 else "commands re-sent"),
                (self.gave_up, "gave up"),
            )
            if n
        ]
        noun = "connection reset" if self.total == 1 else "connection resets"
        return f"; {self.total} {noun} ({', '.join(parts)})"


@dataclass(frozen=True)
class Lookup:
    """How to look a move up: `landed()` reads whether the chunk (or collection: `thing`)
    is on its destination; `running()` whether its migration (`operation`) is still in
    flight (None: cannot tell); `shown_done` says where `landed()` read it."""

    landed: Callable[[], bool]
    running: Callable[[], bool | None]
    note: Callable[[str], None]
    what: str
    resets: Resets
    sleep: Callable[[float], None] = time.sleep
    thing: str = "chunk"
    operation: str = "migration"
    shown_done: str = "config.chunks shows it done"


def send_looked_up(send: Callable[[], str], look: Lookup) -> str:
    """`send()`'s outcome; after a reset connection, the lookup decides between "moved"
    (done, or awaited until done) and sending it again."""
    fails = 0  # resets that did not end in the chunk on its destination
    while True:
        try:
            return send()
        except OutcomeUnknownError:
            fails += 1
            if fails >= RESETS_IN_A_ROW:
                look.resets.count("gave_up")
                raise
            check_reach(look.what)  # the mongos stayed away: stop (exit 5)
        except OpFailedError:
            # A resend refused: the first send may have committed meanwhile (the donor then
            # refuses a move to itself, InvalidOptions), so the owner decides.
            if not fails or not _quietly(look.landed, False):
                raise
            look.note(f"{look.what}: the move sent again was refused; {look.shown_done}")
            return "moved"  # its reset is already counted, as sent again
        look.sleep(BACKOFF_S * fails)
        outcome = _after_reset(look)
        look.resets.count(outcome)
        if outcome != "sent_again":
            return "moved"


def _after_reset(look: Lookup) -> str:
    """What the reset turned out to be: "found_done", "awaited" or "sent_again"."""
    check_reach(look.what)
    running = _quietly(look.running, None)
    if running:
        look.note(
            f"{look.what}: the connection reset during the move; the {look.operation} still "
            "runs on the server: waiting for it"
        )
        while running:
            look.sleep(POLL_S)
            check_reach(look.what)
            running = _quietly(look.running, None)
        ended = f"{look.what}: the {look.operation} ended"
        if _quietly(look.landed, False):
            look.note(f"{ended} with the {look.thing} on its destination")
            return "awaited"
        look.note(f"{ended} without the {look.thing} moving; sent again")
        return "sent_again"
    if _quietly(look.landed, False):
        look.note(f"{look.what}: the connection reset during the move; {look.shown_done}")
        return "found_done"
    look.note(
        f"{look.what}: the connection reset during the move and it has not committed; sent "
        f"again (it joins the {look.operation} if that still runs)"
    )
    return "sent_again"


def _quietly(read: Callable[[], T], failed: T) -> T:
    """A lookup read; `failed` when it fails too (the resend will say if the link is back)."""
    try:
        return read()
    except ZonectlError:
        return failed
