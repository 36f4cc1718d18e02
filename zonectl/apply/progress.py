"""Progress events of an apply on stderr: one line per op, and a rich progress bar (bytes
and chunks moved, rate, elapsed, ETA) while eager migration moves chunks. Time is read from
`clock` (the cluster's: simulated for an in-process sandbox), so the ETA is a real one:
the bytes left at the copy rate observed so far. stdout is never touched."""

from __future__ import annotations

from collections.abc import Callable

from rich import filesize
from rich.cells import cell_len as text_width
from rich.console import Console
from rich.progress import (
    BarColumn,
    DownloadColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Column
from rich.text import Text

from zonectl.errors import redact
from zonectl.plan.ops import Op
from zonectl.render.inert import rich_markup, terminal

_WIDE = 100  # columns from which the bar says "migrating" and shows the elapsed time
_BAR = (5, 40)  # the bar's least and most columns
_RATE = len("1,023.9 MiB/s")
_TIME = len("0:00:00")  # rich's h:mm:ss; a run of 10 h or more takes one column more


def _figures(chunks: int, total_bytes: int) -> tuple[int, int]:
    """The widest the byte and chunk counts get: the total beside itself."""
    units = ["bytes", "KiB", "MiB", "GiB", "TiB", "PiB"]
    unit, suffix = filesize.pick_unit_and_suffix(total_bytes, units, 1024)
    total = f"{total_bytes / unit:,.{0 if unit == 1 else 1}f}"
    return len(f"{total}/{total} {suffix}"), len(f"{chunks}/{chunks} chunks")


class BinarySpeedColumn(ProgressColumn):
    """The copy rate in binary units (MiB/s), the unit family of the byte counts beside it
    (rich's TransferSpeedColumn says MB/s)."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        if speed is None:
            return Text("?", style="progress.data.speed")
        units = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"]
        unit, suffix = filesize.pick_unit_and_suffix(int(speed), units, 1024)
        return Text(f"{speed / unit:.1f} {suffix}/s", style="progress.data.speed")


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
        # One line at any width from 80 columns: every figure whole (never wrapped or
        # cut), the namespace cut with an ellipsis and the bar taking what is left; below
        # 100 columns the words "migrating" and the elapsed time give way.
        width = self.console.width
        wide = width >= _WIDE
        nbytes, nchunks = _figures(chunks, max(total_bytes, 1))
        times = [_TIME + 1] * (2 if wide else 1)  # elapsed, remaining
        fixed = [nbytes, nchunks, _RATE, len("ETA"), *times]
        name = text_width(f"migrating {ns}" if wide else ns)
        room = width - sum(fixed) - len(fixed) - 1 - _BAR[0]  # a space between columns
        name_width = max(min(name, room), 1)
        bar = max(min(width - sum(fixed) - len(fixed) - 1 - name_width, _BAR[1]), _BAR[0])

        def figure(least: int) -> Column:
            return Column(no_wrap=True, min_width=least)

        self._progress = Progress(
            TextColumn(
                "[bold]{task.description}",
                table_column=Column(no_wrap=True, overflow="ellipsis", width=name_width),
            ),
            BarColumn(bar_width=bar),
            DownloadColumn(binary_units=True, table_column=figure(nbytes)),
            TextColumn("{task.fields[chunks]} chunks", table_column=figure(nchunks)),
            BinarySpeedColumn(table_column=figure(_RATE)),
            *([TimeElapsedColumn(table_column=figure(_TIME))] if wide else []),
            TextColumn("ETA"),
            TimeRemainingColumn(table_column=figure(_TIME)),
            console=self.console,
            transient=False,
            # Not on a terminal (a log, or one of several clusters of a fleet run writing
            # through a line prefixer): no live bar, whose refresh thread writes on its own.
            disable=self.quiet or not self.console.is_terminal,
            **extra,  # type: ignore[arg-type]
        )
        self._progress.start()
        self._task = self._progress.add_task(
            f"migrating {rich_markup(ns)}" if wide else rich_markup(ns),
            total=max(total_bytes, 1),
            chunks=f"0/{chunks}",
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
