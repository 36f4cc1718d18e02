"""Progress events of an apply on stderr: one line per op, and a rich progress bar (bytes
and chunks moved, rate, elapsed, ETA) while eager migration moves chunks. Time is read from
`clock` (the cluster's: simulated for an in-process sandbox), so the ETA is a real one:
the bytes left at the copy rate observed so far. stdout is never touched."""

from __future__ import annotations

from collections.abc import Callable

from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)

from zonectl.errors import redact
from zonectl.plan.ops import Op
from zonectl.render.inert import rich_markup, terminal


class ConsoleEvents:
    """The Events of `zonectl.apply.run` for a terminal (or a log, when stderr is not one)."""

    def __init__(
        self, console: Console, *, quiet: bool = False, clock: Callable[[], float] | None = None
    ) -> None:
        self.console = console
        self.quiet = quiet
        self.clock = clock
        self._chunks = (0, 0)
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def info(self, text: str) -> None:
        self.console.print(terminal(f"zonectl: {redact(text)}"), markup=False)

    def op(self, op: Op, status: str) -> None:
        if self.quiet or self._progress is not None:
            return
        mark = "done" if status == "done" else status.upper()
        self.console.print(terminal(f"  {mark:6} {redact(op.describe())}"), markup=False)

    def start(self, ns: str, chunks: int, total_bytes: int = 0) -> None:
        if not chunks:
            return
        self._chunks = (0, chunks)
        extra = {"get_time": self.clock} if self.clock is not None else {}
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            DownloadColumn(binary_units=True),
            TextColumn("{task.fields[chunks]} chunks"),
            TransferSpeedColumn(),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            # Not on a terminal (a log, or one of several clusters of a fleet run writing
            # through a line prefixer): no live bar, whose refresh thread writes on its own.
            disable=self.quiet or not self.console.is_terminal,
            **extra,  # type: ignore[arg-type]
        )
        self._progress.start()
        self._task = self._progress.add_task(
            f"migrating {rich_markup(ns)}", total=max(total_bytes, 1), chunks=f"0/{chunks}"
        )

    def advance(self, chunks: int, nbytes: int = 0) -> None:
        done, total = self._chunks
        self._chunks = (done + chunks, total)
        if self._progress is not None and self._task is not None:
            self._progress.update(self._task, advance=nbytes, chunks=f"{done + chunks}/{total}")

    def note(self, text: str) -> None:
        self.console.print(terminal(f"zonectl: {redact(text)}"), markup=False)

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._progress, self._task = None, None
