"""Loading the policy files a command names: validated, with warnings on stderr
(InvalidPolicyError, exit 3, carries the diagnostics, which the error boundary prints)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from zonectl.cli.error_boundary import stderr
from zonectl.errors import redact
from zonectl.model.desired import DesiredState
from zonectl.render.inert import terminal


def load_policy_files(paths: Sequence[Path]) -> DesiredState:
    from zonectl.environment import Settings
    from zonectl.policy import load_policy

    own = Settings.from_environ(os.environ).database  # no pattern may name it
    loaded = load_policy(list(paths), own_database=own)
    for diagnostic in loaded.diagnostics:
        for line in diagnostic.lines():  # each line inert whole: policy text is quoted
            stderr.print(terminal(redact(line)), markup=False)
    return loaded.desired
