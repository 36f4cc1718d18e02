"""One exception root for zonectl; each subclass carries the exit code that ARCHITECTURE.md,
"Errors and exit codes" assigns.

The CLI boundary (`zonectl.cli.error_boundary`) is the only place that turns these into exit codes.
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
    """Root of every error zonectl raises on purpose. The message is shown to the operator:
    one line, then `details`, one line each (zonectl's own line breaks are these, never a
    '\\n' inside a message, so each line can be made inert whole: a name from the cluster
    holding a line break is shown escaped and cannot start a line of its own)."""

    exit_code: ExitCode = ExitCode.FAILURE

    def __init__(
        self, message: str, *, hint: str | None = None, details: Sequence[str] = ()
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.details = tuple(details)

    @property
    def text(self) -> str:
        """The message and its detail lines as the boundary lays them out (not yet inert)."""
        return "".join([self.message, *(f"\n  {line}" for line in self.details)])


class InvalidPolicyError(ZonectlError):
    """The policy files did not validate; the diagnostics say where and why."""

    exit_code = ExitCode.INVALID_POLICY

    def __init__(
        self,
        message: str,
        *,
        diagnostics: Sequence[Diagnostic] = (),
        hint: str | None = None,
        details: Sequence[str] = (),
    ) -> None:
        super().__init__(message, hint=hint, details=details)
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
