"""The deploy/ kit: every YAML file loads, and every `zonectl ...` command line in it
(crontab, systemd, CronJob, workflow, Dockerfile, pre-commit hook) parses against the
real CLI. Parse-only: click builds the context and checks options, nothing runs."""

from __future__ import annotations

import functools
import json
import re
import shlex
import shutil
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, NamedTuple

import child_procs
import pytest
import typer
from ruamel.yaml import YAML

try:  # typer 0.2x vendors its own click as typer._click; older ones use click itself
    from typer._click.exceptions import ClickException, UsageError
except ImportError:  # pragma: no cover
    from click.exceptions import ClickException, UsageError  # type: ignore[assignment]

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"
PRE_COMMIT = ROOT / ".pre-commit-hooks.yaml"
# Shell words that end one command: what follows is another command or a redirection.
_STOP = frozenset({";", "&&", "||", "|", "&", ">", ">>", "<", "2>", "2>&1", ")", "("})


class CommandLine(NamedTuple):
    where: str  # "deploy/crontab:12", for the failure message
    args: tuple[str, ...]  # what follows `zonectl`


def yaml_files() -> list[Path]:
    found = [*DEPLOY.rglob("*.yaml"), *DEPLOY.rglob("*.yml"), PRE_COMMIT]
    return sorted({*found, DEPLOY / "gitlab" / ".gitlab-ci.yml"})


def load_yaml_documents(path: Path) -> list[Any]:
    return list(YAML(typ="safe", pure=True).load_all(path.read_text(encoding="utf-8")))


def _shell_commands(text: str, where: str) -> Iterator[CommandLine]:
    """`zonectl` invocations in shell text: continuation lines joined, one per command."""
    joined = re.sub(r"\\\n", " ", text)
    for number, line in enumerate(joined.splitlines(), 1):
        if line.lstrip().startswith("#") or "zonectl" not in line:
            continue
        lexer = shlex.shlex(line, posix=True, punctuation_chars=";&|<>()")
        lexer.whitespace_split = True
        lexer.commenters = "#"
        words = list(lexer)
        for i, word in enumerate(words):
            # A word naming the zonectl program starts an invocation (`flock ... zonectl`,
            # `exec zonectl`, `/usr/local/bin/zonectl`); paths like /etc/zonectl/x do not.
            if word.rsplit("/", 1)[-1] == "zonectl":
                rest: list[str] = []
                for follower in words[i + 1 :]:
                    if follower in _STOP:
                        break
                    rest.append(follower)
                yield CommandLine(f"{where}:{number}", tuple(rest))


def _crontab_commands(path: Path) -> Iterator[CommandLine]:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        fields = line.split(None, 6)
        if len(fields) == 7 and not line.startswith("#") and "=" not in fields[0]:
            # /etc/cron.d format: five time fields, the user, then the command.
            for found in _shell_commands(fields[6], f"deploy/crontab:{number}"):
                yield found._replace(where=f"deploy/crontab:{number}")


def _systemd_commands(path: Path) -> Iterator[CommandLine]:
    rel = path.relative_to(ROOT)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        key, _, value = line.partition("=")
        if key.strip() in {"ExecStart", "ExecStartPre", "ExecStartPost", "ExecStop"}:
            for found in _shell_commands(value.lstrip("-@:+!"), f"{rel}"):
                yield found._replace(where=f"{rel}:{number}")


def _dockerfile_commands(path: Path) -> Iterator[CommandLine]:
    entrypoint: list[str] = []
    cmd: list[str] = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("ENTRYPOINT "):
            entrypoint = json.loads(line.removeprefix("ENTRYPOINT "))
        elif line.startswith("CMD "):
            cmd = json.loads(line.removeprefix("CMD "))
    if entrypoint and entrypoint[0].rsplit("/", 1)[-1] == "zonectl":
        yield CommandLine("deploy/Dockerfile:ENTRYPOINT+CMD", tuple(entrypoint[1:] + cmd))


