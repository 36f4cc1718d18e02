"""What a fleet run is: the command's spec, the fleet options given, and the cluster a worker
is running for, in a context variable that `load_desired` reads to hand out that cluster's
overlaid desired state (the policy is loaded once per run)."""

from __future__ import annotations

import contextvars
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from zonectl.inventory.clusters import Cluster
from zonectl.inventory.overlay import apply_overlay
from zonectl.model.desired import DesiredState


@dataclass(frozen=True)
class FleetTarget:
    cluster: Cluster
    # Policies loaded before the fan-out, keyed by their paths: already overlaid.
    loaded: Mapping[tuple[str, ...], DesiredState] = field(default_factory=dict)

    def desired(self, paths: Sequence[Path]) -> DesiredState | None:
        return self.loaded.get(paths_key(paths))

    def overlaid(self, desired: DesiredState) -> DesiredState:
        return apply_overlay(desired, self.cluster.overlay)

    @property
    def uri_origin(self) -> str:
        """Where this cluster's URI comes from, for messages that must not quote it."""
        source = self.cluster.uri
        return f"{source.position} ({source.describe()}, cluster {self.cluster.name})"


CURRENT: contextvars.ContextVar[FleetTarget | None] = contextvars.ContextVar(
    "zonectl_fleet_target", default=None
)


def current_target() -> FleetTarget | None:
    return CURRENT.get()


def paths_key(paths: Sequence[Path | str]) -> tuple[str, ...]:
    return tuple(str(p) for p in paths)


@dataclass(frozen=True)
class FleetSpec:
    command: str  # the name shown in the summary and markdown
    writes: bool = False  # apply/rotate: several clusters need --yes (no interleaved prompts)
    # Options naming an output file: with a fleet they name a directory, one file per cluster.
    files: Mapping[str, str] = field(default_factory=dict)  # parameter -> suffix
    format_param: str | None = "fmt"  # parameter holding the output format, if any
    artifact: str = "text"  # the output kind when there is no format parameter
    # The parameter of `-o`: each cluster's artifact to its own file in that directory
    # (suffix by format), and nothing grouped on stdout.
    out_param: str | None = "out"
    # Usage checks that need no cluster, run once before any fan-out (UsageError: exit 2).
    precheck: Callable[[Mapping[str, Any]], None] | None = None


@dataclass(frozen=True)
class FleetArgs:
    inventory: Path | None
    clusters: tuple[str, ...]
    everything: bool
    selectors: tuple[str, ...]
    jobs: int

    @property
    def active(self) -> bool:
        return bool(self.clusters or self.everything or self.selectors)
