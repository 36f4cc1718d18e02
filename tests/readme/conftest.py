"""The pages' tests share one runner, docs_kit.py, next to them (importable by name)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
