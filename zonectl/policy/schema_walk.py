"""Walking a pydantic model along a validation error's location, through discriminated
unions: pydantic puts the branch tag in the location (`sampling.off`), a name the policy
author never wrote; the walk drops it and says which forms the union accepts."""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Tag


@dataclass(frozen=True)
class Walk:
    loc: tuple[str | int, ...]  # the location as the author wrote it (no branch tags)
    target: Any  # the annotation at the end of it (None: unknown)
    forms: str | None  # the union's accepted forms, when the error is about the union itself


def walk(loc: Sequence[str | int], root: type[BaseModel]) -> Walk:
    shown: list[str | int] = []
    target: Any = root
    union: tuple[int, str] | None = None  # (where in `shown`, its forms)
    for step in loc:
        target = unwrap(target)
        branches = _branches(target)
        if branches and str(step) in branches:
            union = (len(shown), forms(branches))
            target = branches[str(step)]
            continue
        shown.append(step)
        if isinstance(target, type) and issubclass(target, BaseModel):
            field = target.model_fields.get(str(step))
            target = field.annotation if field else None
        elif typing.get_origin(target) in (dict, list):
            target = typing.get_args(target)[-1]
        else:
            target = None
    at_union = union is not None and union[0] == len(shown)
    return Walk(tuple(shown), unwrap(target), union[1] if union and at_union else None)


def unwrap(annotation: Any) -> Any:
    """`X | None` -> X."""
    if isinstance(annotation, types.UnionType) or typing.get_origin(annotation) is typing.Union:
        args = [a for a in typing.get_args(annotation) if a is not type(None)]
        return args[0] if len(args) == 1 else annotation
    return annotation


def _branches(annotation: Any) -> dict[str, Any]:
    """A tagged union's branches by tag (`Annotated[A, Tag("a")] | ...`), else {}."""
    if typing.get_origin(annotation) is Annotated:
        annotation = typing.get_args(annotation)[0]
    out: dict[str, Any] = {}
    for member in typing.get_args(annotation) if typing.get_origin(annotation) else ():
        if typing.get_origin(member) is Annotated:
            inner, *meta = typing.get_args(member)
            out.update({m.tag: inner for m in meta if isinstance(m, Tag)})
    return out


def forms(branches: dict[str, Any]) -> str:
    """`{samplesPerSecond: ...} or "off"`: each branch as the author would write it."""
    return " or ".join(_form(b) for b in branches.values())


def _form(annotation: Any) -> str:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        keys = [k for k, f in annotation.model_fields.items() if f.is_required()]
        keys = keys or list(annotation.model_fields)  # all optional: name them all
        return "{" + ", ".join(f"{k}: ..." for k in keys) + "}"
    if typing.get_origin(annotation) is list:
        return "[...]"
    if typing.get_origin(annotation) is Literal:
        return " or ".join(json.dumps(v) for v in typing.get_args(annotation))
    if annotation is bool:  # as YAML spells it
        return "true or false"
    return getattr(annotation, "__name__", str(annotation))
