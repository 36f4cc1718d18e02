"""A balancer setting declared in this module alone, registered as a row of the table
(zonectl.balancer_settings.row.register), reaches every reader: validate takes it in a
policy, plan shows it, apply writes it to a 7.0 sandbox over TCP, export reads it back.

Rows register before the table is built, so the CLI runs in a child started from this file
(`python THIS_FILE ARGS...`), which registers `ROW` and then runs zonectl's entry point. No
other module of zonectl names the setting."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Any

from pydantic import Field, StrictInt

from zonectl.balancer_settings.row import Setting, register

# Made up for this test: a field of the `balancer` document. A 7.0 config server stores it
# as it is: at FCV 7.0 the config.settings validator checks only the balancer document's
# `_id`, and the balancer's parser ignores fields it does not know (reference
# balancer-settings.md §1.2, §2.3).
ROW = Setting(
    key="roundPauseMs",
    scope="cluster",
    annotation=Annotated[StrictInt, Field(ge=0, le=60_000)],
    summary="A pause between balancer rounds, in milliseconds (a made-up test setting).",
    doc="balancer",
    field="_roundPauseMs",
    since=(7, 0),
    example=500,
    show=lambda v: f"{v} ms",
    forecast="not relevant because it is made up for a test and moves no data",
    status="a line under balancer settings, as every row",
    metrics="zonectl_balancer_setting_drift, as every row",
    twin="the balancer document is captured whole",
)


def _zonectl(*args: str) -> tuple[int, str, str]:
    """The CLI in a child that registered ROW first (this file run as a script)."""
    import child_procs

    root = str(Path(__file__).resolve().parents[2])  # the tree under test, not another
    path = os.pathsep.join(p for p in (root, os.environ.get("PYTHONPATH")) if p)
    done = child_procs.run(
        [sys.executable, __file__, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": path},
        timeout=300,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_setting_registered_from_its_own_module_is_validated_planned_applied_and_exported(
    sandbox_server: Any, tmp_path: Path
) -> None:
    from tests.balancer_settings.kit import cli, policy, serve, settings_doc

    handle = serve(sandbox_server, "7.0")
    path = policy(tmp_path, "balancer:\n  roundPauseMs: 500\n")
    code, _, err = cli("validate", path)
    assert code == 3, err  # in this process nothing registered it: an unknown key
    assert "roundPauseMs" in err

    code, _, err = _zonectl("validate", path)
    assert code == 0, err
    bad = policy(tmp_path, "balancer:\n  roundPauseMs: -1\n", name="bad.yaml")
    code, out, err = _zonectl("validate", bad)
    assert code == 3, out + err  # its annotation's bounds hold, its summary is the hint
    assert "error ZP112 balancer.roundPauseMs: must be at least 0, got -1" in err

    code, out, err = _zonectl("plan", path, "--uri", handle.uri)
    assert code == 0, err
    assert "balancer\n  ~ roundPauseMs unset (MongoDB's default) -> 500 ms\n" in out
    assert "1 setting to change." in out
    assert "_roundPauseMs" not in (settings_doc(handle, "balancer") or {})  # plan sends nothing

    code, out, err = _zonectl("apply", path, "--uri", handle.uri, "--yes")
    assert code == 0, out + err
    assert (settings_doc(handle, "balancer") or {})["_roundPauseMs"] == 500
    code, out, err = _zonectl("plan", path, "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err  # converged: nothing left to change

    code, out, err = _zonectl("export", "--uri", handle.uri)
    assert code == 0, err
    assert (
        "\n  roundPauseMs: 500                 # found: config.settings "
        '{_id: "balancer"} `_roundPauseMs`\n' in out
    )
    exported = tmp_path / "exported.yaml"
    exported.write_text(out, encoding="utf-8")
    code, out, err = _zonectl("plan", str(exported), "--uri", handle.uri, "--detailed-exitcode")
    assert code == 0, out + err  # what export read back plans empty


def test_a_row_registered_once_the_table_is_built_is_refused_not_silently_left_out() -> None:
    import pytest

    import zonectl.balancer_settings.table  # noqa: F401  (built: the policy schema read it)

    with pytest.raises(RuntimeError, match="registered after the settings table was built"):
        register(ROW)


if __name__ == "__main__":
    register(ROW)
    from zonectl.cli.app import main

    main()
