"""Pydantic validation errors, mapped back to file:line:col with an operator's wording and
a "did you mean" for unknown keys."""

from __future__ import annotations

import difflib
import json
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.diagnostics import Diagnostic, Severity
from zonectl.policy.schema import API_VERSION, KIND, PolicyFileModel
from zonectl.policy.schema_walk import walk
from zonectl.policy.tree import Document

_EXPECTED = {
    "bool_type": "expected true or false",
    "string_type": "expected a string",
    "int_type": "expected an integer",
    "dict_type": "expected a mapping",
    "model_type": "expected a mapping",
    "list_type": "expected a list",
}


def schema_diagnostics(doc: Document, errors: Sequence[ErrorDetails]) -> list[Diagnostic]:
    return [_one(doc, error) for error in errors]


def _one(doc: Document, error: ErrorDetails) -> Diagnostic:
    walked = walk(tuple(error["loc"]), PolicyFileModel)
    loc = walked.loc  # without the branch tags of tagged unions
    kind = error["type"]
    where = display_path(loc[:-1]) if loc else "the document"
    if kind == "extra_forbidden":
        name = str(loc[-1])
        allowed = allowed_keys(tuple(error["loc"])[:-1])
        close = difflib.get_close_matches(name, allowed, n=1, cutoff=0.6)
        hint = f'did you mean "{close[0]}"?' if close else None
        allowed_text = ", ".join(allowed)
        hint = f"{hint} allowed: {allowed_text}" if hint else f"allowed: {allowed_text}"
        at = "at top level" if len(loc) == 1 else f"in {where}"
        return _error("ZP110", doc.position(loc, key=True), f'unknown key "{name}" {at}', hint)
    if kind == "missing":
        name = str(loc[-1])
        at = "at top level" if len(loc) == 1 else f"in {where}"
        if loc == ("apiVersion",):
            return _error("ZP113", doc.position(()), f"missing apiVersion: {API_VERSION}")
        if loc == ("kind",):
            return _error("ZP114", doc.position(()), f"missing kind: {KIND}")
        return _error("ZP111", doc.position(loc[:-1]), f'missing required key "{name}" {at}')
    got = describe(error.get("input"))
    if loc == ("apiVersion",):
        message = f"apiVersion {got} is not supported; this zonectl reads {API_VERSION}"
        return _error("ZP113", doc.position(loc), message)
    if loc == ("kind",):
        message = f"kind {got} is not {KIND}; zonectl reads only {KIND} documents"
        return _error("ZP114", doc.position(loc), message)
    if walked.forms is not None:  # the value fits no branch: say what each accepts
        expected = f"expected {walked.forms}"
    elif kind == "literal_error":
        expected = f"expected {error.get('ctx', {}).get('expected', '?')}"
    elif kind == "greater_than_equal":
        expected = f"must be at least {error.get('ctx', {}).get('ge')}"
    elif kind == "less_than_equal":
        expected = f"must be at most {error.get('ctx', {}).get('le')}"
    else:
        expected = _EXPECTED.get(kind) or error["msg"][0].lower() + error["msg"][1:]
    message = f"{display_path(loc)}: {expected.replace('True', 'true')}, got {got}"
    return _error("ZP112", doc.position(loc), message, _setting_hint(loc))


def _setting_hint(loc: Sequence[str | int]) -> str | None:
    """For a key of the balancer settings table: what MongoDB accepts, and an example."""
    if len(loc) >= 2 and loc[0] == "balancer":
        rows, key = CLUSTER, loc[1]
    elif len(loc) >= 3 and loc[0] == "collections":
        rows, key = COLLECTION, loc[2]
    else:
        return None
    for r in rows:
        if r.key == key:
            return f"{r.summary} e.g. {key}: {json.dumps(r.example)}"
    return None


def display_path(loc: Sequence[str | int]) -> str:
    """balancer.activeWindow, collections["app.events"].ranges[3].min"""
    text = ""
    for step in loc:
        if isinstance(step, int):
            text += f"[{step}]"
        elif "." in step or not step.isidentifier():
            text += f"[{json.dumps(step)}]"
        else:
            text += f".{step}" if text else step
    return text


def describe(value: Any) -> str:
    """A short, YAML-ish rendering of an offending input."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return json.dumps(value if len(value) <= 60 else value[:57] + "...")
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def allowed_keys(loc: Sequence[str | int], root: type[BaseModel] = PolicyFileModel) -> list[str]:
    """The keys the model at `loc` under `root` accepts (for "did you mean")."""
    target = walk(loc, root).target
    if isinstance(target, type) and issubclass(target, BaseModel):
        return list(target.model_fields)
    return []


def _error(code: str, where: Any, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
