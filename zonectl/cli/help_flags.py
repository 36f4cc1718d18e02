"""--help shows a value's type only for options that take a value: typer (0.2x) gives
every option a type column, so a boolean flag read `--yes <bool>` as if it took one."""

from __future__ import annotations

from typing import Any

from typer.core import TyperOption

_typed = TyperOption.display_type_rich


def _display_type(self: TyperOption, ctx: Any) -> str | None:  # typer's own click Context
    # A flag takes no value (`--yes`, `--no-color`): nothing to show after it.
    return None if self.is_flag and self.metavar is None else _typed(self, ctx)


def hide_flag_types() -> None:
    """Install the rule for every command's help, --help and --version included."""
    TyperOption.display_type_rich = _display_type  # type: ignore[method-assign]
