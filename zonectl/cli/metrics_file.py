"""Writing a run's node-exporter textfile (`--metrics-file`): the cluster's figures when it
was read, the run series always, the last success carried over from the previous file when
this run failed. Used by a command's MetricsRun (metrics_out.py) and by a fleet run that
fails before any cluster (fleet/run.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

from zonectl.atomic import write_atomically
from zonectl.cli.error_boundary import stderr
from zonectl.errors import redact
from zonectl.render.exposition import find_sample, render_textfile
from zonectl.render.inert import terminal
from zonectl.render.metrics import ClusterMetrics, RunMetrics, make_families


def write_run(
    path: Path,
    command: str,
    code: int,
    *,
    ran: dt.datetime,
    base: ClusterMetrics,
) -> None:
    """Write `path` atomically: `base` (its figures, or `read=False` for none) with this
    run's time, exit code and last success; a warning, not a failure, when it cannot."""
    last = ran if code == 0 else previous_success(path, base.cluster, command)
    text = render_textfile(make_families(replace(base, run=RunMetrics(command, ran, code, last))))
    try:
        write_atomically(path, text)
    except OSError as exc:
        # as cli.common.warn says it (not imported: common reaches the fleet package)
        said = f"zonectl: warning: metrics file {path} not written: {exc.strerror or exc}"
        stderr.print(terminal(redact(said)), markup=False)


def previous_success(path: Path, cluster: str, command: str) -> dt.datetime | None:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return None
    labels = {"cluster": cluster, "command": command}
    value = find_sample(text, "zonectl_run_last_success_timestamp_seconds", labels)
    return dt.datetime.fromtimestamp(value, dt.UTC) if value is not None else None
