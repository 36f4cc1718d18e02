"""`zonectl sandbox --help` offers every server version the sandbox imitates."""

from __future__ import annotations

import re

from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.uri import start

if not app.registered_commands:
    register(app)


def test_sandbox_help_lists_every_version_a_sandbox_uri_accepts() -> None:
    result = CliRunner().invoke(app, ["sandbox", "--help"], env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    text = " ".join(re.sub(r"[│╭╮╰╯─]", " ", result.output).split())
    listed = re.search(r"Server version to imitate: (.*?)\. --state", text)
    assert listed is not None, text
    versions = re.findall(r"\d+\.\d+", listed.group(1))
    assert versions == ["5.0", "6.0", "7.0", "8.0", "8.3"]
    assert "7.0 (default)" in listed.group(1)
    for version in versions:  # each one is served
        with start(f"sandbox:?version={version}") as handle:
            assert handle.sandbox.version.major_minor == version


def test_a_port_out_of_range_is_a_usage_error_naming_the_range() -> None:
    """Not an internal error from bind() (OverflowError) after the cluster was built."""
    result = CliRunner().invoke(app, ["sandbox", "--port", "99999"], env={"COLUMNS": "200"})
    assert result.exit_code == 2, result.output
    assert "--port" in result.output and "65535" in result.output
    assert "internal error" not in result.output
