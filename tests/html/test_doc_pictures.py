"""The pictures in docs/img/ show what the commands print today: each is made by
benchmarks/doc_pictures.py from the demo at a pinned instant, with its page's text beside it
(NAME.txt) and that text's digest inside the PNG. Here the same commands run again: a
change to what they print, a text file edited by hand, or a picture not remade from its
text fails, naming the script that remakes them."""

from __future__ import annotations

import difflib
import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "doc_pictures", ROOT / "benchmarks" / "doc_pictures.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PICTURES = _script()
REMAKE = "remake them: python benchmarks/doc_pictures.py (needs chromium)"


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    rendered: dict[str, str] = PICTURES.render_pages(tmp_path_factory.mktemp("pictures"))
    return rendered


@pytest.mark.parametrize("name", sorted(PICTURES.PICTURES))
def test_the_picture_text_is_what_the_command_prints(name: str, pages: dict[str, str]) -> None:
    shown = (PICTURES.IMG / f"{name}.txt").read_text(encoding="utf-8")
    printed = PICTURES.page_text(pages[name])
    diff = "\n".join(
        difflib.unified_diff(
            shown.splitlines(), printed.splitlines(), f"docs/img/{name}.txt", "printed", lineterm=""
        )
    )
    assert printed == shown, (
        f"docs/img/{name} no longer shows what the command prints; {REMAKE}\n{diff}"
    )


@pytest.mark.parametrize("name", sorted(PICTURES.PICTURES))
def test_the_picture_was_made_from_its_text(name: str) -> None:
    shown = (PICTURES.IMG / f"{name}.txt").read_text(encoding="utf-8")
    png = (PICTURES.IMG / f"{name}.png").read_bytes()
    assert PICTURES.png_text_digest(png) == PICTURES.digest(shown), (
        f"docs/img/{name}.png was not made from docs/img/{name}.txt; {REMAKE}"
    )


def test_the_plan_picture_states_the_numbers_of_the_plan_summary(pages: dict[str, str]) -> None:
    """The issue that started this: the summary and the chart disagreed (72.2 against
    52.4 GiB). The picture's summary and its chart's top now say the same bytes."""
    text = PICTURES.page_text(pages["plan-demo"])
    summary = re.findall(r"~\d+ chunks \(~([\d.]+ GiB)\) will migrate", text)[0]
    assert f"\n{summary}\n" in text  # the chart's top axis label


def test_the_docs_show_the_generated_pictures() -> None:
    for page in ("README.md", "docs/status.md"):
        text = (ROOT / page).read_text(encoding="utf-8")
        assert "img/status-demo.png" in text
    assert "img/plan-demo.png" in (ROOT / "docs" / "status.md").read_text(encoding="utf-8")
