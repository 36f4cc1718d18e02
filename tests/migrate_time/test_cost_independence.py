"""The forecast and the sandbox share no cost function: no module of zonectl/sandbox imports
anything of zonectl.forecast but `units` (parsing rates), none of zonectl/forecast imports
the sandbox, and `units` defines no cost. A forecast that computed the simulator's costs
would agree with every simulated run by construction and prove nothing (issue 19)."""

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


def test_the_sandbox_imports_nothing_of_the_forecast_but_rate_parsing() -> None:
    reached = {
        module: sorted(n for n in names if n.startswith("zonectl.forecast"))
        for module, names in _imports("sandbox").items()
    }
    wrong = {
        m: [n for n in names if not n.startswith("zonectl.forecast.units")]
        for m, names in reached.items()
    }
    assert {m: n for m, n in wrong.items() if n} == {}
    assert any(reached.values())  # the check sees the imports it allows


def test_the_forecast_never_imports_the_sandbox() -> None:
    reached = {
        m: sorted(n for n in names if n.startswith("zonectl.sandbox"))
        for m, names in _imports("forecast").items()
    }
    assert {m: n for m, n in reached.items() if n} == {}


def test_rate_parsing_is_all_the_sandbox_takes_from_the_forecast() -> None:
    tree = ast.parse((ROOT / "forecast" / "units.py").read_text(encoding="utf-8"))
    functions = {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}
    assert functions == {"parse_size", "parse_rate", "format_bytes", "format_rate",
                         "format_duration"}  # fmt: skip


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
