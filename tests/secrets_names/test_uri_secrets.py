"""Passwords are never printed: connection strings with a known secret as the user, the
password (raw `@`, percent-encoded) or in options, broken in every usual way, run through
every command that takes --uri and a fleet run; the secret is in no output, no metrics file
and no document zonectl writes to the cluster, and a broken URI is one line naming what is
wrong and where the URI came from, never the URI."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from secrets_kit import (
    MANGLES,
    SECRET,
    WELL_FORMED,
    Served,
    Shape,
    auth_demo,
    metrics_text,
    written_documents,
    zonectl,
)

DEMO = Path(__file__).resolve().parents[2] / "policies" / "demo"

POSITIONS = ("user", "password", "password_at", "password_escaped", "aws_token", "tls_password")
COMMANDS: tuple[tuple[str, ...], ...] = (
    ("plan", "POLICY"),
    ("apply", "POLICY", "--yes"),
    ("rotate", "POLICY", "--yes"),
    ("status",),
    ("export",),
    ("recover",),
    ("doctor",),
    ("analyze",),
)
WITH_METRICS = {"apply", "rotate", "status"}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with auth_demo(tmp_path_factory.mktemp("policy")) as served:
        yield served


def run_everything(uri: str, via_env: bool, policy: Path, tmp: Path) -> list[str]:
    """Every command with the URI from --uri or $ZONECTL_URI; returns all it printed and
    wrote, and checks the shape of a broken URI's message on the way."""
    seen: list[str] = []
    for command in COMMANDS:
        metrics = tmp / f"{command[0]}.prom"
        extra = ("--metrics-file", str(metrics)) if command[0] in WITH_METRICS else ()
        args = tuple(str(policy) if a == "POLICY" else a for a in (*command, *extra))
        result = (
            zonectl(*args, env={"ZONECTL_URI": uri}) if via_env else zonectl(*args, "--uri", uri)
        )
        assert "Traceback" not in result.err and "internal error" not in result.err, result.err
        assert result.code in (0, 1), (command, result.err)
        seen += [result.out, result.err, metrics_text(metrics)]
    return seen


def run_fleet(uri: str, policy: Path, tmp: Path, from_file: bool) -> tuple[int, str]:
    if from_file:
        (tmp / "uri.txt").write_text(uri + "\n", encoding="utf-8")
        source = f"{{file: {tmp / 'uri.txt'}}}"
    else:
        source = "{env: ZONECTL_TEST_SECRET_URI}"
    inventory = tmp / "clusters.yaml"
    inventory.write_text(
        "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
        f"  - name: one\n    uri: {source}\n  - name: two\n    uri: {source}\n",
        encoding="utf-8",
    )
    result = zonectl(
        "plan", str(policy), "--all", "--inventory", str(inventory), "--format", "json",
        env={"ZONECTL_TEST_SECRET_URI": uri},
    )  # fmt: skip
    return result.code, result.out + result.err


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    position=st.sampled_from(POSITIONS),
    mangle=st.sampled_from(sorted(MANGLES)),
    via_env=st.booleans(),
    from_file=st.booleans(),
)
def test_no_secret_is_printed_or_written_whatever_the_uri(
    cluster: Served,
    tmp_path_factory: pytest.TempPathFactory,
    position: str,
    mangle: str,
    via_env: bool,
    from_file: bool,
) -> None:
    tmp = tmp_path_factory.mktemp("run")
    uri = Shape(position, mangle).uri(cluster.port)
    seen = run_everything(uri, via_env, cluster.policy, tmp)
    fleet_code, fleet_text = run_fleet(uri, cluster.policy, tmp, from_file)
    seen.append(fleet_text)
    for text in seen:
        assert SECRET not in text
    assert SECRET not in written_documents(cluster.admin)
    if mangle not in WELL_FORMED:
        origin = "$ZONECTL_URI" if via_env else "--uri"
        assert seen[1].startswith(f"zonectl: error: bad URI from {origin}: ")
        assert len(seen[1].splitlines()) == 2  # the line and its hint
    # The inventory strips the line end of a file or variable, so leading spaces pass.
    if mangle not in WELL_FORMED | {"leading_spaces"}:
        assert fleet_code == 3 and "ZI134" in fleet_text


