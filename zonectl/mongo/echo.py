"""Commands as text: one line of relaxed extended JSON, redacted, for `--dry-run` output and
for the `-v` listener that echoes every command pymongo sends."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from bson import json_util
from pymongo import monitoring

from zonectl.errors import redact

_QUIET_COMMANDS = {"hello", "ismaster", "isMaster", "saslStart", "saslContinue", "endSessions"}
_DROP_FIELDS = {"lsid", "$clusterTime", "$db", "$readPreference", "txnNumber"}


def command_line(database: str, command: Mapping[str, Any]) -> str:
    text = json_util.dumps(dict(command), json_options=json_util.RELAXED_JSON_OPTIONS)
    return f"{database}: {redact(text)}"


class CommandEcho(monitoring.CommandListener):
    """`-v`: every command sent, handed to `emit` as one line (the CLI prints it on stderr);
    handshakes and authentication stay quiet, driver-added fields are dropped."""

    def __init__(self, emit: Callable[[str], None]) -> None:
        self._emit = emit

    def started(self, event: monitoring.CommandStartedEvent) -> None:
        if event.command_name in _QUIET_COMMANDS:
            return
        body = {k: v for k, v in event.command.items() if k not in _DROP_FIELDS}
        self._emit(f"  -> {command_line(event.database_name, body)}")

    def succeeded(self, event: monitoring.CommandSucceededEvent) -> None:
        pass

    def failed(self, event: monitoring.CommandFailedEvent) -> None:
        pass
