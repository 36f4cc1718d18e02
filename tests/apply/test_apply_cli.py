"""The apply/recover CLI surface: wrong targets, confirmation, dry run, saved plans."""

from __future__ import annotations

from pathlib import Path

from apply_kit import MATRIX, Cluster, Make, zonectl


def test_an_unreachable_host_exits_1_and_says_so() -> None:
    uri = "mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=300"
    result = zonectl("apply", str(MATRIX), "--uri", uri, "--yes")
    assert result.code == 1
    assert "cannot reach mongodb://127.0.0.1:1/" in result.err


def test_an_auth_failure_exits_1_changes_nothing_and_hides_the_password(make_cluster: Make) -> None:
    cluster = make_cluster(auth=True)
    before = cluster.state()
    uri = cluster.uri.replace("mongodb://", "mongodb://ops:wrong-pw@")
    result = zonectl("apply", str(MATRIX), "--uri", uri, "--yes")
    assert result.code == 1
    assert "Authentication failed" in result.err
    assert "wrong-pw" not in result.err
    assert cluster.state() == before


def test_missing_privileges_exit_1_and_change_nothing(make_cluster: Make) -> None:
    cluster = make_cluster(auth=True)
    before = cluster.state()
    uri = cluster.uri.replace("mongodb://", "mongodb://viewer:v13w3r-pw@")
    result = zonectl("apply", str(MATRIX), "--uri", uri, "--yes")
    assert result.code == 1
    assert "Unauthorized" in result.err or "not authorized" in result.err
    assert "v13w3r-pw" not in result.err
    assert cluster.state() == before
    assert cluster.lease() is None


def test_without_a_tty_and_without_yes_apply_refuses(cluster: Cluster) -> None:
    before = cluster.state()
    result = zonectl("apply", str(MATRIX), "--uri", cluster.uri)
    assert result.code == 1
    assert "refusing to apply without confirmation: stdin is not a terminal" in result.err
    assert cluster.state() == before
    assert cluster.lease() is None


def test_dry_run_prints_the_commands_and_sends_none(cluster: Cluster) -> None:
    before = cluster.state()
    result = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--dry-run")
    assert result.code == 0, result.err
    lines = result.out.splitlines()
    assert lines[0] == 'admin: {"addShardToZone": "s-fast-1", "zone": "hot"}'
    assert any(
        '"updateZoneKeyRange": "app.events"' in line and '"zone": null' in line for line in lines
    )
    # the pause and restore of app.events surround its range commands; app.logs has none
    events = [n for n, line in enumerate(lines) if '"app.events"' in line]
    assert '"noBalance": true' in lines[events[0]]
    assert '"noBalance": false' in lines[events[-1]]
    assert len(events) == 6  # pause, 2 removals, 2 additions, restore
    assert not any('"_id": "app.logs"' in line for line in lines)
    assert cluster.state() == before
    assert cluster.lease() is None


def test_a_saved_plan_applies_and_a_stale_one_is_refused(cluster: Cluster, tmp_path: Path) -> None:
    saved = tmp_path / "plan.json"
    assert zonectl("plan", str(MATRIX), "--uri", cluster.uri, "--save-plan", str(saved)).code == 0
    cluster.client.admin.command("addShardToZone", "s-fast-1", zone="archive")
    stale = zonectl("apply", "--plan", str(saved), "--uri", cluster.uri, "--yes")
    assert stale.code == 1
    assert "is stale: the cluster's zone metadata changed" in stale.err
    cluster.client.admin.command("removeShardFromZone", "s-fast-1", zone="archive")
    fresh = zonectl("apply", "--plan", str(saved), "--uri", cluster.uri, "--yes")
    assert fresh.code == 0, fresh.err
    assert zonectl("plan", str(MATRIX), "--uri", cluster.uri, "--detailed-exitcode").code == 0


def test_verbose_prints_every_command_sent(cluster: Cluster) -> None:
    result = zonectl("apply", str(MATRIX), "--uri", cluster.uri, "--yes", "-v")
    assert result.code == 0
    assert '  -> admin: {"addShardToZone": "s-fast-1", "zone": "hot"}' in result.err
    assert '-> zonectl: {"findAndModify": "locks"' in result.err


def test_recover_with_nothing_to_do_exits_0(cluster: Cluster) -> None:
    result = zonectl("recover", "--uri", cluster.uri)
    assert result.code == 0, result.err
    assert "nothing to recover" in result.err


def test_help_explains_exit_codes() -> None:
    result = zonectl("apply", "--help")
    assert result.code == 0
    assert "5 balancing could not be restored" in result.out
