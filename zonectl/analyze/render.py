"""The analysis report as text (terminal), JSON (format_version 1) or markdown (CI)."""

from __future__ import annotations

import json
from typing import Any

from zonectl.analyze.report import CollectionReport, Figure, Finding, Report, Severity
from zonectl.render.inert import markdown_code, markdown_text, terminal

FORMAT_VERSION = 1
_ORDER = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.INFO: 2}


def summary(report: Report) -> str:
    found = report.all_findings()
    counts = {s: sum(f.severity is s for f in found) for s in Severity}
    return (
        f"{len(report.collections)} collection(s) analyzed: {counts[Severity.ERROR]} error(s), "
        f"{counts[Severity.WARNING]} warning(s), {counts[Severity.INFO]} note(s)"
    )


def render_text(report: Report) -> str:
    lines: list[str] = []
    for f in _sorted(report.findings):
        lines += _finding_text(f)
    for c in report.collections:
        lines.append(f"{c.namespace}  ({c.kind}; key {c.key}; {c.shape})")
        width = max((len(fig.name) for fig in c.figures), default=0)
        for fig in c.figures:
            lines.append(
                f"  {fig.name.ljust(width)}  {fig.value}  [{fig.source}, {fig.confidence}]"
            )
        for f in _sorted(c.findings):
            lines += ["  " + line for line in _finding_text(f)]
        lines += _candidates_text(c)
        lines.append("")
    lines.append(summary(report))
    # Names, keys and values from the cluster run through every line: shown, never acted on.
    return "".join(f"{terminal(line)}\n" for line in lines)


def _candidates_text(c: CollectionReport) -> list[str]:
    if not c.candidates:
        return []
    lines = ["  candidate keys:"]
    for cand in c.candidates:
        lines.append(f"    {cand.key}{'  (live)' if cand.live else ''}")
        for fig in cand.figures:
            lines.append(f"      {fig.name}: {fig.value}  [{fig.source}, {fig.confidence}]")
    if c.best_key is not None:
        lines.append(f"  best for this workload; the policy line: {c.best_key}")
    return lines


def _finding_text(f: Finding) -> list[str]:
    lines = [
        f"{f.severity.value} {f.rule} {f.name}: {f.evidence}",
        f"    fix: {f.fix}  [{f.source}]",
    ]
    if f.snippet is not None:
        lines += ["      " + line for line in f.snippet.splitlines()]
    return lines


def render_json(report: Report) -> str:
    doc: dict[str, Any] = {
        "format_version": FORMAT_VERSION,
        "summary": summary(report),
        "findings": [_finding_json(f) for f in _sorted(report.findings)],
        "collections": [_collection_json(c) for c in report.collections],
    }
    return json.dumps(doc, indent=2) + "\n"


def _collection_json(c: CollectionReport) -> dict[str, Any]:
    return {
        "namespace": c.namespace,
        "kind": c.kind,
        "key": c.key,
        "shape": c.shape,
        "figures": [
            {"name": f.name, "value": f.value, "source": f.source, "confidence": f.confidence}
            for f in c.figures
        ],
        "findings": [_finding_json(f) for f in _sorted(c.findings)],
        **(
            {
                "candidates": [
                    {
                        "key": cand.key,
                        "live": cand.live,
                        "figures": [_figure_json(f) for f in cand.figures],
                    }
                    for cand in c.candidates
                ],
                "best_key": c.best_key,
            }
            if c.candidates
            else {}
        ),
    }


def _figure_json(f: Figure) -> dict[str, Any]:
    return {"name": f.name, "value": f.value, "source": f.source, "confidence": f.confidence}


def _finding_json(f: Finding) -> dict[str, Any]:
    return {
        "rule": f.rule,
        "name": f.name,
        "severity": f.severity.value,
        "namespace": f.namespace,
        "evidence": f.evidence,
        "fix": f.fix,
        "source": f.source,
        **({"snippet": f.snippet} if f.snippet is not None else {}),
    }


def render_markdown(report: Report) -> str:
    lines = ["## zonectl analyze", "", summary(report), ""]
    found = sorted(report.all_findings(), key=lambda f: (_ORDER[f.severity], f.rule))
    if found:
        lines += ["| severity | rule | namespace | evidence | fix |", "|---|---|---|---|---|"]
        for f in found:
            lines.append(
                f"| {f.severity.value} | `{f.rule}` {f.name} | {_ns(f.namespace)} | "
                f"{_cell(f.evidence)} | {_cell(f.fix)} |"
            )
        lines.append("")
    for f in found:
        if f.snippet is not None:
            where = markdown_code(f.namespace) if f.namespace else "-"
            lines += [f"`{f.rule}` {where}: the policy snippet", "", *_fenced(f.snippet)]
    for c in report.collections:
        key = markdown_code(c.key)
        lines += [f"### {markdown_code(c.namespace)}", "", f"{c.kind}; key {key}; {_cell(c.shape)}"]
        lines.append("")
        if c.figures:
            lines += ["| figure | value | source | confidence |", "|---|---|---|---|"]
            for fig in c.figures:
                lines.append(
                    f"| {_cell(fig.name)} | {_cell(fig.value)} | {_cell(fig.source)} | "
                    f"{fig.confidence} |"
                )
            lines.append("")
        if c.candidates:
            lines += ["| candidate key | figure | value | confidence |", "|---|---|---|---|"]
            for cand in c.candidates:
                name = markdown_code(cand.key, in_table=True) + (" (live)" if cand.live else "")
                for fig in cand.figures:
                    lines.append(
                        f"| {name} | {_cell(fig.name)} | {_cell(fig.value)} | {fig.confidence} |"
                    )
            best = markdown_code(c.best_key) if c.best_key else "-"
            lines += ["", f"Best for this workload: {best}", ""]
    return "\n".join(lines) + "\n"


def _fenced(text: str) -> list[str]:
    """A YAML block; the fence is longer than any backtick run inside (names come from the
    cluster), so nothing in it closes the block early."""
    fence = "`" * max(3, _longest_backticks(text) + 1)
    return [f"{fence}yaml", *text.splitlines(), fence, ""]


def _longest_backticks(text: str) -> int:
    best = run = 0
    for ch in text:
        run = run + 1 if ch == "`" else 0
        best = max(best, run)
    return best


def _cell(text: str) -> str:
    """Prose in a table cell: markdown, HTML and `|` escaped (names in it come from the
    cluster), line breaks shown escaped."""
    return markdown_text(text)


def _ns(namespace: str | None) -> str:
    return markdown_code(namespace, in_table=True) if namespace else "-"


def _sorted(findings: tuple[Finding, ...]) -> list[Finding]:
    return sorted(findings, key=lambda f: (_ORDER[f.severity], f.rule))
