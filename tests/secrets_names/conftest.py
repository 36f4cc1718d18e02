"""secrets_names test setup: this kit's helpers and the status/export cluster builders and
doctor's seeded demo sandbox on the import path (reused, not copied)."""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.append(str(HERE.parent / "status_export"))  # builders
sys.path.append(str(HERE.parent / "doctor"))  # doctor_kit
