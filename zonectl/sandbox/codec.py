"""The BSON codec options the sandbox decodes and encodes every document with."""

from __future__ import annotations

from typing import Any

import bson
from bson.binary import UuidRepresentation
from bson.codec_options import DatetimeConversion

# Decoding keeps `_id: 1` and `_id: NumberLong(1)` distinct Python types (both compare equal in
# model.keys); UUIDs are standard subtype 4; out-of-range dates stay DatetimeMS.
CODEC: bson.CodecOptions[dict[str, Any]] = bson.CodecOptions(
    document_class=dict,
    tz_aware=True,
    uuid_representation=UuidRepresentation.STANDARD,
    datetime_conversion=DatetimeConversion.DATETIME_AUTO,
)
