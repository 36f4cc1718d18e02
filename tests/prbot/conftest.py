"""PR bot test setup: the API exchange fixtures replayed by a strict fake transport, and
a stateful fake of GitHub's issue-comment API that paginates the way GitHub does."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
