"""`zonectl validate` output formats and exit codes, and how every command reports an
invalid policy through the CLI boundary."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from zonectl.cli.validate_cmd import github_annotation
from zonectl.diagnostics import Diagnostic, Position, Severity

Run = Callable[..., tuple[int, str, str]]

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: {s0: [hot]}\ncollections:\n"
BAD = HEAD + "  app.x:\n    key: {a: 1}\n    ranges: [{zone: hot, min: {a: 5}, max: {a: 1}}]\n"
WARN = HEAD + "  app.x:\n    firehose: {field: ts, type: date, schedule: '@daily', hot: hot}\n"


def test_invalid_policy_prints_diagnostics_and_summary_on_stderr_and_exits_3(
    workdir: Path, zonectl: Run
) -> None:
    (workdir / "p.yaml").write_text(BAD)
    code, out, err = zonectl("validate", "p.yaml")
    assert (code, out) == (3, "")
    assert err == (
        "p.yaml:7:14: error ZP201 min { a: 5 } is not less than max { a: 1 } in BSON order\n"
        "  hint: swap min and max, or widen the range\n"
        "zonectl: policy is invalid: 1 error, 0 warnings\n"
    )


def test_warnings_do_not_fail_validation(workdir: Path, zonectl: Run) -> None:
    (workdir / "p.yaml").write_text(WARN)
    code, _, err = zonectl("validate", "p.yaml")
    assert code == 0
    assert "warning ZP409" in err
    assert err.endswith(
        "zonectl: policy is valid: 1 file, 1 shard, 1 collection, 0 ranges; 0 errors, 1 warning\n"
    )


def test_json_format_is_a_versioned_report_on_stdout(workdir: Path, zonectl: Run) -> None:
    (workdir / "p.yaml").write_text(BAD)
    code, out, err = zonectl("validate", "p.yaml", "--format", "json")
    assert code == 3
    report = json.loads(out)
    assert report["format_version"] == 1
    assert (report["valid"], report["errors"], report["warnings"]) == (False, 1, 0)
    assert report["diagnostics"] == [
        {
            "file": "p.yaml",
            "line": 7,
            "col": 14,
            "severity": "error",
            "code": "ZP201",
            "message": "min { a: 5 } is not less than max { a: 1 } in BSON order",
            "hint": "swap min and max, or widen the range",
        }
    ]
    assert err == "zonectl: policy is invalid: 1 error, 0 warnings\n"


def test_json_format_of_a_valid_policy_carries_files_and_digest(
    workdir: Path, zonectl: Run
) -> None:
    (workdir / "p.yaml").write_text(WARN)
    code, out, _ = zonectl("validate", "p.yaml", "-f", "json")
    report = json.loads(out)
    assert code == 0 and report["valid"] is True
    assert report["files"] == ["p.yaml"] and len(report["digest"]) == 64


def test_github_format_prints_workflow_annotations(workdir: Path, zonectl: Run) -> None:
    (workdir / "p.yaml").write_text(BAD)
    code, out, _ = zonectl("validate", "p.yaml", "--format", "github")
    assert code == 3
    assert out == (
        "::error file=p.yaml,line=7,col=14,title=ZP201::min { a: 5 } is not less than max "
        "{ a: 1 } in BSON order%0Ahint: swap min and max, or widen the range\n"
    )


def test_github_annotation_escapes_properties_and_data() -> None:
    diagnostic = Diagnostic("ZP100", Severity.WARNING, Position("a,b:c.yaml"), "100% off\nnow")
    assert github_annotation(diagnostic) == (
        "::warning file=a%2Cb%3Ac.yaml,title=ZP100::100%25 off%0Anow"
    )


def test_validate_reports_problems_of_all_files_at_once(workdir: Path, zonectl: Run) -> None:
    (workdir / "a.yaml").write_text(BAD)
    (workdir / "b.yaml").write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\nshard: {}\n")
    code, _, err = zonectl("validate", "a.yaml", "b.yaml")
    assert code == 3
    assert "a.yaml:7:14: error ZP201" in err and "b.yaml:3:1: error ZP110" in err
    assert "2 errors" in err


def test_no_paths_is_a_usage_error(zonectl: Run) -> None:
    code, _, _ = zonectl("validate")
    assert code == 2


def test_other_commands_print_every_policy_diagnostic_before_exit_3(
    workdir: Path, zonectl: Run
) -> None:
    (workdir / "p.yaml").write_text(BAD)
    code, out, err = zonectl("plan", "p.yaml", "--uri", "sandbox:")
    assert (code, out) == (3, "")
    assert err.startswith("p.yaml:7:14: error ZP201 min { a: 5 } is not less than max")
    assert "zonectl: error: invalid policy: 1 error, 0 warnings" in err
