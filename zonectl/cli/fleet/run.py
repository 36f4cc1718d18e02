"""Running one command across the chosen clusters of the inventory: every check that needs
no cluster first (inventory, selection, URIs, policy, overlays), then the clusters at once,
bounded by --jobs, each through the command's own body, lease and journal, so one failing
never stops the others; then the grouped artifact, the summary table and the worst code."""

from __future__ import annotations

import concurrent.futures
import datetime as dt
import io
import os
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from zonectl.apply.interrupt import STOP, Stop
from zonectl.cli.artifact import SUFFIXES
from zonectl.cli.connection import open_cluster
from zonectl.cli.error_boundary import run_guarded, stderr
from zonectl.cli.fleet.context import CURRENT, FleetArgs, FleetSpec, FleetTarget, paths_key
from zonectl.cli.fleet.interrupt import signals_raise, wind_down
from zonectl.cli.fleet.output import Outcome, combine, summary_lines, worst_code
from zonectl.cli.fleet.streams import ErrorWatch, PrefixWriter, ThreadRouter, routed_streams
from zonectl.cli.metrics_file import write_run
from zonectl.cli.policy_load import load_policy_files
from zonectl.errors import (
    ExitCode,
    InvalidInventoryError,
    NeedsHumanError,
    UsageError,
    ZonectlError,
)
from zonectl.inventory import (
    Cluster,
    apply_overlay,
    check_overlay_policy,
    check_overlay_shards,
    load_inventory,
    read_uris,
    select_clusters,
)
from zonectl.render.metrics import ClusterMetrics
from zonectl.session.fleet import live_shards

Body = Callable[..., int]


def run_fleet(spec: FleetSpec, body: Body, kwargs: dict[str, Any], args: FleetArgs) -> int:
    clusters = _choose(spec, kwargs, args)
    to_stdout = spec.out_param is None or kwargs.get(spec.out_param) is None
    if to_stdout and len(clusters) > 1 and _kind(spec, kwargs) == "openmetrics":
        # each cluster's text is a whole exposition (its families, then # EOF): several
        # in one stream, between === headers, is none that a scraper or parser reads
        raise UsageError(
            "--format openmetrics of several clusters cannot share stdout",
            hint="write one exposition per cluster: -o DIR, or --metrics-file DIR for "
            "node-exporter's textfile collector",
        )
    per_cluster = _files(spec, kwargs, clusters)
    try:  # the checks that need no cluster, each cluster's as its own run would fail them
        uris = read_uris(clusters, os.environ)
        targets = _targets(clusters, kwargs)
    except ZonectlError as exc:
        _record_failure(spec, clusters, per_cluster, int(exc.exit_code))
        raise
    jobs = [
        _Job(spec, body, {**kwargs, **per_cluster[c.name]}, targets[c.name], uris[c.name])
        for c in clusters
    ]
    with routed_streams() as (out, err):
        outcomes, interrupted = _run_all(jobs, args.jobs, out, err)
    # A Ctrl-C exits 130 as the single-cluster command does, even where every cluster it
    # reached had already ended (the worst code otherwise: 130 outranks every other).
    code = int(ExitCode.INTERRUPTED) if interrupted else worst_code([o.code for o in outcomes])
    kind = _kind(spec, kwargs)
    if spec.out_param is None or kwargs.get(spec.out_param) is None:  # else: in the files
        sys.stdout.write(combine(kind, spec.command, outcomes))
        sys.stdout.flush()
    for line in summary_lines(spec.command, outcomes, code):
        stderr.print(line, markup=False)
    return code


