"""A rejection by the 7.0+ config.settings validator (code 121, reference balancer-settings
§2.3) is reported with the setting's name and not retried; apply exits 1 and leaves what it
paused restored."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.balancer_settings.kit import cli, policy, serve, settings_doc
from zonectl.sandbox.catalog.cluster import SETTINGS


def test_a_validator_rejection_names_the_setting_and_is_not_retried(
    sandbox_server: Any, tmp_path: Path
) -> None:
    handle = serve(sandbox_server, "7.0")
    # A chunksize document written before the schema existed, with a field the 7.0
    # validator does not allow: it stays until the next update, which must make it valid.
    handle.sandbox.cluster.coll(SETTINGS).put({"_id": "chunksize", "value": 64, "note": "x"})
    code, out, err = cli("apply", policy(tmp_path, "balancer:\n  chunkSizeMB: 32\n"),
                         "--uri", handle.uri, "--yes")  # fmt: skip
    # The sandbox has the validator (zonectl/sandbox/catalog/settings_schema.py); apply
    # succeeding here means the rejection was lost, so it fails rather than skips.
    assert code == 1, out + err
    assert "validator refused balancer setting chunkSizeMB" in err
    assert "(121)" in err and "Traceback" not in err
    assert (settings_doc(handle, "chunksize") or {})["value"] == 64


def test_a_121_from_the_server_stops_apply_naming_the_setting(
    sandbox_server: Any, tmp_path: Path
) -> None:
    """The server's answer is injected with failCommand (as a test against a real mongos
    would); the balancer that apply paused is running again afterwards."""
    handle = serve(sandbox_server, "7.0")
    handle.client.admin.command(
        "configureFailPoint",
        "failCommand",
        mode={"times": 1},
        data={
            "failCommands": ["update"],
            "namespace": "config.settings",
            "appName": "zonectl",
            "errorCode": 121,
        },
    )
    body = "balancer:\n  waitForDelete: true\n"
    code, out, err = cli("apply", policy(tmp_path, body), "--uri", handle.uri, "--yes")
    assert code == 1, out + err
    assert "validator refused balancer setting waitForDelete" in err, err
    assert "(121)" in err
    assert "_waitForDelete" not in (settings_doc(handle, "balancer") or {})
    # Not retried: the one injected failure was the only answer, and nothing was written.
    code, out, _ = cli("plan", policy(tmp_path, body), "--uri", handle.uri, "--detailed-exitcode")
    assert code == 4 and "waitForDelete off -> on" in out
