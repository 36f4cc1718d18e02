"""docs/balancer-settings.md is generated from the settings table and kept current; every row
of the table is a policy key the schema accepts with its example."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from zonectl.balancer_settings.docs import render_page
from zonectl.balancer_settings.table import CLUSTER, COLLECTION
from zonectl.policy.schema import BalancerModel, CollectionModel

PAGE = Path(__file__).resolve().parents[2] / "docs" / "balancer-settings.md"


def test_the_docs_page_is_generated_from_the_table() -> None:
    """The committed page is what the generator makes of the table today. With
    ZONECTL_REGEN_DOCS=1 a stale page is rewritten, and the run still fails, so a rewrite
    is reviewed and committed rather than passed over."""
    text = render_page()
    committed = PAGE.read_text(encoding="utf-8")
    if committed != text and os.environ.get("ZONECTL_REGEN_DOCS"):
        PAGE.write_text(text, encoding="utf-8")
        pytest.fail("docs/balancer-settings.md was stale and is rewritten: review, commit")
    assert committed == text, (
        "docs/balancer-settings.md is stale: "
        "run ZONECTL_REGEN_DOCS=1 pytest tests/balancer_settings"
    )


def _committed_sections() -> dict[str, list[tuple[str, str]]]:
    """The committed page's settings by scope ("cluster" or "collection"), in page order:
    each heading's key and the YAML of its example block, read from the page's text."""
    scope = ""
    found: dict[str, list[tuple[str, str]]] = {"cluster": [], "collection": []}
    for section in re.split(r"^(?=## |### )", PAGE.read_text(encoding="utf-8"), flags=re.M):
        if section.startswith("## Cluster"):
            scope = "cluster"
        elif section.startswith("## A collection"):
            scope = "collection"
        elif heading := re.match(r"### `(\w+)`\n", section):
            (example,) = re.findall(r"^```yaml\n(.*?)^```$", section, flags=re.M | re.S)
            found[scope].append((heading.group(1), example))
    return found


def test_the_committed_page_documents_each_row_with_an_example_that_validates() -> None:
    """Read from docs/balancer-settings.md itself, not from what the table renders: every
    row of the table has its section, in the table's order and under its scope, and the
    example the page shows is accepted by the policy schema."""
    sections = _committed_sections()
    assert [key for key, _ in sections["cluster"]] == [r.key for r in CLUSTER]
    assert [key for key, _ in sections["collection"]] == [r.key for r in COLLECTION]
    for key, example in sections["cluster"]:
        balancer = YAML(typ="safe", pure=True).load(example)["balancer"]
        assert list(balancer) == [key], example
        assert getattr(BalancerModel.model_validate(balancer), key) is not None, example
    for key, example in sections["collection"]:
        collection = YAML(typ="safe", pure=True).load(example)["collections"]["app.events"]
        assert list(collection) == [key], example
        assert getattr(CollectionModel.model_validate(collection), key) is not None, example