def _containers(node: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(node, Mapping):
        for key, value in node.items():
            if key in {"containers", "initContainers"} and isinstance(value, list):
                yield from (c for c in value if isinstance(c, Mapping))
            else:
                yield from _containers(value)
    elif isinstance(node, list):
        for item in node:
            yield from _containers(item)


def _kubernetes_commands(path: Path) -> Iterator[CommandLine]:
    rel = path.relative_to(ROOT)
    for doc in load_yaml_documents(path):
        for container in _containers(doc):
            argv = [*container.get("command", []), *container.get("args", [])]
            if argv and argv[0].rsplit("/", 1)[-1] == "zonectl":
                yield CommandLine(f"{rel}:{container['name']}", tuple(argv[1:]))


def _workflow_commands(path: Path) -> Iterator[CommandLine]:
    rel = path.relative_to(ROOT)
    workflow = load_yaml_documents(path)[0]
    for job_name, job in workflow["jobs"].items():
        for index, step in enumerate(job.get("steps", [])):
            if "run" in step:
                yield from _shell_commands(step["run"], f"{rel}:{job_name}.steps[{index}]")


def _action_commands(path: Path) -> Iterator[CommandLine]:
    rel = path.relative_to(ROOT)
    action = load_yaml_documents(path)[0]
    for index, step in enumerate(action["runs"].get("steps", [])):
        if "run" in step:
            yield from _shell_commands(step["run"], f"{rel}:runs.steps[{index}]")


def _gitlab_commands(path: Path) -> Iterator[CommandLine]:
    rel = path.relative_to(ROOT)
    for name, job in load_yaml_documents(path)[0].items():
        if isinstance(job, Mapping) and "script" in job:
            for index, line in enumerate(job["script"]):
                yield from _shell_commands(line, f"{rel}:{name}.script[{index}]")


def _pre_commit_commands(path: Path) -> Iterator[CommandLine]:
    for hook in load_yaml_documents(path)[0]:
        entry = shlex.split(hook["entry"])
        if entry[0] == "zonectl":
            # pre-commit appends the matching file names to the entry, unless told not to.
            names = [] if hook.get("pass_filenames") is False else ["policies/events.yaml"]
            args = (*entry[1:], *hook.get("args", []), *names)
            yield CommandLine(f".pre-commit-hooks.yaml:{hook['id']}", args)


def extract_command_lines() -> list[CommandLine]:
    """Every `zonectl ...` invocation the deploy kit would run."""
    found: list[CommandLine] = []
    found += _crontab_commands(DEPLOY / "crontab")
    for unit in sorted((DEPLOY / "systemd").glob("*.service")):
        found += _systemd_commands(unit)
    found += _dockerfile_commands(DEPLOY / "Dockerfile")
    for manifest in sorted((DEPLOY / "kubernetes").glob("*.yaml")):
        found += _kubernetes_commands(manifest)
    for workflow in sorted((DEPLOY / "github").glob("*.yml")):
        found += _workflow_commands(workflow)
    found += _action_commands(DEPLOY / "github" / "action" / "action.yml")
    found += _gitlab_commands(DEPLOY / "gitlab" / ".gitlab-ci.yml")
    found += _pre_commit_commands(PRE_COMMIT)
    return found


@functools.cache
def zonectl_cli() -> Any:
    """The click group `zonectl` runs, with every registered command."""
    from zonectl.cli import commands
    from zonectl.cli.app import app

    commands.register(app)
    return typer.main.get_command(app)


def parse_only(args: tuple[str, ...]) -> None:
    """Parse `zonectl ARGS` as the real CLI would, without running anything."""
    group = zonectl_cli()
    with group.make_context("zonectl", list(args), resilient_parsing=False) as ctx:
        if not args or args[0].startswith("-"):
            return  # only group options (--help, --version), handled by click
        sub = group.get_command(ctx, args[0])
        if sub is None:
            raise UsageError(f"no such command {args[0]!r}")
        sub.make_context(args[0], list(args[1:]), parent=ctx)


# --- tests -----------------------------------------------------------------------------


@pytest.mark.parametrize("path", yaml_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_yaml_file_in_the_deploy_kit_is_well_formed(path: Path) -> None:
    docs = load_yaml_documents(path)
    assert docs and all(doc is not None for doc in docs)


def test_the_extractor_finds_every_place_that_runs_zonectl() -> None:
    where = [line.where.split(":")[0] for line in extract_command_lines()]
    assert where.count("deploy/crontab") == 1
    assert where.count("deploy/systemd/zonectl-rotate.service") == 1
    assert where.count("deploy/Dockerfile") == 1
    assert where.count("deploy/kubernetes/cronjob.yaml") == 1
    assert where.count("deploy/github/zonectl-policy.yml") == 2  # plan: in the action
    assert where.count("deploy/github/action/action.yml") == 3  # validate, plan, explain
    assert where.count("deploy/gitlab/.gitlab-ci.yml") == 3
    assert where.count(".pre-commit-hooks.yaml") == 1


def test_the_extractor_stops_at_shell_operators_and_keeps_quoted_words() -> None:
    text = 'set +e\nzonectl plan "$POLICIES" --format markdown > plan.md || true\n'
    assert [c.args for c in _shell_commands(text, "t")] == [
        ("plan", "$POLICIES", "--format", "markdown")
    ]


def test_the_rotation_command_is_the_same_everywhere_it_is_scheduled() -> None:
    rotate = {c.args for c in extract_command_lines() if c.args[:1] == ("rotate",)}
    assert rotate == {
        (
            "rotate",
            "/etc/zonectl/policies",
            "--yes",
            "--metrics-file",
            "/var/lib/node_exporter/textfile/zonectl-rotate.prom",
        )
    }


def test_every_scheduled_rotation_writes_its_metrics_where_the_unit_may_write() -> None:
    # The alerts in deploy/prometheus/ only see a rotation that wrote its textfile; under
    # systemd's ProtectSystem=strict the directory must be listed in ReadWritePaths=.
    scheduled = [c for c in extract_command_lines() if c.args[:1] == ("rotate",)]
    assert {c.where.split(":")[0] for c in scheduled} >= {
        "deploy/crontab",
        "deploy/systemd/zonectl-rotate.service",
        "deploy/kubernetes/cronjob.yaml",
    }
    unit = (DEPLOY / "systemd" / "zonectl-rotate.service").read_text(encoding="utf-8")
    for line in scheduled:
        target = Path(line.args[line.args.index("--metrics-file") + 1])
        assert target.suffix == ".prom"
        assert f"ReadWritePaths={target.parent}" in unit
    manifest = load_yaml_documents(DEPLOY / "kubernetes" / "cronjob.yaml")[0]
    pod = manifest["spec"]["jobTemplate"]["spec"]["template"]["spec"]
    mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0]["volumeMounts"]}
    volume = next(v for v in pod["volumes"] if v["name"] == mounts[str(target.parent)])
    assert volume["hostPath"]["path"] == str(target.parent)


