"""`load_inventory`: read clusters.yaml with the policy loader's YAML reader (positions on
every node), validate it with pydantic, check names and URI sources, and either return an
Inventory or raise InvalidInventoryError carrying every diagnostic at file:line:col."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import ValidationError
from pydantic_core import ErrorDetails

from zonectl.diagnostics import Diagnostic, Position, Severity, has_errors, sorted_diagnostics
from zonectl.errors import InvalidInventoryError
from zonectl.inventory.schema import KIND, ClusterModel, InventoryFileModel
from zonectl.policy.schema import API_VERSION
from zonectl.policy.schema_errors import allowed_keys, describe, display_path
from zonectl.policy.source import read_documents
from zonectl.policy.tree import Document, Limits, TreeError, build_values

# Cluster names become Kubernetes object names (zonectl-rotate-NAME, 52 characters at most
# for a CronJob), so they are DNS labels short enough for that prefix.
_NAME = re.compile(r"^[a-z0-9]([-a-z0-9]{0,35}[a-z0-9])?$")
_PASSWORD_IN_URI = re.compile(r"^[a-z+]+://[^@/]*:[^@/]*@", re.IGNORECASE)


@dataclass(frozen=True)
class UriSource:
    kind: Literal["env", "file", "value"]
    ref: str  # the variable name, the file path (resolved), or the URI itself
    position: Position
    written: str = ""  # the file path as written in the inventory (relative to it)

    def describe(self) -> str:
        return {"env": f"${self.ref}", "file": self.ref, "value": "inline"}[self.kind]


@dataclass(frozen=True)
class Overlay:
    shard_names: Mapping[str, str] = field(default_factory=dict)  # policy name -> real name
    extra_zones: Mapping[str, frozenset[str]] = field(default_factory=dict)  # real -> zones
    # "shardNames.NAME" / "extraZones.NAME" -> where that entry is written.
    positions: Mapping[str, Position] = field(default_factory=dict, compare=False)

    @property
    def is_empty(self) -> bool:
        return not self.shard_names and not self.extra_zones


@dataclass(frozen=True)
class Cluster:
    name: str
    uri: UriSource
    labels: Mapping[str, str]
    overlay: Overlay
    position: Position  # the `name:` value


@dataclass(frozen=True)
class Inventory:
    file: str
    clusters: tuple[Cluster, ...]
    position: Position  # the `clusters:` key, for "matches nothing"

    def names(self) -> list[str]:
        return [c.name for c in self.clusters]


def load_inventory(path: str | Path) -> Inventory:
    """Read and check an inventory file; InvalidInventoryError (exit 3) lists every problem."""
    file = str(path)
    documents, diagnostics = read_documents(file, Limits())
    inventory: Inventory | None = None
    if len(documents) > 1:
        where = documents[1].position(())
        diagnostics.append(_error("ZI112", where, "an inventory file holds one YAML document"))
    elif documents:
        inventory, problems = _parse(documents[0])
        diagnostics += problems
    diagnostics = sorted_diagnostics(diagnostics)
    if inventory is None or has_errors(diagnostics):
        errors = sum(d.severity is Severity.ERROR for d in diagnostics)
        hint = None
        if any(d.code == "ZP100" for d in diagnostics):
            hint = "write a clusters.yaml (docs/fleet.md), or pass --inventory PATH"
        raise InvalidInventoryError(
            f"invalid inventory {file}: {errors} error(s)", diagnostics=diagnostics, hint=hint
        )
    return inventory


def _parse(doc: Document) -> tuple[Inventory | None, list[Diagnostic]]:
    try:
        data = build_values(doc, Limits())
    except TreeError as exc:
        return None, [*doc.diagnostics, exc.diagnostic]
    diagnostics = list(doc.diagnostics)
    if not isinstance(data, dict):
        message = "an inventory must be a mapping (apiVersion, kind, clusters)"
        return None, [*diagnostics, _error("ZI112", doc.position(()), message)]
    try:
        model = InventoryFileModel.model_validate(data)
    except ValidationError as exc:
        return None, diagnostics + [_schema(doc, e) for e in exc.errors()]
    clusters: list[Cluster] = []
    first: dict[str, Position] = {}
    for i, raw in enumerate(model.clusters):
        cluster, problems = _cluster(doc, i, raw)
        diagnostics += problems
        if raw.name in first:
            message = f'cluster "{raw.name}" is named twice (first at line {first[raw.name].line})'
            hint = "give each cluster one entry; use labels to group them"
            diagnostics.append(_error("ZI120", cluster.position, message, hint))
        else:
            first[raw.name] = cluster.position
        clusters.append(cluster)
    return Inventory(doc.file, tuple(clusters), doc.position(("clusters",), key=True)), diagnostics


def _cluster(doc: Document, i: int, raw: ClusterModel) -> tuple[Cluster, list[Diagnostic]]:
    path = ("clusters", i)
    problems: list[Diagnostic] = []
    where = doc.position((*path, "name"))
    if not _NAME.match(raw.name):
        problems.append(
            _error(
                "ZI121",
                where,
                f'cluster name "{raw.name}" is not a DNS label of at most 37 characters',
                "use lowercase letters, digits and '-' (it names the cluster's CronJob)",
            )
        )
    sources = {k: v for k, v in raw.uri.model_dump().items() if v is not None}
    uri_at = doc.position((*path, "uri"))
    if len(sources) != 1:
        given = ", ".join(sorted(sources)) or "none"
        problems.append(
            _error(
                "ZI133",
                uri_at,
                f"uri needs exactly one of env, file, value (given: {given})",
                "e.g. uri: {env: ZONECTL_URI_PROD}",
            )
        )
        source = UriSource("value", "", uri_at)
    else:
        kind, ref = next(iter(sources.items()))
        ref_at = doc.position((*path, "uri", kind))
        if kind == "file":
            ref = str(Path(doc.file).parent / Path(ref).expanduser())
        if kind == "value" and _PASSWORD_IN_URI.match(ref):
            problems.append(
                _error(
                    "ZI132",
                    ref_at,
                    f"cluster {raw.name}: uri.value carries a password, which would sit in "
                    "the inventory in plain text",
                    "keep the URI out of the file: write uri: {env: VAR} or uri: {file: PATH}",
                )
            )
        source = UriSource(kind, ref, ref_at, sources[kind])  # type: ignore[arg-type]
    overlay = Overlay(
        dict(raw.overlay.shardNames),
        {shard: frozenset(zones) for shard, zones in raw.overlay.extraZones.items()},
        {
            **{
                f"shardNames.{k}": doc.position((*path, "overlay", "shardNames", k), key=True)
                for k in raw.overlay.shardNames
            },
            **{
                f"extraZones.{k}": doc.position((*path, "overlay", "extraZones", k), key=True)
                for k in raw.overlay.extraZones
            },
        },
    )
    problems += _overlay_names(raw, overlay)
    return Cluster(raw.name, source, dict(raw.labels), overlay, where), problems


def _overlay_names(raw: ClusterModel, overlay: Overlay) -> list[Diagnostic]:
    """Two policy shards renamed to one real shard would merge their zones silently."""
    problems = []
    seen: dict[str, str] = {}
    for policy_name, real in overlay.shard_names.items():
        if real in seen:
            problems.append(
                _error(
                    "ZI141",
                    overlay.positions[f"shardNames.{policy_name}"],
                    f"cluster {raw.name}: shards {seen[real]} and {policy_name} are both "
                    f"renamed to {real}",
                    "map each policy shard to a different shard of this cluster",
                )
            )
        seen.setdefault(real, policy_name)
    return problems


def _schema(doc: Document, error: ErrorDetails) -> Diagnostic:
    loc = tuple(error["loc"])
    kind = error["type"]
    at = "at top level" if len(loc) <= 1 else f"in {display_path(loc[:-1])}"
    if kind == "extra_forbidden":
        allowed = ", ".join(allowed_keys(loc[:-1], InventoryFileModel))
        message = f'unknown key "{loc[-1]}" {at}'
        return _error("ZI110", doc.position(loc, key=True), message, f"allowed: {allowed}")
    if kind == "missing":
        if loc == ("apiVersion",):
            return _error("ZI113", doc.position(()), f"missing apiVersion: {API_VERSION}")
        if loc == ("kind",):
            return _error("ZI114", doc.position(()), f"missing kind: {KIND}")
        message = f'missing required key "{loc[-1]}" {at}'
        return _error("ZI111", doc.position(loc[:-1]), message)
    got = describe(error.get("input"))
    if loc == ("apiVersion",):
        message = f"apiVersion {got} is not supported; this zonectl reads {API_VERSION}"
        return _error("ZI113", doc.position(loc), message)
    if loc == ("kind",):
        return _error("ZI114", doc.position(loc), f"kind {got} is not {KIND}")
    expected = _EXPECTED.get(kind) or error["msg"][0].lower() + error["msg"][1:]
    return _error("ZI112", doc.position(loc), f"{display_path(loc)}: {expected}, got {got}")


_EXPECTED = {
    "string_type": "expected a string",
    "dict_type": "expected a mapping",
    "model_type": "expected a mapping",
    "list_type": "expected a list",
}


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)


def label_keys(inventory: Inventory) -> Sequence[str]:
    return sorted({k for c in inventory.clusters for k in c.labels})
