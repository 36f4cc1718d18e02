"""The check tests/conftest.py runs on every output of every in-process CLI run of the
suite: zonectl's own text never shows a literal backslash-n (a line break of its own
escaped as if it were a name's). A `\\n` is allowed only as the escape of a line break
that a foreign value (a cluster name, a policy string) really holds: tests that put one
there register what follows it with `allow_foreign_line_break`."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

_FOREIGN_TAILS: set[str] = set()
_LITERAL = re.compile(r"\\n")
_OPENMETRICS_ESCAPE = re.compile(r'\\(["\\n])')


class Stats:
    scanned = 0  # outputs checked so far in this session


def allow_foreign_line_break(tail: str) -> None:
    """A foreign value in this session holds a line break followed by `tail`."""
    _FOREIGN_TAILS.add(tail)


def literal_newlines(text: str) -> list[str]:
    """Excerpts around each literal `\\n` in `text` (its strings, if it is a JSON document;
    its decoded label values, if it is OpenMetrics) that escapes no foreign line break."""
    found = []
    for piece in _readable(text):
        for match in _LITERAL.finditer(piece):
            if not _foreign(piece[match.end() : match.end() + 60]):
                found.append(piece[max(0, match.start() - 60) : match.end() + 40])
    return found


def _foreign(after: str) -> bool:
    # However the value was escaped after its line break (markdown's backslashes, a
    # workflow command's percent-encoding), the text that follows it reads the same; a
    # picture's label may cut the name short (`...\n::error::pw</text>`).
    plain = unquote(unquote(after)).replace("\\", "")
    label = plain.split("<", 1)[0]
    return any(
        plain.startswith(tail[:8]) or (label and tail.startswith(label)) for tail in _FOREIGN_TAILS
    )


def _readable(text: str) -> Iterator[str]:
    """What a reader sees: a JSON document's strings (its `\\n` escapes are JSON's own),
    OpenMetrics with its label escapes decoded, else the text itself."""
    stripped = text.strip()
    if stripped[:1] in "{[":
        try:
            yield from _strings(json.loads(stripped))
            return
        except ValueError:
            pass
    if stripped.endswith("# EOF"):
        yield _OPENMETRICS_ESCAPE.sub(lambda m: "\n" if m.group(1) == "n" else m.group(1), text)
        return
    yield text


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield str(key)
            yield from _strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from _strings(item)


def check_result(args: Any, stdout: str, stderr: str) -> None:
    """Raise AssertionError naming the command and the excerpts, if any."""
    Stats.scanned += 1
    bad = [f"{where}: ...{excerpt!r}..." for where, text in (("stdout", stdout), ("stderr", stderr))
           for excerpt in literal_newlines(text)]  # fmt: skip
    if bad:
        raise AssertionError(
            f"zonectl {args} printed a literal \\n in its own text (a line break escaped at "
            "the wrong depth):\n  " + "\n  ".join(bad)
        )