def _choose(spec: FleetSpec, kwargs: Mapping[str, Any], args: FleetArgs) -> list[Cluster]:
    """What needs no cluster and no policy: usage, the inventory, the selection."""
    uri = kwargs.get("uri")
    if uri and uri != os.environ.get("ZONECTL_URI"):
        raise UsageError("--uri names one cluster; --cluster/--all/--selector name inventory ones")
    inventory = load_inventory(args.inventory or Path("clusters.yaml"))
    clusters = select_clusters(inventory, args.clusters, args.everything, args.selectors)
    several = len(clusters) > 1
    if several and kwargs.get("plan_file") is not None:
        raise UsageError("a saved plan (--plan) belongs to one cluster: choose one with --cluster")
    if spec.writes and several and not kwargs.get("yes") and not kwargs.get("dry_run"):
        raise UsageError(
            f"{spec.command} against {len(clusters)} clusters needs --yes: prompts from "
            "several clusters at once would interleave",
            hint=f"review with `zonectl plan ... --all` (or the same selection), then rerun "
            f"{spec.command} with --yes",
        )
    return clusters


def _record_failure(
    spec: FleetSpec, clusters: list[Cluster], files: Mapping[str, Mapping[str, Path]], code: int
) -> None:
    """A fleet run that fails before any cluster (a URI variable unset, an invalid policy,
    an overlay the cluster lacks) still records the run in each chosen cluster's
    --metrics-file, as that cluster's own run would: a CronJob failing from its first day
    pages (ZonectlRotateNeverSucceeded), and a last success is carried over."""
    now = dt.datetime.now(dt.UTC)
    for c in clusters:
        path = files[c.name].get("metrics_file")
        if path is not None:
            base = ClusterMetrics(cluster=c.name, now=now, read=False)
            write_run(path, spec.command, code, ran=now, base=base)


def _targets(clusters: list[Cluster], kwargs: Mapping[str, Any]) -> dict[str, FleetTarget]:
    """Load the policy once (exit 3 before any cluster is contacted) and check each
    cluster's overlay against it; then each cluster's overlaid desired state."""
    paths = kwargs.get("paths")
    if not paths:
        return {c.name: FleetTarget(c) for c in clusters}
    base = load_policy_files(paths)
    problems = [d for c in clusters for d in check_overlay_policy(c.name, c.overlay, base)]
    if problems:
        raise InvalidInventoryError(
            f"{len(problems)} overlay problem(s) against the policy", diagnostics=problems
        )
    key = paths_key(paths)
    return {c.name: FleetTarget(c, {key: apply_overlay(base, c.overlay)}) for c in clusters}


def _files(
    spec: FleetSpec, kwargs: Mapping[str, Any], clusters: list[Cluster]
) -> dict[str, dict[str, Path]]:
    """`-o DIR`: one file per cluster in DIR (created), named after the cluster. A run of
    one cluster given a path with the file's own suffix (`--cluster prod-eu --metrics-file
    .../zonectl-rotate-prod-eu.prom`, what `fleet cronjobs` writes) writes that file: a
    directory named *.prom is one node-exporter's textfile collector never reads."""
    chosen: dict[str, dict[str, Path]] = {c.name: {} for c in clusters}
    files = dict(spec.files)
    if spec.out_param is not None:  # a suffix the spec names wins (twin: .twin.yaml)
        files.setdefault(spec.out_param, SUFFIXES.get(_kind(spec, kwargs), ".txt"))
    for name, suffix in files.items():
        directory = kwargs.get(name)
        if directory is None:
            continue
        directory = Path(directory)
        if len(clusters) == 1 and directory.name.endswith(suffix) and not directory.is_dir():
            chosen[clusters[0].name][name] = directory
            continue
        if directory.exists() and not directory.is_dir():
            raise UsageError(
                f"in a fleet run {_flag(name)} names a directory (one file per cluster); "
                f"{directory} is a file"
            )
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ZonectlError(f"cannot create {directory}: {exc.strerror or exc}") from None
        for c in clusters:
            chosen[c.name][name] = directory / f"{c.name}{suffix}"
    return chosen


