"""The pull-request comment counts a shard's removal as destructive and shows it above the
fold, from the plan JSON `plan --save-plan` writes (the op serializes `destructive: true`
and its fields; the comment is built from the plan loaded back and rendered)."""

from __future__ import annotations

import json
from pathlib import Path

from three_shards import REMOVE_S1
from views_kit import CLUSTER, NOW, cluster_uri, zonectl

from zonectl.plan.serialize import load_plan
from zonectl.prbot.body import Report, build_comment
from zonectl.render.markdown import render_markdown

POLICY = REMOVE_S1


def test_a_saved_plan_with_a_removal_is_one_destructive_change_in_the_comment(
    tmp_path: Path,
) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text(POLICY, encoding="utf-8")
    saved = tmp_path / "plan.json"
    calm = CLUSTER.replace(", draining: true", "")  # s1 not draining yet: the removal starts
    uri = cluster_uri(tmp_path, calm)
    out = zonectl("plan", str(policy), "--uri", uri, "--at", NOW, "--save-plan", str(saved))
    assert out.exit_code == 0, out.stderr
    doc = json.loads(saved.read_text(encoding="utf-8"))
    [removal] = [op for op in doc["ops"] if op["kind"] == "remove_shard"]
    assert removal["destructive"] is True
    assert (removal["args"]["shard"], removal["args"]["step"]) == ("s1", "start")
    assert [op["kind"] for op in doc["ops"] if op["destructive"]] == ["remove_shard"]
    markdown = render_markdown(load_plan(saved.read_text(encoding="utf-8")))
    body = build_comment(Report(0, "", markdown, 4))
    fold = body.index("<details>")
    above = body[:fold]
    assert "> **1 destructive change(s)**" in above
    assert "> - shard `s1` is drained and removed from the cluster" in above
    summary = next(line for line in above.splitlines() if line.startswith("**Plan:**"))
    assert "1 shard to drain and remove" in summary
