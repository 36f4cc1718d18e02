"""doctor test setup: seeded demo sandboxes served over TCP, and the CLI in-process."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.append(str(Path(__file__).parent))  # after the others: `conftest` stays theirs
