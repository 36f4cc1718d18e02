"""Plan warnings as text and as GitHub workflow annotations (`plan --format github`): a
warning that starts with `file:line:col: ` is annotated at that place."""

from __future__ import annotations

import re
from collections.abc import Iterable

from zonectl.analyze.report import Finding
from zonectl.diagnostics import Position

_AT = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<rest>.*)$", re.DOTALL)
_CODE = re.compile(r"^(?:warning |error )?(?P<code>Z[A-Z]\d{3})\b")


def finding_warning(where: Position | None, f: Finding) -> str:
    """`file:line:col: ZA201 name: evidence; fix: ...` (no position: no prefix)."""
    text = f"{f.rule} {f.name}: {f.evidence}; fix: {f.fix}"
    return f"{where}: {text}" if where is not None else text


def github_warnings(warnings: Iterable[str]) -> str:
    out = []
    for w in warnings:
        props = []
        text = w
        match = _AT.match(w)
        if match:
            props += [f"file={_prop(match['file'])}", f"line={match['line']}",
                      f"col={match['col']}"]  # fmt: skip
            text = match["rest"]
        code = _CODE.match(text)
        props.append(f"title={_prop(code['code'] if code else 'zonectl plan')}")
        out.append(f"::warning {','.join(props)}::{_data(text)}\n")
    return "".join(out)


def _data(text: str) -> str:
    # GitHub's escaping for workflow command data and properties.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _prop(text: str) -> str:
    return _data(text).replace(":", "%3A").replace(",", "%2C")
