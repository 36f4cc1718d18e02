"""`zonectl status`'s plain text (no TTY) written without rich where what rich prints is
sure: a line of text that fits the width, and the per-shard bars; anything else (tables,
long or multi-line text) is printed by rich. 10,000 collections are 110,000 lines, which
rich lays out at about a millisecond a collection."""

from __future__ import annotations

from collections.abc import Iterable
from typing import IO

from rich.cells import cell_len
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

GAP = "  "  # a column's right padding and the next one's left (pad_edge=False: none outside)


class BarTable(Table):
    """The per-shard bars (status_text._bars): a rich table whose rows, all plain text,
    are also kept as strings for the plain writer: shard, bar (left), chunks, share
    (right)."""

    def __init__(self) -> None:
        super().__init__(box=None, show_header=False, pad_edge=False)
        self.plain_rows: list[tuple[str, str, str, str]] = []


def write_plain(parts: Iterable[RenderableType], console: Console, out: IO[str]) -> None:
    """Each part as rich prints it on `console` (no colour), the sure ones written here."""
    for part in parts:
        if isinstance(part, Group):
            write_plain(part.renderables, console, out)
        elif isinstance(part, Text) and _fits(part.plain, console.width):
            out.write(part.plain + "\n")
        elif isinstance(part, BarTable) and (lines := _bar_lines(part, console.width)):
            out.write("".join(line + "\n" for line in lines))
        else:
            console.print(part)


def _fits(text: str, width: int) -> bool:
    return "\n" not in text and "\t" not in text and cell_len(text) <= width


def _bar_lines(table: BarTable, width: int) -> list[str]:
    """The rows laid out as rich lays out a table that fits: each column as wide as its
    widest cell, two spaces between; [] when rich would have to shrink or wrap."""
    rows = table.plain_rows
    if not rows or any(not _fits(cell, width) for row in rows for cell in row):
        return []
    widths = [max(cell_len(row[i]) for row in rows) for i in range(4)]
    if sum(widths) + len(GAP) * 3 > width:
        return []
    out = []
    for shard, bar, chunks, share in rows:
        cells = [
            shard + " " * (widths[0] - cell_len(shard)),
            bar + " " * (widths[1] - cell_len(bar)),
            " " * (widths[2] - cell_len(chunks)) + chunks,
            " " * (widths[3] - cell_len(share)) + share,
        ]
        out.append(GAP.join(cells))
    return out
