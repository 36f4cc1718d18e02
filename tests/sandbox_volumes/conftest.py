"""Lets the tests here import their shared cluster (volumes_util.py) by name."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
