"""Bad input to `zonectl rotate` (issue 6): each a clear error before anything is sent."""

from __future__ import annotations

from pathlib import Path

import pytest
from rotate_kit import POLICY, Firehose


def _policy(tmp_path: Path, old: str, new: str, count: int = 1) -> Path:
    text = POLICY.read_text()
    assert old in text, old
    path = tmp_path / "policy.yaml"
    path.write_text(text.replace(old, new, count))
    return path


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('schedule: "0 0 * * *"', 'schedule: "0 0 30 2 *"', "never fires"),
        ('schedule: "0 0 * * *"', 'schedule: "0 0 * *"', "has 4 fields; expected 5"),
        ("timezone: UTC", "timezone: Mars/Olympus_Mons", "Mars/Olympus_Mons"),
    ],
    ids=["cron-never-fires", "cron-malformed", "unknown-timezone"],
)
def test_an_invalid_window_schedule_exits_3_and_sends_nothing(
    firehose: Firehose, tmp_path: Path, old: str, new: str, message: str
) -> None:
    r = firehose.rotate("--yes", policy=_policy(tmp_path, old, new))
    assert r.code == 3, r.err
    assert message in r.err and ":" in r.err.split(message)[0]  # at file:line:col
    assert firehose.commands() == []  # found offline, before reading the cluster


@pytest.mark.parametrize("at", ["yesterday", "2026-03-02T00:05:00", "2026-13-02T00:05Z"])
def test_an_at_in_the_wrong_format_is_a_usage_error_and_sends_nothing(
    firehose: Firehose, at: str
) -> None:
    r = firehose.rotate("--at", at, "--yes")
    assert r.code == 2
    assert ("--at:" in r.err and "ISO 8601" in r.err) or "no offset" in r.err
    assert firehose.commands() == []  # not even a read


def test_a_firehose_type_that_does_not_match_the_live_key_exits_1_and_sends_nothing(
    firehose: Firehose, tmp_path: Path
) -> None:
    # app.clicks is keyed by ObjectId; a date boundary would sort below every ObjectId.
    wrong = _policy(tmp_path, "type: objectId", "type: date")
    r = firehose.rotate("--at", "2026-03-02T00:05:00Z", "--yes", policy=wrong)
    assert r.code == 1
    assert "app.clicks: firehose type date does not match the live shard key" in r.err
    assert "objectId values" in r.err and "set `type: objectId`" in r.err
    assert firehose.writes() == []


def test_epoch_seconds_against_millisecond_keys_is_caught_by_magnitude(
    firehose: Firehose, tmp_path: Path
) -> None:
    wrong = _policy(tmp_path, "type: objectId", "type: epochMillis")
    r = firehose.rotate("--at", "2026-03-02T00:05:00Z", "--yes", policy=wrong)
    assert r.code == 1 and "set `type: objectId`" in r.err
    assert firehose.writes() == []


def test_a_hot_zone_no_policy_shard_carries_is_an_invalid_policy_and_sends_nothing(
    firehose: Firehose, tmp_path: Path
) -> None:
    # `fast` is named by no policy shard: the window's hot range would have nowhere to live.
    empty = _policy(tmp_path, "hot: hot", "hot: fast", count=2)
    r = firehose.rotate("--at", "2026-03-02T00:05:00Z", "--yes", policy=empty)
    assert r.code == 3
    assert "fast" in r.err and "policy.yaml:" in r.err
    assert firehose.commands() == []  # refused offline, before reading the cluster


def test_a_hot_zone_the_policy_names_but_no_live_shard_carries_yet_exits_1(
    firehose: Firehose, tmp_path: Path
) -> None:
    # The membership is policy drift rotate does not apply: apply has to add it first.
    moved = _policy(tmp_path, "shard-10x: [hot]", "shard-10x: [fast]")
    moved.write_text(moved.read_text().replace("hot: hot", "hot: fast"))
    r = firehose.rotate("--at", "2026-03-02T00:05:00Z", "--yes", policy=moved)
    assert r.code == 1
    assert "zone fast has no shard in the cluster" in r.err
    assert "run `zonectl apply`" in r.err
    assert firehose.writes() == []


def test_a_policy_without_firehose_windows_has_nothing_to_rotate(
    firehose: Firehose, tmp_path: Path
) -> None:
    path = tmp_path / "policy.yaml"
    path.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: {shard-10x: [hot]}\n")
    r = firehose.rotate("--yes", policy=path)
    assert r.code == 0 and "nothing to rotate" in r.err
    assert firehose.writes() == []
