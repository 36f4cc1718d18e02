"""The pages of docs/ cannot rot either: every shell block of every page runs here, in
order, against the sandbox, with the exit code and output the page shows (the runner is the
README's, docs_kit.py); a block that cannot run says why, visibly, in the markdown."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from docs_kit import OTHER_DAY, PINNED, ROOT, SHELL, Block, blocks, commands, run_blocks, scratch

DOCS = ROOT / "docs"
PAGES = sorted(DOCS.glob("*.md"))
RUNNABLE = [p for p in PAGES if any(b.checked for b in blocks(p.read_text()))]


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
    a `file` marker names a relative path; an `output of` marker a command, before a block
    that is not a shell block."""
    for block in page_blocks(page):
        where = f"{page.name}:{block.line}"
        assert block.lang, f"{where}: a fence without a language (use sh, console or text)"
        if block.marker is None:
            continue
        kind, value = block.marker
        if kind == "not run":
            assert len(value) >= 10, f"{where}: `<!-- not run: REASON -->` needs its reason"
            assert block.lang in SHELL, f"{where}: only shell blocks run, so only they skip"
        elif kind == "output of":
            assert value, f"{where}: `<!-- output of: COMMAND -->` needs its command"
            assert block.lang not in SHELL, f"{where}: a shell block shows its own commands"
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


def test_every_page_runs_on_the_pinned_day_and_a_shown_output_on_another_day_too(
    tmp_path: Path,
) -> None:
    """Python processes a page starts see PINNED's calendar; a command whose output the page
    shows runs again, in a copy of the directory, at OTHER_DAY (alongside the first run, so
    in either order), and passes when it prints the same there (the log outside the
    directory records both runs)."""
    (tmp_path / "page").mkdir()
    cwd, env = scratch(tmp_path / "page", ROOT / "policies" / "demo")
    log = tmp_path / "days.log"
    today = "import datetime, sys; open(sys.argv[1], 'a').write(f'{datetime.date.today()}\\n')"
    page = f'```console\n$ python -c "{today}" {log} && echo same every day\nsame every day\n```\n'
    run_blocks("p.md", blocks(page), cwd, env)
    assert sorted(log.read_text().split()) == [PINNED[:10], OTHER_DAY[:10]]


def test_a_shown_output_that_follows_the_date_fails_the_page_naming_the_block(
    tmp_path: Path,
) -> None:
    """A page that shows today's date holds on the day it is pinned to, and nowhere else:
    the kit fails it, naming page, line and command, and says how to pin it."""
    cwd, env = scratch(tmp_path, ROOT / "policies" / "demo")
    today = "python -c 'import datetime; print(datetime.date.today())'"
    page = f"Some prose.\n\n```console\n$ {today}\n{PINNED[:10]}\n```\n"
    with pytest.raises(AssertionError) as failed:
        run_blocks("p.md", blocks(page), cwd, env)
    message = str(failed.value)
    assert message.startswith(f"p.md:3: {today}\nwhat the page shows depends on the date:")
    assert f"not on {OTHER_DAY} (shown but not printed: ['{PINNED[:10]}'])" in message
    assert "Pin the block's clock (`sandbox:?now=...` in its URI, `--at ...`)" in message
    # An exit code that follows the date fails the same way.
    year = "python -c 'import datetime, sys; print(1); sys.exit(datetime.date.today().year - 2026)'"
    with pytest.raises(AssertionError, match=r"not on 2027-02-28T00:37:00\+00:00 \(exit 1, the"):
        run_blocks("p.md", blocks(f"```console\n$ {year}\n1\n```\n"), cwd, env)


def test_an_output_of_marker_checks_a_text_block_as_that_commands_output(tmp_path: Path) -> None:
    cwd, env = scratch(tmp_path, ROOT / "policies" / "demo")
    page = (
        "<!--\n  output of:\n  printf 'title\\nbody one\\nbody two\\n'\n-->\n"
        "```markdown\ntitle\n...\nbody t...\n```\n"
    )
    [block] = blocks(page)
    assert block.marker == ("output of", "printf 'title\\nbody one\\nbody two\\n'")
    assert run_blocks("p.md", [block], cwd, env) == [
        ("printf 'title\\nbody one\\nbody two\\n'", "title\nbody one\nbody two\n")
    ]
    wrong = page.replace("body t...", "body three")
    with pytest.raises(
        AssertionError, match=r"p\.md:5: printf .*\nshown but not printed: \['body three'\]"
    ):
        run_blocks("p.md", blocks(wrong), cwd, env)
