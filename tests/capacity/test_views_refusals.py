"""A blocked plan in every view and every way to run it: the HTML plan page and the PR
comment name the blocked shard like the markdown view; `apply --dry-run` says apply would
refuse it (exit 1, nothing listed, nothing sent); `rotate` (cron) refuses a window move the
projection blocks with apply's message and leaves the ranges as they were."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from capacity_kit import AT, metadata, policy, zonectl

from zonectl.plan.serialize import load_plan
from zonectl.prbot.body import Report, build_comment
from zonectl.render.markdown import render_markdown
from zonectl.sandbox.seed import build
from zonectl.sandbox.seed.schema import load_cluster_file
from zonectl.sandbox.state import Sandbox

BLOCKED = (
    "BLOCKED shard s1: volume 20.0 GiB, 14.0 GiB used (70.0%); after this plan 18.1 GiB "
    "(90.5%), past its limit 85% (17.0 GiB)"
)


def test_the_html_plan_has_the_disk_section_naming_the_blocked_shard(
    served: Any, tmp_path: Path
) -> None:
    sb = served()
    code, out, err = zonectl("plan", policy(tmp_path), "--uri", sb.uri, "--at", AT, "-f", "html")
    assert code == 0, err
    section = out[out.index("<h2>Disk capacity</h2>") : out.index("<h2>Forecast")]
    assert '<p class="bad">zonectl apply refuses this plan: it would fill a disk</p>' in section
    assert f'<p class="bad">{BLOCKED}</p>' in section
    assert "<td>s1</td>" in section and "18.1 GiB (90.5%)" in section


def test_the_pr_comment_shows_the_blocked_shard_above_the_fold(served: Any, tmp_path: Path) -> None:
    sb = served()
    saved = tmp_path / "plan.json"
    code, _, err = zonectl(
        "plan", policy(tmp_path), "--uri", sb.uri, "--at", AT, "--save-plan", str(saved)
    )
    assert code == 0, err
    markdown = render_markdown(load_plan(saved.read_text(encoding="utf-8")))
    body = build_comment(Report(0, "", markdown, 0))
    above = body[: body.index("<details>")]
    assert "> `zonectl apply` refuses this plan: it would fill a disk" in above
    # markdown-escaped, as every line of the markdown plan
    assert "> - " + BLOCKED.replace("s1:", "s1\\:") in above.splitlines()


def test_apply_dry_run_of_a_blocked_plan_says_it_would_be_refused_and_sends_nothing(
    served: Any, tmp_path: Path
) -> None:
    sb = served()
    before = metadata(sb.client)
    for route in ([], ["--migrate"]):
        code, out, err = zonectl("apply", policy(tmp_path), "--uri", sb.uri, "--dry-run", *route)
        assert code == 1, err
        assert out == ""  # no command listed as if it would run
        assert (
            "zonectl: error: the plan would take a shard past its disk limit; apply would "
            "refuse it; nothing was sent:"
        ) in err
        assert f"  {BLOCKED}" in err.splitlines()
        assert "dry run:" not in err
    assert metadata(sb.client) == before


# A firehose window whose cold shard is nearly full: the day rotate moves out of hot would
# take cold0 past 85 % of its 2 GiB (84.9 % used before).
FIREHOSE = """
shards:
  - {name: hot0, zones: [hot], disk: {size: 100GiB, baseline: 2GiB}}
  - {name: cold0, zones: [archive], disk: {size: 2GiB, baseline: 1120MiB}}
databases:
  - {name: app, primary: cold0}
collections:
  - ns: app.events
    key: {ts: 1}
    chunks: 29
    keys: {type: date, start: "2026-02-01T00:00:00Z", step: 1d}
    chunkSize: {bytes: 33554432, docs: 100000}
zones:
  - {ns: app.events, min: {ts: {$minKey: 1}}, max: {ts: {$date: "2026-03-01T00:00:00Z"}},
     zone: archive}
  - {ns: app.events, min: {ts: {$date: "2026-03-01T00:00:00Z"}}, max: {ts: {$maxKey: 1}},
     zone: hot}
"""
WINDOW = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  hot0: [hot]
  cold0: [archive]
collections:
  app.events:
    key: {ts: 1}
    firehose: {field: ts, type: date, schedule: "0 0 * * *", timezone: UTC, keep: 1,
               hot: hot, cold: archive}
"""
ROTATE_AT = "2026-03-02T00:05:00Z"


def test_rotate_refuses_a_window_move_the_disk_guard_blocks(
    sandbox_server: Any, tmp_path: Path
) -> None:
    sandbox = Sandbox("7.0")
    sandbox.clock.set(dt.datetime(2026, 3, 2, 0, 5, tzinfo=dt.UTC))
    build.seed(sandbox, load_cluster_file("cluster.yaml", FIREHOSE), "cluster.yaml")
    sb = sandbox_server("7.0", sandbox=sandbox)
    path = tmp_path / "policy.yaml"
    path.write_text(WINDOW)
    before = metadata(sb.client)
    code, out, err = zonectl("rotate", str(path), "--uri", sb.uri, "--at", ROTATE_AT, "--yes")
    assert code == 1, err
    lines = err.splitlines()
    # apply's own refusal, word for word
    assert lines[0] == (
        "zonectl: error: the plan would take a shard past its disk limit; nothing was changed:"
    )
    assert lines[1].startswith(
        "  BLOCKED shard cold0: volume 2.0 GiB, 1.7 GiB used (84.9%); after this plan"
    )
    assert "window" not in out  # no window reported as moved
    assert metadata(sb.client) == before
