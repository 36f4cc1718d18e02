"""A fleet run's `--format html`: one page with a section per cluster (its own page's
body, or why it has none), not several documents pasted together."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from zonectl.errors import redact
from zonectl.render.html.markup import esc, page


@dataclass(frozen=True)
class ClusterPage:
    cluster: str
    result: str  # "ok", "failed", ... as the summary says it
    code: int
    error: str | None
    stdout: str


def combine_html(command: str, outcomes: Sequence[ClusterPage]) -> str:
    body = [f"<h1>zonectl {esc(command)}: {len(outcomes)} cluster(s)</h1>\n<ul>"]
    body += [
        f'<li><a href="#cluster-{i}">{esc(o.cluster)}</a>: {esc(o.result)}</li>'
        for i, o in enumerate(outcomes)
    ]
    body.append("</ul>\n")
    for i, o in enumerate(outcomes):
        body.append(f'<h1 id="cluster-{i}" data-cluster="{esc(o.cluster)}">cluster '
                    f"{esc(o.cluster)}: {esc(o.result)}</h1>\n")  # fmt: skip
        if o.error:
            body.append(f'<p class="bad">exit {o.code}: {esc(redact(o.error))}</p>\n')
        body.append(_inner(o.stdout))
    return page(f"zonectl {command}", body)


def _inner(document: str) -> str:
    """What is between <body> and </body> of one cluster's page ('' when it has none)."""
    start, end = document.find("<body>"), document.rfind("</body>")
    if start < 0 or end < start:
        return ""
    return document[start + len("<body>") : end]