class _Job:
    def __init__(
        self, spec: FleetSpec, body: Body, kwargs: dict[str, Any], target: FleetTarget, uri: str
    ) -> None:
        self.spec, self.body, self.kwargs, self.target, self.uri = spec, body, kwargs, target, uri
        self.name = target.cluster.name
        self.stop = Stop()  # set by the main thread on Ctrl-C; the apply checks it

    def run(self, out: ThreadRouter, err: ThreadRouter, alone: bool) -> Outcome:
        buffer = io.StringIO()
        watch: PrefixWriter | ErrorWatch = (
            ErrorWatch(err.default) if alone else PrefixWriter(self.name, err.default)
        )
        out.route(buffer)
        err.route(watch)
        token, stop_token = CURRENT.set(self.target), STOP.set(self.stop)
        started = time.monotonic()
        try:
            code = run_guarded(self._body)
        finally:
            STOP.reset(stop_token)
            CURRENT.reset(token)
            watch.finish()
            out.route(None)
            err.route(None)
        seconds = time.monotonic() - started
        return Outcome(self.name, code, seconds, buffer.getvalue(), watch.first_error)

    def _body(self) -> int:
        self._check_shards()
        try:
            return self.body(**{**self.kwargs, "uri": self.uri})
        except NeedsHumanError as exc:
            # Restoring failed (the cluster went away mid clean-up): name this cluster's
            # recover, since a fleet operator has no --uri at hand.
            recover = f"`zonectl recover --cluster {self.name}`"
            hint = exc.hint or ""
            exc.hint = (
                hint.replace("'zonectl recover'", recover)
                if "'zonectl recover'" in hint
                else f"{hint}{'; then ' if hint else 'run '}{recover}"
            )
            raise

    def _check_shards(self) -> None:
        """An overlay naming a shard this cluster lacks is reported before any write."""
        overlay = self.target.cluster.overlay
        if overlay.is_empty or not self.kwargs.get("paths"):
            return
        with open_cluster(self.uri, self.target.uri_origin) as conn:
            live = live_shards(conn)
        problems = check_overlay_shards(self.name, overlay, live)
        if problems:
            raise InvalidInventoryError(
                f"cluster {self.name}: its overlay names shard(s) it lacks; nothing was sent",
                diagnostics=problems,
            )


def _run_all(
    jobs: list[_Job], bound: int, out: ThreadRouter, err: ThreadRouter
) -> tuple[list[Outcome], bool]:
    """Each job's outcome, and whether a Ctrl-C (or SIGTERM) interrupted the run."""
    if len(jobs) == 1:  # on this thread: Ctrl-C reaches it as in the single-cluster command
        return [jobs[0].run(out, err, alone=True)], False
    results: dict[str, Outcome] = {}
    interrupted = False
    pool = concurrent.futures.ThreadPoolExecutor(min(bound, len(jobs)), "zonectl-fleet")
    futures: dict[concurrent.futures.Future[Outcome], _Job] = {}

    def collect(future: concurrent.futures.Future[Any]) -> None:
        job = futures[future]
        results[job.name] = future.result()

    try:
        with signals_raise():
            try:
                futures.update({pool.submit(job.run, out, err, False): job for job in jobs})
                for future in concurrent.futures.as_completed(futures):
                    collect(future)
            except KeyboardInterrupt:
                interrupted = True
                names = {f: j.name for f, j in futures.items() if j.name not in results}
                wind_down(names, {j.name: j.stop for j in jobs}, collect)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    for job in jobs:  # never started: cancelled by the interrupt
        results.setdefault(
            job.name, Outcome(job.name, int(ExitCode.INTERRUPTED), 0.0, "", None, False)
        )
    return [results[job.name] for job in jobs], interrupted


def _flag(param: str) -> str:
    return {"out": "-o", "save_plan": "--save-plan", "metrics_file": "--metrics-file"}.get(
        param, f"--{param.replace('_', '-')}"
    )


def _kind(spec: FleetSpec, kwargs: Mapping[str, Any]) -> str:
    if spec.format_param is not None and kwargs.get(spec.format_param) is not None:
        return str(getattr(kwargs[spec.format_param], "value", kwargs[spec.format_param]))
    return spec.artifact
