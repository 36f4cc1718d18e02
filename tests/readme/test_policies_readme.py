"""policies/README.md's shell blocks run as its reader would type them, from a directory
whose `policies/` is the shipped tree: the check command exits 0 and the example plans."""

from __future__ import annotations

from pathlib import Path

from docs_kit import ROOT, blocks, run_blocks, scratch

PAGE = ROOT / "policies" / "README.md"


def test_every_shell_block_of_the_policies_readme_runs(tmp_path: Path) -> None:
    cwd, env = scratch(tmp_path, ROOT / "policies")
    ran = run_blocks("policies/README.md", blocks(PAGE.read_text(encoding="utf-8")), cwd, env)
    lines = [line for line, _ in ran]
    assert any(line.startswith("zonectl validate --each ") for line in lines), lines
    assert any(line.startswith("zonectl plan policies/examples/") for line in lines), lines
