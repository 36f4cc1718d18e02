"""`zonectl status`'s plain text (no TTY) written without rich where what rich prints is
sure: a line of text that fits the width, and the per-shard bars; anything else (tables,
long or multi-line text) is printed by rich. 10,000 collections are 110,000 lines, which
rich lays out at about a millisecond a collection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.measure import Measurement
from rich.table import Table
from rich.text import Text

GAP = "  "  # a column's right padding and the next one's left (pad_edge=False: none outside)


class Line:
    """A line of text printed as rich prints `Text(text, style=style)` (`text` has no control
    characters rich would strip: zonectl.render.inert.terminal escaped them). The plain
    writer writes the text itself when it fits; rich builds the Text only when it prints it,
    which for 110,000 lines is most of what laying them out would cost."""

    __slots__ = ("style", "text")

    def __init__(self, text: str, style: str = "") -> None:
        self.text = text
        self.style = style

    def __rich__(self) -> Text:
        return Text(self.text, style=self.style)


class BarTable:
    """The per-shard bars (status_text._bars): rows of shard, bar (left), chunks, share
    (right), as a borderless rich table when rich prints them (built then, once: cyan and
    dim bars in colour), and as plain strings for the plain writer."""

    def __init__(self, color: bool) -> None:
        self.color = color
        self.plain_rows: list[tuple[str, str, str, str]] = []
        self._bars: list[tuple[str, str]] = []  # each bar's filled and empty part
        self._table: Table | None = None

    def add_row(self, shard: str, filled: str, empty: str, chunks: str, share: str) -> None:
        self.plain_rows.append((shard, filled + empty, chunks, share))
        self._bars.append((filled, empty))
        self._table = None

    def table(self) -> Table:
        if self._table is None:
            table = Table(box=None, show_header=False, pad_edge=False)
            table.add_column("shard")
            table.add_column("bar")
            table.add_column("chunks", justify="right")
            table.add_column("share", justify="right")
            for (shard, _, chunks, share), (filled, empty) in zip(
                self.plain_rows, self._bars, strict=True
            ):
                bar = Text(filled, style="cyan" if self.color else "")
                bar.append(empty, style="dim" if self.color else "")
                table.add_row(Text(shard), bar, chunks, share)
            self._table = table
        return self._table

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        yield self.table()

    def __rich_measure__(self, console: Console, options: ConsoleOptions) -> Measurement:
        return Measurement.get(console, options, self.table())


def write_plain(parts: Iterable[RenderableType], console: Console, out: IO[str]) -> None:
    """Each part as rich prints it on `console` (no colour), the sure ones written here."""
    _write(parts, console, out, console.width)  # the width once: rich works it out each time


def _write(parts: Iterable[RenderableType], console: Console, out: IO[str], width: int) -> None:
    for part in parts:
        if isinstance(part, Group):
            _write(part.renderables, console, out, width)
        elif isinstance(part, Line) and _fits(part.text, width):
            out.write(part.text + "\n")
        elif isinstance(part, Text) and _fits(part.plain, width):
            out.write(part.plain + "\n")
        elif isinstance(part, BarTable) and (lines := _bar_lines(part, width)):
            out.write("".join(line + "\n" for line in lines))
        else:
            console.print(part)


def _fits(text: str, width: int) -> bool:
    return "\n" not in text and "\t" not in text and _cells(text) <= width


def _cells(text: str) -> int:
    """Columns `text` takes: one per printable ASCII character, else as rich counts."""
    return len(text) if text.isascii() and text.isprintable() else cell_len(text)


def _bar_lines(table: BarTable, width: int) -> list[str]:
    """The rows laid out as rich lays out a table that fits: each column as wide as its
    widest cell, two spaces between; [] when rich would have to shrink or wrap."""
    rows = table.plain_rows
    if not rows or any(not _fits(cell, width) for row in rows for cell in row):
        return []
    widths = [max(_cells(row[i]) for row in rows) for i in range(4)]
    if sum(widths) + len(GAP) * 3 > width:
        return []
    out = []
    for shard, bar, chunks, share in rows:
        cells = [
            shard + " " * (widths[0] - _cells(shard)),
            bar + " " * (widths[1] - _cells(bar)),
            " " * (widths[2] - _cells(chunks)) + chunks,
            " " * (widths[3] - _cells(share)) + share,
        ]
        out.append(GAP.join(cells))
    return out
