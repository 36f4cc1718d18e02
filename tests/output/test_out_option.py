"""`-o FILE` on every command that takes --format: the file holds exactly what --format
names, stdout stays empty, the file is written whole (never half, never an old file
truncated first); `plan --save-plan FILE` is the saved plan for `apply --plan`, and the
old `plan -o FILE` without --format is refused (exit 2) rather than guessed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

DEMO = Path(__file__).resolve().parents[2] / "policies" / "demo"


def zonectl(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture(scope="module")
def uri() -> Iterator[str]:
    """The demo cluster served over TCP (read-only tests: plan, status, analyze, doctor)."""
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(None), str(seed.demo_path()))
    server = serve(sandbox)
    try:
        yield str(server.uri)
    finally:
        server.close()


def _json(text: str) -> bool:
    doc = json.loads(text)
    return isinstance(doc, dict) and "format_version" in doc


def _html(text: str) -> bool:
    return text.startswith("<!DOCTYPE html>") and text.rstrip().endswith("</html>")


def _openmetrics(text: str) -> bool:
    return text.startswith("# ") and text.endswith("# EOF\n")


# command -> format -> what a document of that format looks like (and no other does)
CHECKS: dict[str, dict[str, Callable[[str], bool]]] = {
    "plan": {
        "text": lambda t: t.startswith("zonectl plan ") and "Forecast" in t,
        "json": _json,
        "markdown": lambda t: t.startswith("## zonectl plan"),
        "github": lambda t: all(line.startswith("::warning ") for line in t.splitlines()),
        "html": _html,
    },
    "status": {
        "text": lambda t: t.startswith("cluster ") and "balancer: " in t,
        "json": _json,
        "openmetrics": _openmetrics,
        "html": _html,
    },
    "analyze": {
        "text": lambda t: "collection(s) analyzed" in t and t.startswith("app."),
        "json": _json,
        "markdown": lambda t: t.startswith("## zonectl analyze"),
    },
    "doctor": {
        "text": lambda t: t.startswith("zonectl doctor: "),
        "json": _json,
    },
    "explain": {
        "text": lambda t: t.startswith("explain at ") and "sharded collections" in t,
        "json": _json,
        "markdown": lambda t: t.startswith("### zonectl explain"),
    },
}
CASES = [(command, fmt) for command, formats in CHECKS.items() for fmt in formats]


def _args(command: str, uri: str) -> list[str]:
    policy = [str(DEMO)] if command == "plan" else []
    return [command, *policy, "--uri", uri]


@pytest.mark.parametrize(("command", "fmt"), CASES)
def test_out_writes_exactly_what_format_names(
    uri: str, tmp_path: Path, command: str, fmt: str
) -> None:
    target = tmp_path / "artifact"
    code, out, err = zonectl(*_args(command, uri), "--format", fmt, "-o", str(target))
    assert code == 0, err
    assert out == ""  # the artifact went to the file, not also to stdout
    text = target.read_text(encoding="utf-8")
    assert text and CHECKS[command][fmt](text), text[:300]
    others = [
        f for f in CHECKS[command] if f != fmt and CHECKS[command][f] is not CHECKS[command][fmt]
    ]
    assert not any(_quietly(CHECKS[command][f], text) for f in others if f != "github")
    assert [p.name for p in tmp_path.iterdir()] == ["artifact"]  # no temporary file left


def _quietly(check: Callable[[str], bool], text: str) -> bool:
    try:
        return check(text)
    except ValueError:
        return False


def test_plan_html_to_a_file_is_the_page_and_stdout_is_empty(uri: str, tmp_path: Path) -> None:
    """The issue's own example: the JSON plan no longer lands in p.html."""
    page = tmp_path / "p.html"
    code, out, err = zonectl("plan", str(DEMO), "--uri", uri, "--format", "html", "-o", str(page))
    assert code == 0, err
    assert out == "" and _html(page.read_text(encoding="utf-8"))
    assert '"format_version"' not in page.read_text(encoding="utf-8")


