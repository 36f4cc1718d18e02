"""The sticky comment's markdown, from what the CI steps produced: validate's annotations,
the plan in markdown (or why there is none), optional analyzer warnings, and optionally
`zonectl explain` of the namespaces the plan changes (why the balancer moves them or not).
Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass

from zonectl.render.inert import markdown_code, markdown_text, terminal

MARKER = "<!-- zonectl-plan -->"
# GitHub refuses comment bodies over 65,536 characters; GitLab notes allow 1,000,000.
# Keep a margin for the frame around the plan.
MAX_BODY = 65_000
_FRAME = 400  # the details tags, the truncation note and the footer
_MAX_WARNINGS = 10_000  # analyzer section, characters
_MAX_EXPLAIN = 10_000  # explain section, characters (the plan gets the rest)
EXPLAIN_TITLE = "Why the balancer moves the changed namespaces, or not (zonectl explain)"
_MAX_ALERT_LINES = 30  # per destructive-change block above the fold
_ANNOTATION = re.compile(r"^::(error|warning|notice) (.*?)::(.*)$")


@dataclass(frozen=True)
class Report:
    validate_exit: int  # 0 valid, 3 invalid, anything else: validate itself failed
    validate_output: str  # `zonectl validate --format github` stdout (annotations)
    plan_markdown: str | None = None  # `zonectl plan --format markdown` stdout
    plan_exit: int | None = None  # None: plan did not run (invalid policy, say)
    plan_error: str | None = None  # plan's stderr when it failed (zonectl redacts it)
    warnings_markdown: str | None = None  # the analyzer's findings, when a step wrote them
    # `zonectl explain -n NS... --format markdown` of the namespaces the plan changes
    explain_markdown: str | None = None
    commit: str | None = None
    run_url: str | None = None


@dataclass(frozen=True)
class Problem:
    level: str
    where: str
    message: str


def parse_annotations(text: str) -> list[Problem]:
    """`::error file=F,line=L,col=C,title=CODE::message` lines, as validate prints them."""
    problems = []
    for line in text.splitlines():
        m = _ANNOTATION.match(line.strip())
        if m is None:
            continue
        props = dict(p.split("=", 1) for p in m.group(2).split(",") if "=" in p)
        where = ":".join(props[k] for k in ("file", "line", "col") if k in props)
        code = props.get("title")
        message = _unescape(m.group(3)).split("\n", 1)[0]
        problems.append(Problem(m.group(1), where, f"{code} {message}" if code else message))
    return problems


def _unescape(text: str) -> str:
    # GitHub workflow-command escaping: %25 %, %0D CR, %0A LF.
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%25", "%")


def plan_summaries(markdown: str) -> list[str]:
    """The bold summary line under each `## ` heading of a markdown plan (one per cluster
    when a plan covers several), unbolded, prefixed with the heading when there are
    several. It carries the migration estimate ("~N chunks (~X GiB) will migrate")."""
    found: list[tuple[str, str]] = []
    heading: str | None = None
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if fenced:
            continue
        if line.startswith("## "):
            heading = line[3:].strip()
        elif heading is not None and line.startswith("**") and line.rstrip().endswith("**"):
            found.append((heading, line.strip().strip("*").strip()))
            heading = None
    if len(found) == 1:
        return [found[0][1]]
    return [f"{h}: {s}" for h, s in found]


def plan_alerts(markdown: str) -> list[str]:
    """The plan's `> [!WARNING]` / `> [!CAUTION]` blocks (destructive changes), so they
    show above the fold; each block is its lines up to the first non-quoted line."""
    blocks: list[str] = []
    current: list[str] | None = None
    fenced = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            fenced = not fenced
        if not fenced and current is None and re.match(r"> \[!(WARNING|CAUTION)\]", line):
            current = [line]
        elif current is not None and line.startswith(">"):
            current.append(line)
        elif current is not None:
            blocks.append("\n".join(current))
            current = None
    if current is not None:
        blocks.append("\n".join(current))
    return blocks


def build_comment(report: Report) -> str:
    """The whole comment body, starting with the marker the bot finds it by."""
    parts = [MARKER, "### zonectl plan", "", *_verdict(report), ""]
    if report.warnings_markdown and report.warnings_markdown.strip():
        warnings = report.warnings_markdown.strip()
        if len(warnings) > _MAX_WARNINGS:
            warnings = warnings[:_MAX_WARNINGS].rsplit("\n", 1)[0] + "\n\n*(truncated)*"
        parts += ["#### Analyzer warnings", "", warnings, ""]
    if report.explain_markdown and report.explain_markdown.strip():
        parts += [*_details(EXPLAIN_TITLE, report.explain_markdown, _MAX_EXPLAIN, "explain"), ""]
    if report.plan_markdown is not None and report.plan_exit in (0, 4):
        parts += _details("Full plan", report.plan_markdown, MAX_BODY - _size(parts) - _FRAME)
    footer = [x for x in (_commit(report.commit), _run(report.run_url)) if x]
    if footer:
        parts += ["", f"<sub>{' · '.join(footer)}</sub>"]
    return "\n".join(parts).rstrip() + "\n"


def _verdict(report: Report) -> list[str]:
    problems = parse_annotations(report.validate_output)
    errors = [p for p in problems if p.level == "error"]
    lines: list[str] = []
    if report.validate_exit == 0:
        warned = f" ({len(problems)} warning(s))" if problems else ""
        lines.append(f"**Validate:** passed{warned}.")
    elif report.validate_exit == 3:
        lines.append(
            f"**Validate:** {len(errors)} error(s); the policy is invalid, so nothing was "
            "planned. They are annotated on *Files changed*:"
        )
    else:
        lines.append(f"**Validate:** could not run (exit {report.validate_exit}).")
    for p in problems[:20]:
        lines.append(f"- {markdown_code(p.where)} {p.level}: {markdown_text(p.message)}")
    if len(problems) > 20:
        lines.append(f"- ... and {len(problems) - 20} more")
    lines.append("")
    if report.plan_exit is None:
        return lines
    if report.plan_exit in (0, 4) and report.plan_markdown is not None:
        summaries = plan_summaries(report.plan_markdown)
        if not summaries:
            lines.append("**Plan:** see below.")
        lines += [f"**Plan:** {summary}" for summary in summaries]
        for alert in plan_alerts(report.plan_markdown):
            shown = alert.splitlines()
            if len(shown) > _MAX_ALERT_LINES:
                more = len(shown) - _MAX_ALERT_LINES
                shown = [*shown[:_MAX_ALERT_LINES], f"> - ... and {more} more in the full plan"]
            lines += ["", "\n".join(shown)]
    else:
        lines.append(f"**Plan:** failed (exit {report.plan_exit}).")
        if report.plan_error:
            lines += ["", "```", _tail(report.plan_error, 40), "```"]
    return lines


def _details(title: str, body: str, budget: int, what: str = "plan") -> list[str]:
    text = body.strip()
    if len(text) > budget:
        cut = text[: max(budget, 0)].rsplit("\n", 1)[0]
        if cut.count("```") % 2:
            cut += "\n```"  # close a code block the cut left open
        text = f"{cut}\n\n*(truncated: the full {what} is in the job summary and artifacts)*"
    return [f"<details><summary>{title}</summary>", "", text, "", "</details>"]


def _size(parts: list[str]) -> int:
    return sum(len(p) + 1 for p in parts)


def _tail(text: str, lines: int) -> str:
    # Inside a code block: control characters shown escaped, no fence can close it.
    tail = text.strip().splitlines()[-lines:]
    return "\n".join(terminal(line) for line in tail).replace("```", "'''")


def _commit(sha: str | None) -> str | None:
    return f"for {sha[:12]}" if sha else None


def _run(url: str | None) -> str | None:
    return f"[workflow run]({url})" if url else None
