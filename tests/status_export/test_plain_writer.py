"""status's plain text writer (zonectl.render.status_plain) prints exactly what rich prints:
random lines (long, wide, tabs, newlines, trailing spaces) and per-shard bars (wide and
hostile shard names, tables wider than the page) against rich's own rendering, and
`zonectl status` of a sandbox cluster the same with and without it."""

from __future__ import annotations

import io
import random

import pymongo
import pytest
from rich.console import Console, Group, RenderableType
from rich.table import Table
from rich.text import Text

from tests.status_export.builders import add_shards, shard_collection, zonectl
from zonectl.render import status_text
from zonectl.render.status_plain import BarTable, write_plain
from zonectl.sandbox.launch import serve
from zonectl.sandbox.state import Sandbox

PIECES = ["a", "x.y", " ", "  ", "日本", "é", "\t", "\n", "#" * 24, "shard-std-0", "[/]", "%"]


def _console(out: io.StringIO) -> Console:
    return Console(file=out, width=160, force_terminal=False, color_system=None, highlight=False,
                   emoji=False)  # fmt: skip  # as render_status_text makes it


def _by_rich(parts: list[RenderableType]) -> str:
    out = io.StringIO()
    console = _console(out)
    for part in parts:
        console.print(part)
    return out.getvalue()


def _by_writer(parts: list[RenderableType]) -> str:
    out = io.StringIO()
    write_plain(parts, _console(out), out)
    return out.getvalue()


def _line(rng: random.Random) -> str:
    return "".join(rng.choice(PIECES) for _ in range(rng.choice([0, 1, 3, 10, 60])))


def _bars(rng: random.Random) -> RenderableType:
    counts = {_line(rng).replace("\n", "") or "s": rng.randrange(0, 10**rng.randrange(1, 9))
              for _ in range(rng.randrange(0, 5))}  # fmt: skip
    return status_text._bars(counts, sum(counts.values()), color=False)


@pytest.mark.parametrize("seed", range(40))
def test_the_writer_prints_what_rich_prints(seed: int) -> None:
    rng = random.Random(seed)
    parts: list[RenderableType] = []
    for _ in range(30):
        kind = rng.randrange(4)
        if kind == 0:
            parts.append(Text(_line(rng)))
        elif kind == 1:
            parts.append(_bars(rng))
        elif kind == 2:
            parts.append(Group(Text(_line(rng)), _bars(rng), Text("")))
        else:
            table = Table(box=None, show_header=True, pad_edge=False)
            table.add_column("zone")
            table.add_row(Text(_line(rng)))
            parts.append(table)
    assert _by_writer(parts) == _by_rich(parts)


def test_status_says_the_same_with_and_without_the_writer(monkeypatch: pytest.MonkeyPatch) -> None:
    with serve(Sandbox("7.0")) as server, pymongo.MongoClient(server.uri) as client:
        add_shards(client, {"shard-a": ["hot"], "shard-\u65e5\u672c-b": ["hot"], "c\tx": []})
        for i in range(5):
            shard_collection(client, f"app.c{i}", {"k": 1}, [{"k": 10}, {"k": 20}],
                             {0: "shard-a", 1: "c\tx", 2: "shard-\u65e5\u672c-b"})  # fmt: skip
        fast = zonectl("status", "--uri", server.uri)

        def by_rich(parts: list[RenderableType], console: Console, _out: io.StringIO) -> None:
            for part in parts:
                console.print(part)

        monkeypatch.setattr(status_text, "write_plain", by_rich)
        slow = zonectl("status", "--uri", server.uri)
    assert fast == slow
    assert fast[0] == 0 and "shard-\u65e5\u672c-b" in fast[1]


@pytest.mark.parametrize("seed", range(10))
def test_the_bars_print_in_colour_as_the_rich_table_they_stand_for(seed: int) -> None:
    rng = random.Random(seed)
    counts = {f"shard-{i}": rng.randrange(0, 1000) for i in range(rng.randrange(1, 6))}
    bars = status_text._bars(counts, sum(counts.values()), color=True)
    assert isinstance(bars, BarTable)
    table = Table(box=None, show_header=False, pad_edge=False)
    for name, justify in (("shard", "left"), ("bar", "left"), ("chunks", "right"),
                          ("share", "right")):  # fmt: skip
        table.add_column(name, justify=justify)  # type: ignore[arg-type]
    most = max(counts.values())
    total = sum(counts.values())
    for shard, n in sorted(counts.items()):  # as status_text._bars made it before
        filled = round(24 * n / most) if most else 0
        bar = Text("█" * filled, style="cyan")
        bar.append("░" * (24 - filled), style="dim")
        share = f"{100 * n / total:.0f}%" if total else "-"
        table.add_row(Text(f"  {shard}"), bar, f"{n:,}", share)
    shown = []
    for renderable in (bars, table):
        out = io.StringIO()
        console = Console(file=out, width=100, force_terminal=True, color_system="standard")
        console.print(Group(Text("head"), renderable))
        console.print(renderable)
        shown.append(out.getvalue())
    assert shown[0] == shown[1]
    assert "\x1b[36m" in shown[0]  # the cyan bars
