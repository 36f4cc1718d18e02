"""Plan warnings as GitHub workflow annotations (`plan --format github`): a warning that
starts with `file:line:col: ` is annotated at that place."""

from __future__ import annotations

import re
from collections.abc import Iterable

from zonectl.render.inert import workflow_data, workflow_property

_AT = re.compile(r"^(?P<file>[^:\n]+):(?P<line>\d+):(?P<col>\d+): (?P<rest>.*)$", re.DOTALL)
_CODE = re.compile(r"^(?:warning |error )?(?P<code>Z[A-Z]\d{3})\b")


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
