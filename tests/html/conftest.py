"""html test setup: the status kit's cluster builders (real admin commands over pymongo and
the in-process CLI) and this kit's page reader on the import path."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
sys.path.insert(0, str(Path(__file__).parent.parent / "status_export"))
