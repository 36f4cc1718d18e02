"""The twin's bad-input error: a dump, a twin file or a chunk list that cannot be used (exit 3)."""

from __future__ import annotations

from zonectl.errors import InvalidPolicyError


class TwinError(InvalidPolicyError):
    """Bad input for a twin (not a config dump, a truncated file, overlapping chunks): exit 3."""
