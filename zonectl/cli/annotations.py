"""Plan warnings as text and as GitHub workflow annotations (`plan --format github`): a
warning that starts with `file:line:col: ` is annotated at that place."""

from __future__ import annotations

import re
from collections.abc import Iterable

from zonectl.analyze.report import Finding
from zonectl.diagnostics import Position
from zonectl.render.inert import workflow_data, workflow_property

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
            props += [f"file={workflow_property(match['file'])}", f"line={match['line']}",
                      f"col={match['col']}"]  # fmt: skip
            text = match["rest"]
        code = _CODE.match(text)
        props.append(f"title={workflow_property(code['code'] if code else 'zonectl plan')}")
        out.append(f"::warning {','.join(props)}::{workflow_data(text)}\n")
    return "".join(out)
