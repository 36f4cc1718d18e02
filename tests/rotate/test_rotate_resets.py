"""`rotate --migrate` shares apply's move path: a move whose reply was lost to a reset
connection is looked up, found done, not sent again, and counted in rotate's summary."""

from __future__ import annotations

import dataclasses
import datetime as dt
import urllib.parse

from rotate_kit import Firehose

from zonectl.sandbox.seed.growth import grow, instants
from zonectl.sandbox.wire.reset_proxy import ResetProxy

DAY1, DAY2 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)


def test_rotate_migrate_counts_a_move_found_done_after_its_connection_reset(
    firehose: Firehose,
) -> None:
    grow(firehose.sandbox, "app.events", instants(DAY1, DAY2, dt.timedelta(hours=6)))
    port = urllib.parse.urlsplit(firehose.uri).port
    assert port is not None
    with ResetProxy(("127.0.0.1", port)) as proxy:
        fired = proxy.cut("moveRange", 2)  # it commits; its reply is lost
        through = dataclasses.replace(firehose, uri=proxy.uri)
        r = through.rotate("--at", "2026-03-02T00:05:00Z", "--yes", "--migrate")
    assert fired.is_set()
    assert r.code == 0, r.err
    assert "app.events: 0 splits, 4 chunks moved, 0 left" in r.out
    assert "the connection reset during the move; config.chunks shows it done" in r.err
    assert "; 1 connection reset (1 found done); balancing restored" in r.err
    assert "app.clicks: 1 split, 1 chunk moved, 0 left" in r.out
    assert proxy.commands["moveRange"] == 5  # one per chunk moved: none sent again