def test_a_missing_colon_in_the_scheme_names_the_scheme_not_the_uri() -> None:
    result = zonectl("plan", str(DEMO), "--uri", f"mongodb//admin:{SECRET}@db.example/")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "zonectl: error: bad URI from --uri: the scheme is malformed: write mongodb:// "
        "(a ':' or '/' is missing or doubled)"
    )
    assert SECRET not in result.err and "db.example" not in result.err


def test_user_and_password_without_a_scheme_say_so_and_name_the_variable() -> None:
    result = zonectl("status", env={"ZONECTL_URI": f"admin:{SECRET}@db.example"})
    assert result.code == 1
    assert result.err.startswith(
        "zonectl: error: bad URI from $ZONECTL_URI: it has no scheme: start it with mongodb://"
    )
    assert SECRET not in result.err


def test_a_password_with_a_raw_at_sign_is_never_printed_even_in_part() -> None:
    result = zonectl("doctor", "--uri", f"mongodb://ops:{SECRET}@x@db.example/")
    assert result.code == 1
    assert "not percent-encoded" in result.err
    assert SECRET not in result.err and "@x" not in result.err


def test_a_bad_port_is_named_as_the_port() -> None:
    result = zonectl("analyze", "--uri", f"mongodb://ops:{SECRET}@db.example:27o17/")
    assert result.code == 1
    assert "a port is not a number from 1 to 65535" in result.err
    assert SECRET not in result.err


def test_an_unreachable_cluster_shows_its_hosts_but_neither_user_nor_password(
    tmp_path: Path,
) -> None:
    metrics = tmp_path / "m.prom"
    uri = f"mongodb://{SECRET}:{SECRET}@127.0.0.1:1/?serverSelectionTimeoutMS=200"
    result = zonectl("status", "--uri", uri, "--metrics-file", str(metrics))
    assert result.code == 1
    assert result.err.startswith("zonectl: error: cannot reach mongodb://***@127.0.0.1:1/")
    assert SECRET not in result.err + metrics.read_text(encoding="utf-8")


def test_a_uri_file_holding_no_uri_is_not_quoted(tmp_path: Path) -> None:
    passwd = tmp_path / "passwd"
    passwd.write_text(f"root:{SECRET}:0:0:root:/root:/bin/bash\n", encoding="utf-8")
    inventory = tmp_path / "clusters.yaml"
    inventory.write_text(
        "apiVersion: zonectl/v1\nkind: ClusterInventory\nclusters:\n"
        f"  - name: one\n    uri: {{file: {passwd}}}\n",
        encoding="utf-8",
    )
    result = zonectl("status", "--all", "--inventory", str(inventory))
    assert result.code == 3
    assert f"{inventory}:5:17: error ZI134 cluster one: file {passwd} does not hold a " in (
        result.err
    )
    assert SECRET not in result.err and "root:" not in result.err


def test_an_applied_run_writes_no_secret_to_the_cluster(cluster: Served, tmp_path: Path) -> None:
    uri = f"mongodb://ops:{SECRET}@127.0.0.1:{cluster.port}/?authSource=admin"
    metrics = tmp_path / "apply.prom"
    args = ("apply", str(cluster.policy), "--yes", "-v", "--metrics-file", str(metrics))
    result = zonectl(*args, "--uri", uri)
    assert result.code == 0, result.err
    assert "zonectl_run_exit_code" in metrics.read_text(encoding="utf-8")
    assert list(cluster.admin.zonectl.audit.find({}))  # the run left its audit record
    assert SECRET not in result.out + result.err + metrics.read_text(encoding="utf-8")
    assert SECRET not in written_documents(cluster.admin)


def test_a_mistyped_sandbox_scheme_is_named() -> None:
    """`--uri sandbx:`, a new user's typo: the message names sandbox:, which the generic
    one (mongodb:// or mongodb+srv://) left out."""
    result = zonectl("status", "--uri", "sandbx:")
    assert result.code == 1
    assert result.err.splitlines()[0] == (
        "zonectl: error: bad URI from --uri: the scheme is malformed: did you mean sandbox: "
        "(the simulated cluster)?"
    )
    result = zonectl("status", "--uri", "http://db.example/")
    assert "(or sandbox: for the simulated cluster)" in result.err.splitlines()[0]
