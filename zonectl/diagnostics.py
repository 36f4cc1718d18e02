"""Diagnostics: a problem found in a policy, anchored at file:line:col, with a stable code.

Lines and columns are 1-based, as editors and GitHub annotations count them.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True)
class Position:
    file: str
    line: int = 0
    col: int = 0

    def __str__(self) -> str:
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Diagnostic:
    code: str
    severity: Severity
    position: Position
    message: str
    hint: str | None = None

    def lines(self) -> list[str]:
        """The diagnostic, then its hint: each line printed (and made inert) on its own."""
        head = f"{self.position}: {self.severity} {self.code} {self.message}"
        return [head, f"  hint: {self.hint}"] if self.hint else [head]

    def __str__(self) -> str:
        return "\n".join(self.lines())


def has_errors(diagnostics: list[Diagnostic]) -> bool:
    return any(d.severity is Severity.ERROR for d in diagnostics)


def sorted_diagnostics(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    """Order by place in the files, so output is stable across runs."""
    return sorted(diagnostics, key=lambda d: (d.position, d.code, d.message))
