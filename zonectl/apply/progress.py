"""Progress events of an apply on stderr: one line per op, and a rich progress bar
(chunks, elapsed, ETA) while eager migration moves chunks. stdout is never touched."""

from __future__ import annotations

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

from zonectl.errors import redact
from zonectl.plan.ops import Op


class ConsoleEvents:
    """The Events of `zonectl.apply.run` for a terminal (or a log, when stderr is not one)."""

    def __init__(self, console: Console, *, quiet: bool = False) -> None:
        self.console = console
        self.quiet = quiet
        self._progress: Progress | None = None
        self._task: TaskID | None = None

    def info(self, text: str) -> None:
        self.console.print(f"zonectl: {redact(text)}", markup=False)

    def op(self, op: Op, status: str) -> None:
        if self.quiet or self._progress is not None:
            return
        mark = "done" if status == "done" else status.upper()
        self.console.print(f"  {mark:6} {redact(op.describe())}", markup=False)

    def start(self, ns: str, chunks: int) -> None:
        if not chunks:
            return
        self._progress = Progress(
            TextColumn("[bold]{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("chunks"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=self.console,
            transient=False,
            # Not on a terminal (a log, or one of several clusters of a fleet run writing
            # through a line prefixer): no live bar, whose refresh thread writes on its own.
            disable=self.quiet or not self.console.is_terminal,
        )
        self._progress.start()
        self._task = self._progress.add_task(f"migrating {ns}", total=chunks)

    def advance(self, chunks: int) -> None:
        if self._progress is not None and self._task is not None:
            self._progress.advance(self._task, chunks)

    def note(self, text: str) -> None:
        self.console.print(f"zonectl: {redact(text)}", markup=False)

    def finish(self) -> None:
        if self._progress is not None:
            self._progress.stop()
        self._progress, self._task = None, None
