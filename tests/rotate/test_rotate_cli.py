"""`zonectl rotate` end to end against the firehose sandbox over TCP."""

from __future__ import annotations

import datetime as dt

from bson import ObjectId
from rotate_kit import Firehose

DAY2 = dt.datetime(2026, 3, 2, tzinfo=dt.UTC)


def test_rotate_moves_each_window_to_the_new_boundary_and_prints_what_moved(
    firehose: Firehose,
) -> None:
    r = firehose.rotate("--at", "2026-03-02T00:05:00Z", "--yes")
    assert r.code == 0, r.err
    assert 'app.events: window ISODate("2026-03-01T00:00:00.000Z") -> ' in r.out
    assert 'ISODate("2026-03-02T00:00:00.000Z")' in r.out
    assert "app.clicks: window ObjectId(" in r.out and "(2026-03-02T00:00:00Z)" in r.out
    events = firehose.tags("app.events")
    assert [t for _, _, t in events] == ["archive", "hot"]
    assert events[1][0]["ts"] == DAY2
    clicks = firehose.tags("app.clicks")
    assert clicks[1][0]["_id"] == ObjectId.from_datetime(DAY2)
    assert firehose.writes().count("updateZoneKeyRange") == 8  # 2 removals + 2 adds each
