"""One way to print text taken from the cluster (names, bound values, server messages) per
output kind, so that it is shown and never acted on: terminal text, rich markup, markdown,
GitHub/GitLab workflow commands and OpenMetrics label values."""

from __future__ import annotations

import re

from rich.markup import escape

# Characters a terminal or a viewer acts on: C0/C1 controls and DEL (ESC starts CSI/OSC
# sequences: clear the screen, rewrite lines, OSC 52 sets the clipboard), the line and
# paragraph separators, and the bidirectional overrides that reorder what is shown
# ("Trojan Source", CVE-2021-42574). MongoDB accepts all of them in collection and zone
# names (only '\0', '$' and, in database names, '/\. "*<>:|?' are refused).
_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
_ACTIVE = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029" + "".join(sorted(_BIDI)) + "]")
_JSON_ACTIVE = re.compile(r"[\x7f-\x9f\u2028\u2029" + "".join(sorted(_BIDI)) + "]")


def has_active(text: str) -> bool:
    """Whether `text` holds a character a terminal or viewer would act on."""
    return _ACTIVE.search(text) is not None


def terminal(text: str, *, keep_newlines: bool = False) -> str:
    """`text` with every active character shown escaped (`\\x1b`, `\\n`, `\\u202e`), for
    plain text printed with markup off. `keep_newlines` keeps the line breaks of a message
    zonectl composed itself (its names must already be escaped)."""
    return _ACTIVE.sub(lambda m: _escaped(m.group(0), keep_newlines), text)


def _escaped(char: str, keep_newlines: bool) -> str:
    if char == "\n" and keep_newlines:
        return char
    code = ord(char)
    if code <= 0xFF:
        return {"\n": "\\n", "\r": "\\r", "\t": "\\t"}.get(char, f"\\x{code:02x}")
    return f"\\u{code:04x}"


def rich_markup(text: str) -> str:
    """`text` inside a rich markup string: active characters escaped, then every `[` that
    could open a tag (rich.markup.escape)."""
    return escape(terminal(text))


# What markdown or HTML could act on inline (CommonMark 2.4 lets any ASCII punctuation be
# backslash-escaped): emphasis, code, links, tags, entities, GFM tables and strikethrough,
# GitHub math (`$`), and the autolink triggers (`scheme:`, `@` of emails and @mentions,
# `#` of issue references); `www.` is escaped at its dot.
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>&|~!:@#$])|(?<=www)(\.)", re.IGNORECASE)


def markdown_code(text: str, *, in_table: bool = False) -> str:
    """`text` as a markdown code span, so it is never a link, emphasis or HTML: a fence
    longer than any run of backticks in it (CommonMark 6.1), active characters escaped and,
    in a GFM table cell, `|` escaped (a pipe splits a cell even inside a code span)."""
    shown = terminal(text)
    if in_table:
        shown = shown.replace("|", "\\|")
    longest = max((len(run) for run in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith(("`", " ")) or shown.endswith(("`", " ")) or not shown else ""
    return f"{fence}{pad}{shown}{pad}{fence}"


def markdown_text(text: str) -> str:
    """`text` as plain markdown prose: every character markdown or HTML could act on
    backslash-escaped (CommonMark 2.4: any ASCII punctuation may be escaped), active
    characters escaped, so no link, autolink, tag or emphasis survives."""
    return _MD_SPECIAL.sub(lambda m: "\\" + m.group(0), terminal(text))


def workflow_data(text: str) -> str:
    """GitHub workflow command data (`::warning ...::DATA`): `%`, CR and LF percent-encoded
    as the runner's ActionCommand escaping documents, other active characters escaped."""
    encoded = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return terminal(encoded)


def workflow_property(text: str) -> str:
    """A workflow command property value (`file=`, `title=`): data escaping plus `:` and `,`."""
    return workflow_data(text).replace(":", "%3A").replace(",", "%2C")


def json_text(text: str) -> str:
    """JSON written with ensure_ascii=False, its active characters as `\\uXXXX` escapes: the
    same document to a parser, inert on a terminal. json.dumps escapes C0 in strings
    itself, and a line feed outside them is layout, so only the rest is touched. ASCII text
    without DEL has none of them: checked first, in C, so a 20 MB plan skips the regex."""
    if text.isascii() and "\x7f" not in text:
        return text
    return _JSON_ACTIVE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def metrics_label(text: str) -> str:
    """An OpenMetrics label value: `\\`, `"` and newline escaped as the exposition format
    requires; other active characters shown as `\\xNN` text (escaped backslash, so the
    value reads back as those four characters, not as the control byte)."""
    value = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
    return _ACTIVE.sub(lambda m: "\\" + _escaped(m.group(0), False), value)
