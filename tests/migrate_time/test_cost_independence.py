"""The forecast and the sandbox share no cost function: no module of zonectl/sandbox imports
anything of zonectl.forecast (it parses rates with its own zonectl/sandbox/rates.py), none of
zonectl/forecast imports the sandbox, and neither rate parser defines a cost. A forecast that
computed the simulator's costs would agree with every simulated run by construction and prove
nothing (issue 19)."""

from __future__ import annotations

import ast
from pathlib import Path

import zonectl

ROOT = Path(zonectl.__file__).resolve().parent


def _imports(package: str) -> dict[str, set[str]]:
    """Module path -> the zonectl modules it imports (TYPE_CHECKING ones included)."""
    out: dict[str, set[str]] = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        names: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                names.add(node.module)
                names.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                names.update(a.name for a in node.names)
        out[str(path.relative_to(ROOT))] = {n for n in names if n.startswith("zonectl.")}
    return out


def test_the_sandbox_imports_nothing_of_the_forecast() -> None:
    imports = _imports("sandbox")
    reached = {
        module: sorted(n for n in names if n.startswith("zonectl.forecast"))
        for module, names in imports.items()
    }
    assert {m: n for m, n in reached.items() if n} == {}
    assert "zonectl.sandbox.rates" in imports["sandbox/uri.py"]  # the check sees imports


def test_the_forecast_never_imports_the_sandbox() -> None:
    reached = {
        m: sorted(n for n in names if n.startswith("zonectl.sandbox"))
        for m, names in _imports("forecast").items()
    }
    assert {m: n for m, n in reached.items() if n} == {}


def test_the_rate_parsers_define_no_cost() -> None:
    functions = {}
    for path in ("forecast/units.py", "sandbox/rates.py"):
        tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
        functions[path] = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert functions == {
        "forecast/units.py": {"parse_size", "parse_rate", "format_bytes", "format_rate",
                              "format_duration"},
        "sandbox/rates.py": {"parse_rate", "parse_size"},  # a disk size is no cost either
    }  # fmt: skip


def test_the_reshard_routes_assumed_catch_up_is_not_the_sandboxs() -> None:
    """With no resharding in the history the forecast assumes its own catch-up; re-typing
    the sandbox's (resharding_time.py) would make bench_reshard agree by construction. The
    5-minute minimum and the 2 s critical section are MongoDB's documented figures, which
    both take from the manual."""
    from zonectl.forecast.reshard_learn import ReshardPhases
    from zonectl.sandbox.balancer import resharding_time as sandbox

    assumed = ReshardPhases()
    assert assumed.runs == 0
    assert assumed.catch_up_share != sandbox.CATCH_UP_SHARE
    assert assumed.catch_up_floor_s != sandbox.CATCH_UP_FLOOR.total_seconds()
