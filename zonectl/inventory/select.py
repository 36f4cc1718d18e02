"""Choosing clusters from the inventory (--cluster, --all, --selector) and reading their
URIs from the environment or files, every problem reported before any cluster is contacted."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from zonectl.diagnostics import Diagnostic, Severity
from zonectl.errors import InvalidInventoryError, UsageError
from zonectl.inventory.clusters import Cluster, Inventory, UriSource, label_keys
from zonectl.redaction import uri_problem


def parse_selectors(selectors: Sequence[str]) -> dict[str, str]:
    """`k=v`, repeatable or comma-separated; every pair must match (AND)."""
    wanted: dict[str, str] = {}
    for text in selectors:
        for part in text.split(","):
            key, sep, value = part.partition("=")
            key, value = key.strip(), value.strip()
            if not sep or not key or "=" in value:
                raise UsageError(
                    f"--selector {text!r}: expected key=value (e.g. env=prod,region=eu)"
                )
            if wanted.get(key, value) != value:
                raise UsageError(f"--selector: {key} given as both {wanted[key]} and {value}")
            wanted[key] = value
    return wanted


def select_clusters(
    inventory: Inventory, names: Sequence[str], everything: bool, selectors: Sequence[str]
) -> list[Cluster]:
    """The chosen clusters in inventory order. Exactly one way of choosing is allowed."""
    ways = sum((bool(names), everything, bool(selectors)))
    if ways != 1:
        raise UsageError("choose clusters one way: --cluster NAME..., --all, or --selector k=v")
    if everything:
        return list(inventory.clusters)
    if names:
        known = set(inventory.names())
        unknown = [n for n in dict.fromkeys(names) if n not in known]
        if unknown:
            raise _nothing(
                inventory,
                f"no cluster named {', '.join(unknown)} in the inventory",
                f"known clusters: {', '.join(inventory.names()) or 'none'}",
            )
        return [c for c in inventory.clusters if c.name in set(names)]
    wanted = parse_selectors(selectors)
    chosen = [c for c in inventory.clusters if all(c.labels.get(k) == v for k, v in wanted.items())]
    if not chosen:
        shown = ",".join(f"{k}={v}" for k, v in wanted.items())
        values = {
            k: sorted({c.labels[k] for c in inventory.clusters if k in c.labels}) for k in wanted
        }
        seen = "; ".join(f"{k}: {', '.join(v) or 'no cluster has it'}" for k, v in values.items())
        raise _nothing(
            inventory,
            f"selector {shown} matches no cluster",
            f"label values in the inventory: {seen} (label keys: "
            f"{', '.join(label_keys(inventory)) or 'none'})",
        )
    return chosen


def read_uris(clusters: Sequence[Cluster], environ: Mapping[str, str]) -> dict[str, str]:
    """Each chosen cluster's URI from its variable or file (only the chosen ones: a CronJob
    of one cluster carries only that cluster's secret)."""
    uris: dict[str, str] = {}
    problems: list[Diagnostic] = []
    for cluster in clusters:
        source = cluster.uri
        uri = ""
        if source.kind == "env":
            uri = environ.get(source.ref, "").strip()
            if not uri:
                state = "is empty" if source.ref in environ else "is not set"
                problems.append(
                    _error(
                        "ZI130",
                        source,
                        f"cluster {cluster.name}: URI variable {source.ref} {state}",
                        f"export {source.ref}=mongodb://... (or mount its Secret) before running",
                    )
                )
        elif source.kind == "file":
            try:
                uri = Path(source.ref).read_text(encoding="utf-8").strip()
            except (OSError, UnicodeDecodeError) as exc:
                reason = getattr(exc, "strerror", None) or str(exc)
                problems.append(
                    _error(
                        "ZI131", source, f"cluster {cluster.name}: cannot read URI file: {reason}"
                    )
                )
                continue
            if not uri:
                message = f"cluster {cluster.name}: URI file {source.ref} is empty"
                problems.append(_error("ZI131", source, message))
        else:
            uri = source.ref
        if uri and (problem := uri_problem(uri)):
            problems.append(_bad_uri(cluster, problem))
        uris[cluster.name] = uri
    if problems:
        raise InvalidInventoryError(
            f"no usable URI for {len(problems)} cluster(s)", diagnostics=problems
        )
    return uris


def _bad_uri(cluster: Cluster, problem: str) -> Diagnostic:
    """A URI that does not parse, never quoted: a file may be any file (its first line
    would be shown) and a mangled URI's parts may be its password."""
    source = cluster.uri
    held = {
        "env": f"variable {source.ref}",
        "file": f"file {source.ref}",
        "value": "uri.value",
    }[source.kind]
    return _error(
        "ZI134",
        source,
        f"cluster {cluster.name}: {held} does not hold a MongoDB URI: {problem}",
        "the form is mongodb://HOST[:PORT][,HOST...][/DB][?KEY=VALUE&...], with "
        "USER:PASSWORD and an '@' before the hosts, both percent-encoded",
    )


def _nothing(inventory: Inventory, message: str, hint: str) -> InvalidInventoryError:
    diagnostic = Diagnostic("ZI150", Severity.ERROR, inventory.position, message, hint)
    return InvalidInventoryError(f"{message} ({inventory.file})", diagnostics=[diagnostic])


def _error(code: str, source: UriSource, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, source.position, message, hint)
