"""Run-time settings that come from the environment, read once by the CLI and passed down.

Layers below the CLI never read `os.environ`; they receive a `Settings` value.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass

DEFAULT_DATABASE = "zonectl"


@dataclass(frozen=True)
class Settings:
    uri: str | None = None  # ZONECTL_URI; `--uri` wins over it
    database: str = DEFAULT_DATABASE  # zonectl's own database: lease, journal, audit
    app_name: str = "zonectl"
    cluster: str | None = None  # ZONECTL_CLUSTER: the `cluster` label of metrics
    # ZONECTL_CONFIG_TIMEZONE: the config server's local zone, as --balancer-tz would give it;
    # None: the policy's `balancer.timezone`, else UTC.
    config_timezone: str | None = None

    @classmethod
    def from_environ(cls, environ: Mapping[str, str]) -> Settings:
        return cls(
            uri=environ.get("ZONECTL_URI") or None,
            database=environ.get("ZONECTL_DATABASE") or DEFAULT_DATABASE,
            cluster=environ.get("ZONECTL_CLUSTER") or None,
            config_timezone=environ.get("ZONECTL_CONFIG_TIMEZONE") or None,
        )

    def with_uri(self, uri: str | None) -> Settings:
        """The explicit `--uri`, if given, overrides ZONECTL_URI."""
        if not uri:
            return self
        return dataclasses.replace(self, uri=uri)
