"""docs/balancer-settings.md is generated from the settings table and kept current; every row
of the table is a policy key the schema accepts with its example."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from zonectl.balancer_settings.docs import render_page
from zonectl.balancer_settings.table import CLUSTER, COLLECTION, ROWS
from zonectl.policy.schema import BalancerModel, CollectionModel

PAGE = Path(__file__).resolve().parents[2] / "docs" / "balancer-settings.md"


def test_the_docs_page_is_generated_from_the_table() -> None:
    text = render_page()
    if os.environ.get("ZONECTL_REGEN_DOCS"):
        PAGE.write_text(text, encoding="utf-8")
    assert PAGE.read_text(encoding="utf-8") == text, (
        "docs/balancer-settings.md is stale: "
        "run ZONECTL_REGEN_DOCS=1 pytest tests/balancer_settings"
    )


@pytest.mark.parametrize("setting", ROWS, ids=lambda r: f"{r.scope}.{r.key}")
def test_every_row_is_documented_and_its_example_validates(setting: object) -> None:
    from zonectl.balancer_settings.row import Setting

    assert isinstance(setting, Setting)
    assert f"### `{setting.key}`" in render_page()
    model = BalancerModel if setting in CLUSTER else CollectionModel
    assert setting in CLUSTER or setting in COLLECTION
    parsed = model.model_validate({setting.key: setting.example})
    assert getattr(parsed, setting.key) is not None
