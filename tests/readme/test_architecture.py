"""ARCHITECTURE.md cannot rot silently: every repository path and every dotted zonectl name
it shows in backticks exists, every section the code cites by name is one of its headings,
and no tracked file cites the design file that lives outside the repository."""

from __future__ import annotations

import importlib
import re
import subprocess
from pathlib import Path

import child_procs
import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "ARCHITECTURE.md"

PATH = re.compile(r"`((?:zonectl|tests|docs|benchmarks)/[^`\s]*)`")
DOTTED = re.compile(r"`(zonectl(?:\.\w+)+)`")
CITATION = re.compile(r'ARCHITECTURE\.md,\s+(?:#\s*)?"([^"]+)"')
WRAPPED = re.compile(r"\s*\n\s*(?:#\s*)?")  # a section name wrapped in a docstring or comment
# Built from parts so that this file does not cite it itself.
OUTSIDE_DESIGN = re.compile("DES" + r"IGN(?:\.md|\s*§)")


def _tracked() -> list[Path]:
    """The files git tracks; without git (an unpacked source tree), every file outside
    hidden and generated directories."""
    try:
        out = child_procs.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.decode()
        files = [ROOT / name for name in out.split("\0") if name]
    except (OSError, subprocess.CalledProcessError):
        skip = ("__pycache__", ".egg-info")
        files = [
            f
            for f in ROOT.rglob("*")
            if not any(
                part.startswith(".") or part.endswith(skip) for part in f.parts[len(ROOT.parts) :]
            )
        ]
    assert files, "no file of the repository found"
    return [f for f in files if f.is_file()]


def _text(path: Path) -> str:
    return path.read_bytes().decode("utf-8", errors="ignore")


def _resolve(dotted: str) -> object:
    """The module, or the attribute of the longest importable module prefix, named `dotted`;
    AttributeError or ModuleNotFoundError when it does not exist."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found: object = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            found = getattr(found, name)
        return found
    raise ModuleNotFoundError(dotted)


def test_every_path_the_page_names_exists() -> None:
    text = PAGE.read_text(encoding="utf-8")
    paths = PATH.findall(text)
    assert len(paths) > 50, "the page names its modules in backticks"
    missing = [p for p in paths if not (any(ROOT.glob(p)) if "*" in p else (ROOT / p).exists())]
    assert not missing, f"ARCHITECTURE.md names paths that do not exist: {missing}"


def test_every_dotted_name_the_page_shows_resolves() -> None:
    names = sorted(set(DOTTED.findall(PAGE.read_text(encoding="utf-8"))))
    assert len(names) > 30, "the journeys name their functions as zonectl.x.y"
    missing = []
    for name in names:
        try:
            _resolve(name)
        except (AttributeError, ModuleNotFoundError):
            missing.append(name)
    assert not missing, f"ARCHITECTURE.md names what zonectl does not have: {missing}"


def test_every_section_the_code_cites_is_a_heading_of_the_page() -> None:
    headings = {
        line.lstrip("#").strip()
        for line in PAGE.read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    cited = {
        (str(f.relative_to(ROOT)), WRAPPED.sub(" ", section))
        for f in _tracked()
        for section in CITATION.findall(_text(f))
    }
    assert len(cited) >= 10, "code and pyproject.toml cite ARCHITECTURE.md by section"
    dangling = sorted((f, s) for f, s in cited if s not in headings)
    assert not dangling, f"citations of ARCHITECTURE.md sections it does not have: {dangling}"


def test_no_tracked_file_cites_the_design_file_outside_the_repository() -> None:
    citing = [
        f"{f.relative_to(ROOT)}:{n}"
        for f in _tracked()
        for n, line in enumerate(_text(f).splitlines(), 1)
        if OUTSIDE_DESIGN.search(line)
    ]
    assert not citing, f"cite ARCHITECTURE.md (in the repository) instead: {citing}"


@pytest.mark.parametrize(
    ("line", "cites"),
    [
        ("see DES" + "IGN.md section 4", True),
        ("(DES" + "IGN §7)", True),
        ("one move per chunk, by design", False),
        ('(ARCHITECTURE.md, "Targets")', False),
    ],
)
def test_the_design_pattern_catches_both_forms_of_citation(line: str, cites: bool) -> None:
    assert bool(OUTSIDE_DESIGN.search(line)) is cites
