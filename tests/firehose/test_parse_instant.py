"""parse_instant: `--at` takes ISO 8601 with an offset or Z, and nothing ambiguous."""

from __future__ import annotations

import datetime as dt

import pytest

from zonectl.firehose import parse_instant

UTC = dt.UTC


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-03-29T02:30:00Z", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-29T02:30Z", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-29t02:30:00z", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-29 02:30:00Z", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-29T04:30:00+02:00", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-28T21:30:00-05:00", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
        ("2026-03-29T02:30:00.250Z", dt.datetime(2026, 3, 29, 2, 30, 0, 250000, tzinfo=UTC)),
        ("  2026-03-29T02:30:00+0000 ", dt.datetime(2026, 3, 29, 2, 30, tzinfo=UTC)),
    ],
)
def test_parse_instant_reads_iso_8601_with_an_offset_as_utc(
    text: str, expected: dt.datetime
) -> None:
    parsed = parse_instant(text)
    assert parsed == expected
    assert parsed.tzinfo == UTC


@pytest.mark.parametrize("text", ["2026-03-29T02:30:00", "2026-03-29", "2026-03-29 02:30"])
def test_parse_instant_refuses_a_time_without_an_offset(text: str) -> None:
    with pytest.raises(ValueError, match=r"has no offset; add 'Z' for UTC"):
        parse_instant(text)


@pytest.mark.parametrize(
    "text",
    ["", "tomorrow", "29/03/2026 02:30Z", "2026-02-30T00:00Z", "1774751400", "2026-03-29T25:00Z"],
)
def test_parse_instant_names_the_accepted_forms_for_bad_text(text: str) -> None:
    with pytest.raises(
        ValueError, match=r"use ISO 8601 with an offset, e\.g\. 2026-03-29T02:30:00Z"
    ):
        parse_instant(text)
