"""What a fleet run prints: each cluster's artifact grouped on stdout (a `## cluster NAME`
section in markdown, one JSON document with a list of clusters, a YAML document per
cluster), the summary table on stderr, and the worst exit code."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from zonectl.cli.fleet.html_out import ClusterPage, combine_html
from zonectl.errors import ExitCode, redact

FORMAT_VERSION = 1

# Worst last: a failure outranks pending changes, so `--detailed-exitcode` never hides one.
_RANK = {0: 0, 4: 1, 1: 2, 2: 3, 3: 4, 5: 5, 130: 6}
_DETAIL = 90  # the table keeps one line per cluster; the full error is above it
_WORDS = {
    0: "ok",
    1: "failed",
    2: "usage",
    3: "invalid",
    4: "changes",
    5: "needs human",
    130: "interrupted",
}


@dataclass(frozen=True)
class Outcome:
    cluster: str
    code: int
    seconds: float
    stdout: str
    error: str | None = None  # the first `zonectl: error:` line, redacted
    started: bool = True  # False: skipped after an interrupt

    @property
    def result(self) -> str:
        if not self.started:
            return "skipped"
        return _WORDS.get(self.code, f"exit {self.code}")


def worst_code(codes: Sequence[int]) -> int:
    """The exit code of the run: the worst of the clusters' (ARCHITECTURE.md, "Errors and
    exit codes")."""
    return max(codes, key=lambda c: _RANK.get(c, 2), default=int(ExitCode.OK))


def combine(kind: str, command: str, outcomes: Sequence[Outcome]) -> str:
    if kind == "json":
        return _json(command, outcomes)
    if kind == "markdown":
        return _markdown(command, outcomes)
    if kind == "html":
        pages = [ClusterPage(o.cluster, o.result, o.code, o.error, o.stdout) for o in outcomes]
        return combine_html(command, pages)
    if kind == "openmetrics":  # one cluster's (run_fleet refuses several): no header
        return "".join(o.stdout for o in outcomes)  # before it, or it parses as no metric
    if kind == "yaml":
        return "".join(f"---\n# cluster: {o.cluster}\n{_yaml_note(o)}{o.stdout}" for o in outcomes)
    parts = []
    for o in outcomes:
        parts.append(f"=== cluster {o.cluster}: {o.result} ===\n{o.stdout}")
        if o.stdout and not o.stdout.endswith("\n"):
            parts.append("\n")
    return "".join(parts)


def summary_lines(command: str, outcomes: Sequence[Outcome], code: int) -> list[str]:
    ok = sum(1 for o in outcomes if o.code in (0, 4))
    stopped = sum(1 for o in outcomes if o.result == "interrupted")
    skipped = sum(1 for o in outcomes if not o.started)
    failed = sum(1 for o in outcomes if o.result == "failed")
    # The other results in the words of the table's rows (a policy problem is `invalid`,
    # not `failed`), so the summary and the rows agree.
    others = [o.result for o in outcomes if o.started and o.code not in (0, 1, 4, 130)]
    counted = "".join(f", {others.count(w)} {w}" for w in dict.fromkeys(sorted(others)))
    after_ctrl_c = f", {stopped} interrupted, {skipped} skipped" if stopped or skipped else ""
    head = (
        f"zonectl: fleet {command}: {len(outcomes)} cluster(s), "
        f"{ok} ok, {failed} failed{counted}{after_ctrl_c}; exit {code}"
    )
    width = max([len("cluster"), *(len(o.cluster) for o in outcomes)])
    rows = [f"  {'cluster':<{width}}  {'result':<11}  exit  {'time':>6}  detail"]
    for o in outcomes:
        detail = redact(o.error or "")
        if len(detail) > _DETAIL:
            detail = detail[: _DETAIL - 3] + "..."
        row = f"  {o.cluster:<{width}}  {o.result:<11}  {o.code:>4}  {o.seconds:>5.1f}s  {detail}"
        rows.append(row.rstrip())
    return [head, *rows]


def _json(command: str, outcomes: Sequence[Outcome]) -> str:
    clusters = []
    for o in outcomes:
        output: Any = None
        if o.stdout.strip():
            try:
                output = json.loads(o.stdout)
            except ValueError:
                output = o.stdout
        clusters.append(
            {
                "cluster": o.cluster,
                "result": o.result,
                "exit_code": o.code,
                "error": redact(o.error) if o.error else None,
                "output": output,
            }
        )
    doc: dict[str, Any] = {"format_version": FORMAT_VERSION, "kind": "fleet", "command": command}
    doc["clusters"] = clusters
    return json.dumps(doc, indent=2) + "\n"


def _markdown(command: str, outcomes: Sequence[Outcome]) -> str:
    lines = [f"## zonectl {command}: {len(outcomes)} cluster(s)", ""]
    lines += ["| cluster | result | exit |", "|---|---|---|"]
    lines += [f"| `{o.cluster}` | {o.result} | {o.code} |" for o in outcomes]
    text = "\n".join(lines) + "\n"
    for o in outcomes:
        text += f"\n## cluster {o.cluster}\n\n{_failed(o)}"
        if o.error:
            text += "\n"
        text += demote_headings(o.stdout)
    return text


def _failed(o: Outcome) -> str:
    if not o.error:
        return ""
    return f"**{o.result}** (exit {o.code}): {redact(o.error)}\n"


def _yaml_note(o: Outcome) -> str:
    if not o.error:
        return ""
    return f"# {o.result} (exit {o.code}): {redact(o.error)}\n"


def demote_headings(markdown: str) -> str:
    """One level deeper, so each cluster's own `## zonectl plan` nests under its section;
    lines inside fenced code blocks are left as they are."""
    out = []
    fenced = False
    for line in markdown.splitlines(keepends=True):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and line.startswith("#"):
            line = "#" + line
        out.append(line)
    return "".join(out)