def test_plan_o_without_format_is_refused_and_names_save_plan(uri: str, tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    code, out, err = zonectl("plan", str(DEMO), "--uri", uri, "-o", str(saved))
    assert code == 2 and out == ""
    assert "--save-plan FILE" in err and "--format" in err
    assert not saved.exists()


def test_save_plan_applies_whatever_format_printed(tmp_path: Path) -> None:
    """--save-plan writes the JSON plan while stdout carries markdown; `--format json -o`
    writes the same kind of document; apply takes either."""
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(None), str(seed.demo_path()))
    server = serve(sandbox)
    try:
        saved, json_out = tmp_path / "plan.json", tmp_path / "out.json"
        args = ["plan", str(DEMO / "reports.yaml"), "--uri", str(server.uri)]
        code, out, err = zonectl(*args, "--format", "markdown", "--save-plan", str(saved))
        assert code == 0, err
        assert out.startswith("## zonectl plan") and "saved to" in err
        assert json.loads(saved.read_text(encoding="utf-8"))["format_version"] == 1
        assert zonectl(*args, "--format", "json", "-o", str(json_out))[0] == 0
        assert (
            json.loads(json_out.read_text(encoding="utf-8"))["ops"]
            == json.loads(saved.read_text(encoding="utf-8"))["ops"]
        )
        code, _, err = zonectl("apply", "--plan", str(saved), "--uri", str(server.uri), "--yes")
        assert code == 0, err
    finally:
        server.close()


def test_apply_of_a_file_that_is_no_saved_plan_says_how_to_save_one(
    uri: str, tmp_path: Path
) -> None:
    markdown = tmp_path / "plan.md"
    zonectl("plan", str(DEMO), "--uri", uri, "--format", "markdown", "-o", str(markdown))
    code, _, err = zonectl("apply", "--plan", str(markdown), "--uri", uri, "--yes")
    assert code == 1
    assert f"{markdown}: saved plan is not valid JSON" in err
    assert "--save-plan FILE" in err


def test_a_failed_run_leaves_the_previous_file_whole(tmp_path: Path) -> None:
    """Nothing is opened before the artifact exists: an unreachable cluster leaves the
    previous page as it was (not truncated)."""
    page = tmp_path / "status.html"
    page.write_text("previous page\n", encoding="utf-8")
    unreachable = "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200"
    code, _, err = zonectl("status", "--uri", unreachable, "--format", "html", "-o", str(page))
    assert code == 1, err
    assert page.read_text(encoding="utf-8") == "previous page\n"
    assert [p.name for p in tmp_path.iterdir()] == ["status.html"]


def test_an_unwritable_target_is_a_clear_error(uri: str, tmp_path: Path) -> None:
    target = tmp_path / "no-such-dir" / "status.json"
    code, out, err = zonectl("status", "--uri", uri, "--format", "json", "-o", str(target))
    assert code == 1 and out == ""
    assert f"cannot write {target}" in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["text", "json", "github"])
def test_validate_writes_its_report_to_the_file(tmp_path: Path, fmt: str) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: 3\n", encoding="utf-8")
    report = tmp_path / "report"
    code, out, err = zonectl("validate", str(bad), "--format", fmt, "-o", str(report))
    assert code == 3 and out == ""
    text = report.read_text(encoding="utf-8")
    assert "ZP112" in text and "shards: expected a mapping" in text
    assert "policy is invalid" in err  # the summary stays the conversation
    expected: dict[str, Callable[[str], Any]] = {
        "text": lambda t: t.startswith(str(bad)),
        "json": lambda t: json.loads(t)["valid"] is False,
        "github": lambda t: t.startswith("::error "),
    }
    assert expected[fmt](text)


def test_every_command_with_format_takes_o() -> None:
    """The rule, read from the commands' own options (fleet's subcommands included): no
    command prints an artifact in a --format that -o cannot write."""
    import typer

    def leaves(command: Any, path: str) -> Iterator[tuple[str, Any]]:
        if hasattr(command, "commands"):  # a group (typer's own class in typer 0.2x)
            for name, sub in command.commands.items():
                yield from leaves(sub, f"{path} {name}".strip())
        else:
            yield path, command

    with_format = []
    for path, command in leaves(typer.main.get_command(app), ""):
        options = {o for p in command.params for o in p.opts}
        if "--format" in options:
            with_format.append(path)
            assert {"-o", "--out"} <= options, path
    assert set(with_format) >= {"plan", "status", "analyze", "doctor", "validate"}
