"""`zonectl plan --format html` and `--format markdown`: the forecast of the movement a plan
causes, as an SVG burn-down in the page and as a Mermaid chart in the markdown (what the
PR comment carries), with the figures in their tables."""

from __future__ import annotations

from pathlib import Path

from builders import zonectl
from dom import Page

from zonectl.prbot.body import Report, build_comment

CLUSTER = """version: "7.0"
shards: [{name: h0, zones: [hot]}, {name: h1, zones: [hot]}, {name: c0, zones: [cold]}]
collections:
  - ns: app.e
    key: {x: 1}
    chunks: 24
    keys: {type: int, start: 0, step: 100}
    chunkSize: {bytes: 33554432, docs: 1000}
zones:
  - {ns: app.e, min: {x: {$minKey: 1}}, max: {x: 100}, zone: cold}
  - {ns: app.e, min: {x: 100}, max: {x: {$maxKey: 1}}, zone: hot}
balancer: {activeWindow: {start: "23:00", stop: "01:00"}}
"""
POLICY = """apiVersion: zonectl/v1
kind: ZonePolicy
shards: {h0: [hot], h1: [hot], c0: [cold]}
balancer: {activeWindow: {start: "23:00", stop: "01:00"}}
collections:
  app.e:
    ranges:
      - {zone: cold, min: {x: {$minKey: 1}}, max: {x: 900}}
      - {zone: hot, min: {x: 900}, max: {x: {$maxKey: 1}}}
"""
AT = "2026-03-02T12:00:00+00:00"  # eleven hours before the window opens


def _plan(tmp_path: Path, fmt: str) -> str:
    (tmp_path / "cluster.yaml").write_text(CLUSTER)
    (tmp_path / "policy.yaml").write_text(POLICY)
    uri = f"sandbox:{tmp_path / 'cluster.yaml'}"
    code, out, err = zonectl(
        "plan", str(tmp_path / "policy.yaml"), "--uri", uri, "-f", fmt, "--at", AT
    )
    assert code == 0, err
    return out


def test_the_plan_page_draws_both_routes_and_shades_the_balancer_window(tmp_path: Path) -> None:
    page = Page(_plan(tmp_path, "html"))
    assert page.unclosed == [] and not page.find("script")
    routes = {
        e.attrs["data-route"]: int(e.attrs["data-points"]) for e in page.find("path", "route")
    }
    assert set(routes) == {"migrate", "balancer"} and min(routes.values()) > 2
    windows = page.find("rect", "window")
    assert windows and all(
        "balancer window open 2026-03-02 23:00" in w.all_text() for w in windows[:1]
    )
    burn = page.table("burndown-table")
    assert burn[0][1:] == ["+0s", "2026-03-02 12:00", "256.0 MiB"]  # 8 chunks of 32 MiB
    balancer = [r for r in burn if r[0] == "balancer"]
    assert balancer[-1][3] == "0 B" and balancer[-1][2] >= "2026-03-02 23:00"
    assert page.table("forecast-table")[0][:3] == ["app.e", "8", "256.0 MiB"]
    assert "zone cold" in page.find("pre")[0].all_text()  # the plan's ops, as text


def test_the_markdown_plan_and_the_pr_comment_carry_a_mermaid_burn_down(tmp_path: Path) -> None:
    markdown = _plan(tmp_path, "markdown")
    chart = markdown.split("```mermaid\n", 1)[1].split("```", 1)[0].splitlines()
    assert chart[1] == "xychart-beta"
    bars = [line for line in chart if line.strip().startswith("bar ")]
    lines = [line for line in chart if line.strip().startswith("line ")]
    assert len(bars) == 1 and len(lines) == 2  # window; --migrate then balancer
    migrate, balancer = ([float(v) for v in s.split("[")[1].rstrip("]").split(",")] for s in lines)
    assert migrate[0] == balancer[0] == 256.0 and migrate[-1] == balancer[-1] == 0.0
    assert migrate[1] == 0.0 < balancer[1]  # --migrate is done long before the window opens
    assert "| `app.e` | 8 | 256.0 MiB |" in markdown  # the figures stay in the table
    comment = build_comment(
        Report(validate_output="", validate_exit=0, plan_markdown=markdown, plan_exit=4)
    )
    assert "```mermaid\n%%{init:" in comment and "xychart-beta" in comment
