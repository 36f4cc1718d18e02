"""Helpers for the hostile-names tests: a sandbox cluster whose database, collection, zone
and shard names carry terminal escapes, rich markup, markdown, HTML and workflow commands,
built with real admin commands over pymongo; and checks that an output shows them inertly."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pymongo
from bson import MaxKey, MinKey
from builders import add_range, add_shards, shard_collection
from cli_output_scan import allow_foreign_line_break

# Characters a terminal or viewer acts on (C0 but line feed, DEL, C1, line/paragraph
# separators, bidirectional overrides).
ACTIVE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
# What MongoDB refuses in a database name (NamespaceString::validDBName, Windows set
# included) and in a collection name ('$', NUL): kept out of those names.
DB_FORBIDDEN = set('/\\. "$*<>:|?\x00')

FRAGMENTS = (
    "\x1b[2J",  # clear the screen
    "\x1b]52;c;aGk=\x07",  # OSC 52: set the clipboard
    "\x9b31m",  # C1 CSI
    "\x7f",
    "\r",
    "\n::error::pwned",  # a workflow command on its own line
    "%0A::warning::x",  # one the runner would decode
    "[/]",  # closes a rich tag that was never opened
    "[bold red]",
    "<img src=x onerror=alert(1)>",
    "[md](http://evil.example)",
    "www.evil.example",
    "@team",
    "#1",
    "`",
    "``",
    "|",
    "_x_",
    "\\",
    "\u202e",  # right-to-left override
    "<!--",
)
# The only line break these names hold: its escape `\n` is the name's, not zonectl's text.
allow_foreign_line_break("::error::pwned")


@dataclass(frozen=True)
class Names:
    database: str
    collections: tuple[str, str]
    zones: tuple[str, str]
    shards: tuple[str, str]

    @property
    def namespaces(self) -> tuple[str, str]:
        return (f"{self.database}.{self.collections[0]}", f"{self.database}.{self.collections[1]}")

    def all(self) -> list[str]:
        return [self.database, *self.collections, *self.zones, *self.shards]


PLAIN = "ok.plain"  # an ordinary collection next to the hostile ones


def build_cluster(client: pymongo.MongoClient[dict[str, Any]], names: Names) -> None:
    """Two shards, each in one zone; both hostile namespaces and a plain one sharded on
    {k: 1}, split at 0, their whole key space in the second shard's zone (their chunks sit
    on the first: out of zone, so status, analyze and the plan all name them)."""
    add_shards(client, {names.shards[0]: [names.zones[0]], names.shards[1]: [names.zones[1]]})
    for ns in (*names.namespaces, PLAIN):
        shard_collection(client, ns, {"k": 1}, [{"k": 0}])
        add_range(client, ns, names.zones[1], {"k": MinKey()}, {"k": MaxKey()})


def remove_ranges(client: pymongo.MongoClient[dict[str, Any]], namespaces: Sequence[str]) -> None:
    for ns in namespaces:
        client.admin.command(
            {"updateZoneKeyRange": ns, "min": {"k": MinKey()}, "max": {"k": MaxKey()}, "zone": None}
        )


def raw_controls(text: str) -> list[str]:
    return sorted({repr(c) for c in ACTIVE.findall(text)})


def _outside_code(markdown: str) -> str:
    """The markdown with fenced code blocks and code spans (CommonMark 6.1: a backtick run
    closes at the next run of the same length) removed: what renders as prose."""
    prose: list[str] = []
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            prose.append(line)
    text = "\n".join(prose)
    out, i = [], 0
    while i < len(text):
        if text[i] == "\\" and i + 1 < len(text):
            out.append(text[i : i + 2])
            i += 2
            continue
        if text[i] == "`":
            run = re.match(r"`+", text[i:])
            assert run is not None
            fence = run.group(0)
            close = re.search(rf"(?<!`){fence}(?!`)", text[i + len(fence) :])
            if close is not None:
                i += len(fence) + close.end()
                continue
        out.append(text[i])
        i += 1
    return "".join(out)


LIVE_MARKDOWN = (
    re.compile(r"(?<!\\)<(?!/?(?:sub|details|summary)>|!-- zonectl-plan -->)"),  # HTML
    re.compile(r"(?<!\\)\]\("),  # an inline link
    re.compile(r"https?://|www\.", re.IGNORECASE),  # an autolink
    re.compile(r"(?<![\\\w])@team"),  # a mention
)


def live_markdown(markdown: str) -> list[str]:
    """Links, HTML, autolinks and mentions markdown would make of the names."""
    prose = _outside_code(markdown)
    return [m.group(0) for pattern in LIVE_MARKDOWN for m in pattern.finditer(prose)]


def broken_table_rows(markdown: str) -> list[str]:
    """Table rows whose cell count differs from their header's (an unescaped `|`)."""
    bad, cells = [], None
    for line in markdown.splitlines():
        if not line.startswith("|"):
            cells = None
            continue
        count = len(re.findall(r"(?<!\\)\|", line))
        if cells is None:
            cells = count
        elif count != cells:
            bad.append(line)
    return bad


def injected_commands(text: str) -> list[str]:
    """Lines a GitHub runner would take as workflow commands, other than zonectl's own
    annotations (`::warning file=...,title=...::data`)."""
    own = re.compile(r"^::(?:warning|error|notice) [a-z]+=[^:,]*(?:,[a-z]+=[^:,]*)*::")
    return [
        line
        for line in text.splitlines()
        if line.lstrip().startswith("::") and not own.match(line.lstrip())
    ]
