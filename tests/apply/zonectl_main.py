"""`python tests/apply/zonectl_main.py ARGS...`: the zonectl CLI in a subprocess (for the
SIGKILL cases), with the policy stand-in installed while the real loader is missing."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import policy_shim

from zonectl.cli.app import _register, app

if __name__ == "__main__":
    _register()
    policy_shim.install()
    app()
