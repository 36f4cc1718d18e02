"""Where the plan's forecast says the balancer never finishes a namespace (balancer off,
noBalance, a defragmentation, a zone no shard can take), a note naming the command that
says why and what fixes it: `zonectl explain -n NS` (docs/explain.md). Pure."""

from __future__ import annotations

import dataclasses
import re

from zonectl.forecast.report import Forecast

MAX_NAMED = 5  # namespaces named in the command; the others are counted
# Names shown inside the note's code span as they are: no quoting, no markup, nothing a
# terminal acts on. Others (spaces, backticks, controls) are counted, not printed.
_PLAIN = re.compile(r"[A-Za-z0-9_.\-]+")


def with_explain_hint(f: Forecast) -> Forecast:
    """`f` with one more note when some namespace's balancer route never finishes."""
    never = [n.ns for n in f.namespaces if n.balancer_s is None]
    if not never:
        return f
    named = [ns for ns in never if _PLAIN.fullmatch(ns)][:MAX_NAMED]
    left = len(never) - len(named)
    what = "1 namespace" if len(never) == 1 else f"{len(never)} namespaces"
    if named:
        command = "zonectl explain " + " ".join(f"-n {ns}" for ns in named)
        more = f" (and -n for the {left} other{'s' if left > 1 else ''})" if left else ""
        said = f"`{command}`{more}"
    else:
        said = "`zonectl explain -n NS`"
    note = f"the balancer never finishes {what}: {said} says why and what would fix it"
    return dataclasses.replace(f, notes=(*f.notes, note))
