"""Colours safe for colour-blind readers: Okabe & Ito's eight for shards, Paul Tol's
"light" set for zones (both chosen to stay distinct under protanopia, deuteranopia and
tritanopia). Marks never rely on colour alone: out-of-zone and straddling chunks also
differ by shape, and every colour has a named legend entry."""

from __future__ import annotations

from collections.abc import Sequence

# Okabe, M. & Ito, K., "Color Universal Design" (2008), without black (used for marks).
SHARD_COLOURS = (
    "#E69F00",
    "#56B4E9",
    "#009E73",
    "#F0E442",
    "#0072B2",
    "#D55E00",
    "#CC79A7",
    "#999999",
)
# Paul Tol, "Colour schemes" (SRON/EPS/TN/09-002), the light qualitative scheme.
ZONE_COLOURS = (
    "#77AADD",
    "#EE8866",
    "#EEDD88",
    "#FFAABB",
    "#99DDFF",
    "#44BB99",
    "#BBCC33",
    "#AAAA00",
)
NO_ZONE = "#F4F4F4"
MARK = "#000000"  # out-of-zone and straddling marks: black, told apart by shape


def colours(names: Sequence[str], scheme: Sequence[str]) -> dict[str, str]:
    """Name -> colour in the order given; past the scheme's length colours repeat, and the
    legend and tables still name every one."""
    return {name: scheme[i % len(scheme)] for i, name in enumerate(names)}
