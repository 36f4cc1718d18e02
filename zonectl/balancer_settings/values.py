"""The value types of the settings table's rows (reference balancer-settings.md): their
pydantic annotations (bounds included: validation and the JSON Schema), and how a stored
value reads back and shows."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictInt,
    StrictStr,
    Tag,
)

from zonectl.balancer_settings.row import MB, on_off

Day = Literal["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"]

# §2.1 checkMaxChunkSizeValid: 1 MiB..1 GiB, an integer number of MB.
ChunkSizeMB = Annotated[StrictInt, Field(ge=1, le=1024)]


class WriteConcernModel(BaseModel):
    """A write concern for `_secondaryThrottle` (§1.2: parsed as WriteConcernOptions)."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    w: StrictInt | StrictStr = Field(description='"majority", a tag set name, or a number.')
    wtimeout: StrictInt | None = Field(None, ge=0, description="Milliseconds.")
    j: StrictBool | None = None


def _throttle_tag(value: Any) -> str:
    return "writeConcern" if isinstance(value, dict) else "bool"


# One branch reports its error: a mapping is checked as a write concern, anything else as
# true/false (so `"yes"` reads "expected true or false").
SecondaryThrottle = Annotated[
    Annotated[StrictBool, Tag("bool")] | Annotated[WriteConcernModel, Tag("writeConcern")],
    Discriminator(_throttle_tag),
]


class DayWindowModel(BaseModel):
    """One day-of-week window (§1.4, IDL DayOfWeekWindow): the balancer runs on `day`
    between `start` and `stop`, config server local time, wrapping inside that same day."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
    day: Day = Field(description="Capitalised English day name, exactly as MongoDB spells it.")
    start: StrictStr = Field(description='"HH:MM"', examples=["09:00"])
    stop: StrictStr = Field(description='"HH:MM"; must differ from start.')


def mb(stored: Any) -> Any:
    """maxChunkSizeBytes as MB (an integer when it is whole)."""
    value = int(stored)
    return value // MB if value % MB == 0 else round(value / MB, 2)


def whole(stored: Any) -> Any:
    """A stored number (int32, NumberLong or a whole double) as a plain int."""
    if isinstance(stored, int | float) and not isinstance(stored, bool) and stored == int(stored):
        return int(stored)
    return stored


def throttle_from_stored(stored: Any) -> Any:
    if isinstance(stored, Mapping):
        return {str(k): int(v) if isinstance(v, int) and not isinstance(v, bool) else v
                for k, v in stored.items()}  # fmt: skip
    return stored


def show_throttle(value: Any) -> str:
    if isinstance(value, Mapping):
        inner = ", ".join(f"{k}: {v}" for k, v in value.items())
        return f"write concern {{{inner}}}"
    return on_off(value)


def dow_from_stored(stored: Any) -> Any:
    if not isinstance(stored, list):
        return stored  # not an array: shown as found, never equal to a policy value
    return [dict(entry) if isinstance(entry, Mapping) else entry for entry in stored]


def show_dow(value: Any) -> str:
    if not value:
        return "none"
    if not isinstance(value, list):
        return repr(value)
    return ", ".join(
        f"{e.get('day')} {e.get('start')}-{e.get('stop')}" if isinstance(e, Mapping) else repr(e)
        for e in value
    )
