"""One exception root for zonectl; each subclass carries the exit code DESIGN.md §3 assigns.

The CLI boundary (`zonectl.cli.boundary`) is the only place that turns these into exit codes.
"""

from __future__ import annotations

from collections.abc import Sequence
from enum import IntEnum

from zonectl.diagnostics import Diagnostic
from zonectl.redaction import redact as redact  # re-exported: the one redaction


class ExitCode(IntEnum):
    OK = 0
    FAILURE = 1
    USAGE = 2
    INVALID_POLICY = 3
    CHANGES_PENDING = 4
    NEEDS_HUMAN = 5
    INTERRUPTED = 130


class ZonectlError(Exception):
    """Root of every error zonectl raises on purpose. The message is shown to the operator."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint


class InvalidPolicyError(ZonectlError):
    """The policy files did not validate; the diagnostics say where and why."""

    exit_code = ExitCode.INVALID_POLICY

    def __init__(
        self, message: str, *, diagnostics: Sequence[Diagnostic] = (), hint: str | None = None
    ) -> None:
        super().__init__(message, hint=hint)
        self.diagnostics = list(diagnostics)


class InvalidInventoryError(InvalidPolicyError):
    """The cluster inventory (clusters.yaml) or a fleet selection is invalid (exit 3)."""


class ClusterError(ZonectlError):
    """The cluster answered with an error, or could not be reached."""


class PlanError(ZonectlError):
    """The policy cannot be planned against this cluster (unknown shard, key mismatch, ...)."""


class StalePlanError(ZonectlError):
    """A saved plan no longer matches the live metadata it was computed from."""


class LeaseHeldError(ZonectlError):
    """Another zonectl run holds the lease."""


class NeedsHumanError(ZonectlError):
    """zonectl could not restore what it changed; a human must run the command in the hint."""

    exit_code = ExitCode.NEEDS_HUMAN


class UsageError(ZonectlError):
    """Arguments that parse but make no sense together."""

    exit_code = ExitCode.USAGE
