"""`zonectl twin`: capture a live cluster (read-only) or a `mongodump --db config` into a
twin file that `zonectl sandbox --cluster FILE` serves (docs/twin.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from zonectl.cli.common import uri_option, uri_origin, warn
from zonectl.cli.error_boundary import guarded, stderr
from zonectl.cli.fleet.context import FleetSpec
from zonectl.cli.fleet.options import fleet_command
from zonectl.errors import ExitCode, UsageError
from zonectl.twin.write import Written, sidecar_path


@guarded
@fleet_command(FleetSpec("twin", files={"out": ".twin.yaml"}, format_param=None, artifact="yaml"))
def command(
    uri: Annotated[str | None, uri_option()] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "-o", "--out", help="The twin's YAML; its chunks go beside it (FILE.chunks.bson)."
        ),
    ] = None,
    dump: Annotated[
        Path | None,
        typer.Option(
            "--dump", help="Read a `mongodump --db config` directory instead of a cluster."
        ),
    ] = None,
    archive: Annotated[
        Path | None,
        typer.Option("--archive", help="Read a `mongodump --archive` file (gzipped or not)."),
    ] = None,
    measure: Annotated[
        bool,
        typer.Option("--measure", help="Measure each chunk with dataSize instead of estimating."),
    ] = False,
    anonymize: Annotated[
        bool,
        typer.Option(
            "--anonymize",
            help="Rename databases, collections, shards and zones, and replace bound values by "
            "order-preserving stand-ins, so the twin can be shared and still plans the same.",
        ),
    ] = False,
    jsonl: Annotated[
        bool,
        typer.Option("--jsonl", help="Write the chunks as Extended JSON lines (to edit by hand)."),
    ] = False,
) -> int:
    """Capture a twin of a cluster for the sandbox to serve.

    The twin holds shards and zones, databases and primaries, every sharded
    collection's exact chunks (bounds, owners, jumbo flags), each unsharded
    collection's kind, size and shard (not its documents), zone ranges,
    config.settings, the version and FCV, chunk sizes (estimated from
    collection statistics unless --measure) and the migration costs learned
    from config.changelog. No hosts, credentials or documents. Read-only:
    clusterMonitor and read on config are enough; what a missing privilege
    hides is named, and the twin is written without it.

    Exit codes: 0 written; 1 runtime error; 2 usage; 3 bad dump.

    Examples:

      zonectl twin --uri "$ZONECTL_URI" -o prod.twin.yaml

      zonectl twin --dump dump/ -o case-1234.twin.yaml --anonymize

      zonectl sandbox --cluster prod.twin.yaml

      zonectl twin --inventory clusters.yaml --all -o twins/   # one twin per cluster
    """
    if out is None:
        raise UsageError("twin needs -o FILE (the twin's YAML; its chunks go beside it)")
    if dump is not None and archive is not None:
        raise UsageError("give one of --uri, --dump DIR and --archive FILE")
    _check_targets(out, jsonl)
    from zonectl.sandbox.seed.cluster_yaml import render
    from zonectl.session.twin import twin_from_cluster, twin_from_dump

    if dump is not None or archive is not None:
        twin = twin_from_dump(dump, archive, out, render=render, jsonl=jsonl, anonymize=anonymize)
    else:
        if not uri:
            raise UsageError("no cluster given: pass --uri URI, --dump DIR or --archive FILE")
        from zonectl.cli.connection import open_cluster

        with open_cluster(uri, uri_origin(uri)) as conn:
            twin = twin_from_cluster(
                conn, out, render=render, measure=measure, jsonl=jsonl, anonymize=anonymize
            )
    for note in twin.capture.notes:
        warn(note)
    _report(twin.written, twin.capture.costs or {}, twin.capture.sizes)
    return int(ExitCode.OK)


def _check_targets(out: Path, jsonl: bool) -> None:
    """Both files a twin writes must be files: refused before anything is read or written."""
    if out.is_dir():
        raise UsageError(
            f"-o {out}: is a directory; name the twin's file, e.g. -o {out / 'cluster.twin.yaml'}"
            " (a directory is for --inventory: one twin per cluster)"
        )
    side = sidecar_path(out, jsonl)
    if side.is_dir():
        raise UsageError(
            f"-o {out}: its chunks go to {side}, which is a directory; "
            "remove it or name another file"
        )


def _report(written: Written, costs: dict[str, object], sizes: str) -> None:
    stderr.print(
        f"twin written to {written.yaml} ({written.collections} collections, "
        f"{written.total_chunks} chunks in {written.chunks.name})",
        markup=False,
    )
    stderr.print(f"  sizes: {sizes}", markup=False)
    stderr.print(f"  costs: {costs.get('source', 'assumed')}", markup=False)
    stderr.print(f"  serve it: zonectl sandbox --cluster {written.yaml}", markup=False)
