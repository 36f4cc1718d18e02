"""rotate's options on time: --max-clock-skew and --allow-backwards. The guards they set
(this host's clock against the cluster's, no window boundary moved backwards unless asked)
are zonectl.session.clock."""

from __future__ import annotations

from typing import Any

import typer

DEFAULT_MAX_SKEW = "5m"


def max_clock_skew_option() -> Any:
    return typer.Option(
        "--max-clock-skew",
        help="Refuse to run (exit 5) when this host's clock and the cluster's "
        "(hello.localTime) differ by more, e.g. 30s, 5m. Not checked with --at.",
    )


def allow_backwards_option() -> Any:
    return typer.Option(
        "--allow-backwards",
        help="Move a window boundary to an earlier instant than the live one (after a "
        "rotate --at in the future, or to undo a clock that ran ahead). Refused otherwise.",
    )
