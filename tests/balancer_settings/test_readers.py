"""A setting is done when every command reads it (issue 37, "What to build" 4): each row of
the settings table says how the forecast, status, the metrics and the twin read it, and the
generic readers (status, metrics, twin) really carry every row: one 8.3 sandbox with every
row set apart from MongoDB's default, read through the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.balancer_settings.kit import cli, policy, serve
from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import CLUSTER, COLLECTION, ROWS


@pytest.mark.parametrize("setting", ROWS, ids=lambda r: f"{r.scope}.{r.key}")
def test_every_row_says_how_each_reader_reads_it(setting: Setting) -> None:
    assert set(setting.readers) == {"forecast", "status", "metrics", "twin"}
    for reader, text in setting.readers.items():
        assert text.strip(), f"{setting.scope}.{setting.key}: no `{reader}` reader stated"
        if text.startswith("not relevant"):
            assert "because" in text, f"{setting.scope}.{setting.key}.{reader}: say why"


def _apart(setting: Setting) -> Any:
    """The row's example, or its opposite where the example is what nothing stored means."""
    if setting.example == setting.absent and isinstance(setting.example, bool):
        return not setting.example
    return setting.example


def _every_row() -> str:
    """Every row under its section, each value as a JSON flow (YAML reads it as written)."""
    cluster = "".join(f"  {r.key}: {json.dumps(_apart(r))}\n" for r in CLUSTER)
    coll = "".join(f"    {r.key}: {json.dumps(_apart(r))}\n" for r in COLLECTION)
    return f"balancer:\n{cluster}collections:\n  app.events:\n{coll}"


def _settings(path: str, uri: str) -> dict[str, tuple[str, str]]:
    code, out, err = cli("status", path, "--uri", uri, "--format", "json")
    assert code == 0, err
    return {s["name"]: (s["live"], s["state"]) for s in json.loads(out)["settings"]}


def test_status_metrics_and_the_twin_carry_every_row(sandbox_server: Any, tmp_path: Path) -> None:
    handle = serve(sandbox_server, "8.3")
    handle.client.admin.command({"balancerStop": 1})  # the defragmentation stays running
    path = policy(tmp_path, _every_row())
    code, out, err = cli("apply", path, "--uri", handle.uri, "--yes")
    assert code == 0, out + err
    names = {f"balancer.{r.key}" for r in CLUSTER} | {f"app.events {r.key}" for r in COLLECTION}
    source = _settings(path, handle.uri)
    assert names <= set(source), sorted(names - set(source))
    assert {source[n][1] for n in names} == {"managed"}, source
    code, metrics, err = cli("status", path, "--uri", handle.uri, "--format", "openmetrics")
    assert code == 0, err
    for r in ROWS:
        assert f'setting="{r.key}"' in metrics, r.key
    twin = tmp_path / "twin.yaml"
    code, out, err = cli("twin", "--uri", handle.uri, "-o", str(twin))
    assert code == 0, out + err
    copied = _settings(path, f"sandbox:{twin}")
    assert {n: copied.get(n) for n in names} == {n: source[n] for n in names}
