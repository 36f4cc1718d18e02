"""The mongosh tests import mongosh_kit (where mongosh is, one --eval run) from this folder."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
