"""`rotate --migrate` shares apply's queue of moves and its end: a namespace whose moves
the cluster refuses is named once with the server's reason, the window still rotates, the
exit code says partial (1) and nothing is journaled as moved."""

from __future__ import annotations

import datetime as dt

from rotate_kit import HOT, Firehose

AT = ("--at", "2026-03-02T00:05:00Z")


def test_a_window_whose_moves_are_refused_rotates_and_exits_partial(firehose: Firehose) -> None:
    from zonectl.sandbox.seed.growth import grow, instants

    start, day2 = dt.datetime(2026, 3, 1, tzinfo=dt.UTC), dt.datetime(2026, 3, 2, tzinfo=dt.UTC)
    grow(firehose.sandbox, "app.events", instants(start, day2, dt.timedelta(hours=6)))
    before = [c["shard"] for c in firehose.chunks("app.events")]
    # What a resharding or another DDL does to the collection meanwhile.
    admin = firehose.client.admin
    admin.command({"setAllowMigrations": "app.events", "allowMigrations": False})
    r = firehose.rotate(*AT, "--yes", "--migrate")
    assert r.code == 1, r.err
    assert "app.events: 0 splits, 0 chunks moved, 0 left, 4 failed" in r.out
    named = [line for line in r.err.splitlines() if line.startswith("zonectl: app.events: ")]
    assert len(named) == 1, r.err
    assert (
        "4 of 4 moves failed: ConflictingOperationInProgress: Collection is undergoing"
        in (named[0])
    )
    # app.clicks's window left one chunk on the hot shard: its move went on.
    assert "app.clicks: 1 split, 1 chunk moved, 0 left\n" in r.out
    assert "zonectl: partial: 1 namespace failed, 1 move of other namespaces completed" in r.err
    assert [c["shard"] for c in firehose.chunks("app.events")] == before
    assert [zone for _, _, zone in firehose.tags("app.events")] == ["archive", "hot"]
    assert firehose.tags("app.events")[1][0]["ts"] == day2  # the window still rotated
    journal = firehose.client.zonectl.journal
    moves = list(journal.find({"type": "step", "kind": {"$regex": "^move"}}))
    statuses = sorted((m["op"].split(" of ")[-1].split(" to ")[0], m["status"]) for m in moves)
    assert statuses == [("app.clicks", "moved")] + [("app.events", "failed")] * 4
    assert journal.count_documents({"type": "apply", "state": "open"}) == 0
    doc = firehose.client.config.collections.find_one({"_id": "app.events"})
    assert not doc.get("noBalance", False)
    assert HOT in before
