"""The pages of docs/ cannot rot either: every shell block of every page runs here, in
order, against the sandbox, with the exit code and output the page shows (the runner is the
README's, docs_kit.py); a block that cannot run says why, visibly, in the markdown."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from docs_kit import ROOT, SHELL, Block, blocks, commands, run_blocks, scratch

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
RUNNABLE = [p for p in PAGES if any(b.runs for b in blocks(p.read_text()))]


def page_blocks(page: Path) -> list[Block]:
    return blocks(page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", RUNNABLE, ids=lambda p: p.name)
def test_every_shell_block_of_the_page_runs_with_the_exit_code_it_shows(
    page: Path, tmp_path: Path
) -> None:
    """Each page starts from a fresh directory whose `policies/` is the demo policy, with
    ZONECTL_URI naming a sandbox that keeps its state there (docs/README.md)."""
    cwd, env = scratch(tmp_path, ROOT / "policies" / "demo")
    env["ZONECTL_URI"] = "sandbox:?state=sandbox.json"
    started = time.monotonic()
    ran = run_blocks(f"docs/{page.name}", page_blocks(page), cwd, env)
    assert ran, f"docs/{page.name}: no command ran"
    print(f"docs/{page.name}: {len(ran)} command(s) in {time.monotonic() - started:.1f}s")


def test_the_pages_run_at_least_the_commands_people_copy() -> None:
    ran = {p.name for p in RUNNABLE}
    assert {"analyze.md", "doctor.md", "fleet.md", "metrics.md", "migration.md", "review.md"} <= ran


@pytest.mark.parametrize("page", [*PAGES, ROOT / "README.md"], ids=lambda p: p.name)
def test_every_block_says_what_it_is_and_every_skipped_one_says_why(page: Path) -> None:
    """An unlabelled fence could hide a command from the runner, so every fence names its
    language (`text` for output); a `not run` marker needs a reason and a shell block;
    a `file` marker names a relative path."""
    for block in page_blocks(page):
        where = f"{page.name}:{block.line}"
        assert block.lang, f"{where}: a fence without a language (use sh, console or text)"
        if block.marker is None:
            continue
        kind, value = block.marker
        if kind == "not run":
            assert len(value) >= 10, f"{where}: `<!-- not run: REASON -->` needs its reason"
            assert block.lang in SHELL, f"{where}: only shell blocks run, so only they skip"
        else:
            assert value and not Path(value).is_absolute() and ".." not in Path(value).parts


def test_a_command_whose_exit_code_differs_fails_the_page(tmp_path: Path) -> None:
    page = "```sh\ntrue\nfalse  # exit 1\nexit 3\n```\n"
    cwd, env = scratch(tmp_path, ROOT / "policies" / "demo")
    with pytest.raises(AssertionError, match=r"page\.md:1: exit 3\nexit 3, the page says 0"):
        run_blocks("page.md", blocks(page), cwd, env)


def test_console_output_must_be_what_the_command_printed(tmp_path: Path) -> None:
    cwd, env = scratch(tmp_path, ROOT / "policies" / "demo")
    shown = "```console\n$ printf 'ok  a\\nb 12\\n'\nok a\n...\nb 1...\n```\n"
    assert [c for c, _ in run_blocks("p.md", blocks(shown), cwd, env)] == [
        "printf 'ok  a\\nb 12\\n'"
    ]
    wrong = shown.replace("b 1...", "b 13")
    with pytest.raises(AssertionError, match="shown but not printed: \\['b 13'\\]"):
        run_blocks("p.md", blocks(wrong), cwd, env)


def test_markers_skip_blocks_and_write_files(tmp_path: Path) -> None:
    cwd, env = scratch(tmp_path, ROOT / "policies" / "demo")
    page = (
        "<!-- file: conf/x.txt -->\n```text\nhello\n```\n\n"
        "<!-- not run: needs a real cluster -->\n```sh\nexit 9\n```\n"
        "  ```sh\n  cat conf/x.txt \\\n    conf/x.txt\n  ```\n"
    )
    found = blocks(page)
    assert [b.marker for b in found] == [
        ("file", "conf/x.txt"),
        ("not run", "needs a real cluster"),
        None,
    ]
    assert [c.line for c in commands(found[2])] == ["cat conf/x.txt conf/x.txt"]
    assert run_blocks("p.md", found, cwd, env) == [("cat conf/x.txt conf/x.txt", "hello\nhello\n")]