# Shell words that expand to a list of options the script builds (the namespaces a plan
# changes, as `-n NS` pairs): parsed as one such pair.
_LISTS = {"${args[@]}": ("-n", "app.events"), "$explain_args": ("-n", "app.events")}


@pytest.mark.parametrize("line", extract_command_lines(), ids=lambda c: c.where)
def test_every_zonectl_command_line_in_the_deploy_kit_parses(line: CommandLine) -> None:
    args = tuple(word for arg in line.args for word in _LISTS.get(arg, (arg,)))
    try:
        parse_only(args)
    except typer.Exit as done:
        assert done.exit_code == 0  # --help / --version
    except ClickException as exc:
        pytest.fail(f"{line.where}: zonectl {shlex.join(line.args)}: {exc.format_message()}")


def test_the_pre_commit_hook_validates_a_split_policy_whole_and_no_other_yaml(
    tmp_path: Path,
) -> None:
    """As pre-commit runs it in a policy repository laid out as the docs say: editing one
    file of the demo's split policy (shards in one file, collections in others) or a CI
    workflow. Per file, the first failed with ZP301 (its zones are assigned in another
    file), the second was validated as a policy."""
    (hook,) = load_yaml_documents(PRE_COMMIT)[0]
    repo = tmp_path / "repo"
    shutil.copytree(ROOT / "policies" / "demo", repo / "policies")
    workflow = repo / ".github" / "workflows" / "zonectl-policy.yml"
    workflow.parent.mkdir(parents=True)
    workflow.write_text("on: pull_request\njobs: {}\n")
    matches = re.compile(hook["files"]).search
    assert matches("policies/audit.yaml") and not matches(".github/workflows/zonectl-policy.yml")
    assert not matches("clusters.yaml") and not matches(".pre-commit-config.yaml")
    assert hook.get("pass_filenames") is False  # so the changed file alone is never checked
    entry = shlex.split(hook["entry"])
    done = child_procs.run(
        [sys.executable, "-m", "zonectl", *entry[1:], *hook["args"]],
        cwd=repo, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
