"""The views of `zonectl explain`: text, JSON and markdown of each collection's state,
reasons (code, message, fix) and ETA. Names and server messages are printed inert."""

from __future__ import annotations

from collections import Counter

from zonectl.explain.reasons import STATES, Explanation, Explanations, Reason, iso, span
from zonectl.render.inert import json_text, markdown_code, markdown_text, terminal
from zonectl.render.json_indent import dumps_indented


def summary(found: Explanations) -> str:
    counts = Counter(c.state for c in found.collections)
    parts = [f"{counts[s]} {s}" for s in STATES if counts[s]]
    n = len(found.collections)
    noun = "collection" if n == 1 else "collections"
    return f"explain at {iso(found.at)}: {n} sharded {noun}" + (
        ": " + ", ".join(parts) if parts else ""
    )


def render_explain_text(found: Explanations) -> str:
    lines = [summary(found), ""]
    for c in found.collections:
        lines.append(terminal(f"{c.ns}: {c.state}") + _eta_text(found, c))
        for r in c.reasons:
            lines.append(terminal(f"  {_code(r)}: {r.message}"))
            lines.append(terminal(f"    fix: {r.fix}"))
    for note in found.notes:
        lines.extend(["", terminal(f"note: {note}")])
    return "\n".join(lines) + "\n"


def _code(r: Reason) -> str:
    return f"{r.code} (unknown)" if r.unknown else r.code


def _eta_text(found: Explanations, c: Explanation) -> str:
    if c.eta is None:
        return ""
    return f" (forecast done by {iso(c.eta)}, in {span((c.eta - found.at).total_seconds())})"


def explain_document(found: Explanations) -> dict[str, object]:
    doc = found.as_dict()
    if found.notes:
        doc["notes"] = list(found.notes)
    return doc


def render_explain_json(found: Explanations) -> str:
    text = dumps_indented(explain_document(found), ensure_ascii=False)
    return json_text(text) + "\n"


def render_explain_markdown(found: Explanations) -> str:
    lines = ["### zonectl explain", "", markdown_text(summary(found)), ""]
    if found.collections:
        lines += ["| collection | state | first reason | forecast done |", "|---|---|---|---|"]
        for c in found.collections:
            first = c.first.code if c.first else ""
            eta = iso(c.eta) if c.eta else ""
            lines.append(f"| {markdown_code(c.ns, in_table=True)} | {c.state} | {first} | {eta} |")
        lines.append("")
    for c in found.collections:
        if not c.reasons:
            continue
        lines.append(f"#### {markdown_code(c.ns)}: {c.state}")
        lines.append("")
        for r in c.reasons:
            lines.append(f"- **{_code(r)}**: {markdown_text(r.message)}  ")
            lines.append(f"  fix: {markdown_text(r.fix)}")
        lines.append("")
    for note in found.notes:
        lines += [f"> {markdown_text(note)}", ""]
    return "\n".join(lines).rstrip("\n") + "\n"
