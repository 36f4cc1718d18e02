"""The cluster-file schema (pydantic, extra fields forbidden) and its YAML loading with positions.

A malformed file raises `SeedError` naming the file, line, column and field, using the line
information ruamel's round-trip loader keeps for every key and list item.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)
from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from zonectl.errors import ZonectlError
from zonectl.sandbox.rates import parse_rate
from zonectl.sandbox.seed.config_server_spec import ConfigServerSpec
from zonectl.sandbox.seed.volume_spec import Compression, DiskSpec, IndexBytes


class SeedError(ZonectlError):
    """A cluster file that cannot be loaded: `file:line:col: field: problem`."""


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


class ShardSpec(_Model):
    name: str
    host: str | None = None
    zones: list[str] = []
    # This shard's migration copy rate (e.g. archive disks: "20MiB/s"); a migration runs at
    # the slower of its donor's and recipient's rates. Default: balancer.copyRate.
    copyRate: str | None = None
    disk: DiskSpec | None = None  # the shard's volume (volume_spec.py)
    # Being drained (removeShard or startShardDraining was run): config.shards `draining:
    # true`, so the balancer moves its chunks off (a twin of a cluster caught mid-drain).
    draining: bool = False

    @field_validator("copyRate")
    @classmethod
    def _rate(cls, value: str | None) -> str | None:
        if value is not None:
            parse_rate(value)
        return value


class SpareShardSpec(_Model):
    """A replica set a rehearsal may add with addShard (new hardware): `host` is its
    connection string "set/host:port,...", `name` only a label (addShard names the shard)."""

    name: str
    host: str

    @field_validator("host")
    @classmethod
    def _replica_set(cls, value: str) -> str:
        set_name, slash, members = value.partition("/")
        if not (set_name and slash and members):
            raise ValueError(f"{value!r} is not a replica set connection string: 'set/host:port'")
        return value


class DatabaseSpec(_Model):
    name: str
    primary: str | None = None


class KeySpec(_Model):
    """How chunk boundaries of the key's first field are generated."""

    type: Literal["date", "int", "hashed", "objectId", "list", "bounds"]
    start: Any = None  # date/objectId: ISO date; int: number
    step: str | int | float | None = None  # date/objectId: "1h", "30m", "1d" or seconds
    # list: explicit values of the first field; bounds: explicit split points as key
    # documents ({bucket: 2, ts: {$date: ...}}), missing trailing fields MinKey
    values: list[Any] = []


class ChunkSizeSpec(_Model):
    bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    docs: int = Field(default=100_000, ge=0)


class DocumentsSpec(_Model):
    """What the chunks' documents hold, for analyzeShardKey (doc_keys.py). All optional."""

    distinct: int | None = Field(default=None, ge=1)  # distinct shard-key values
    topFrequency: int | None = Field(default=None, ge=1)  # docs of the most common value
    inserts: Literal["ascending", "descending", "random"] | None = None
    prefixDistinct: dict[str, int] = {}  # "country" or "a,b" -> distinct values


class QueryShapeSpec(_Model):
    """One shape of the simulated workload (sampling/workload.py): `key` (equality on the
    whole shard key), `range` (a range of its first field), `field` (equality on `field`)."""

    match: Literal["key", "range", "field"]
    field: str | None = None
    command: Literal[
        "find", "aggregate", "count", "distinct", "update", "delete", "findAndModify"
    ] = "find"
    rate: float = Field(gt=0, le=100_000)  # queries per second of sandbox time
    changesKey: bool = False  # update/findAndModify: $set the key's first field

    @model_validator(mode="after")
    def _consistent(self) -> QueryShapeSpec:
        if (self.match == "field") != (self.field is not None):
            raise ValueError("'field' is named exactly when match is 'field'")
        if self.changesKey and self.command not in ("update", "findAndModify"):
            raise ValueError("changesKey is for update and findAndModify shapes")
        return self


class QueryAnalyzerSpec(_Model):
    """The collection's config.queryAnalyzers document as configureQueryAnalyzer leaves it
    (7.0+; QueryAnalyzerDocument, mongo:src/mongo/s/analyze_shard_key_documents.idl):
    `_id` the collection's UUID and `ns` come from the collection; mode "full" samples at
    samplesPerSecond; mode "off" keeps the document with its stopTime (and the rate it had).
    startTime/stopTime are Extended JSON dates ({$date: ...}); startTime defaults to when the
    seeded sandbox's workload starts. A twin carries the captured document here."""

    mode: Literal["full", "off"] = "full"
    samplesPerSecond: float | None = Field(default=None, gt=0, le=50)  # kMaxSamplesPerSecond
    startTime: Any = None
    stopTime: Any = None

    @model_validator(mode="after")
    def _rate_when_full(self) -> QueryAnalyzerSpec:
        if self.mode == "full" and self.samplesPerSecond is None:
            raise ValueError("mode 'full' needs samplesPerSecond (above 0, at most 50)")
        return self


class CollectionSpec(_Model):
    ns: str
    key: dict[str, Any]
    unique: bool = False
    chunks: int = Field(default=1, ge=1)
    keys: KeySpec | None = None
    distribution: Literal["round-robin", "all-on-one", "by-weight", "listed"] = "round-robin"
    shard: str | None = None  # all-on-one target (default: the database primary)
    placement: list[str] = []  # listed: the shard of each chunk, in key order
    weights: dict[str, float] = {}  # by-weight: shard -> weight
    chunkSize: ChunkSizeSpec = ChunkSizeSpec()
    noBalance: bool = False
    jumbo: list[int] = []  # chunk indexes to mark jumbo
    documents: DocumentsSpec | None = None
    workload: list[QueryShapeSpec] = []
    queryAnalyzer: QueryAnalyzerSpec | None = None
    compression: float | None = Compression  # storageSize / size (volume_spec.py)
    indexBytesPerDocument: float | None = IndexBytes


class UnshardedSpec(_Model):
    """An unsharded collection, with nominal sizes, on its database's primary shard or,
    8.0+, where a moveCollection put it (`shard`: then tracked, as after the move)."""

    ns: str
    shard: str | None = None  # absent: the database's primary
    bytes: int = Field(default=1024 * 1024, ge=0)
    docs: int = Field(default=1000, ge=0)
    type: Literal["collection", "view", "timeseries", "capped"] = "collection"
    compression: float | None = Compression  # storageSize / size (volume_spec.py)
    indexBytesPerDocument: float | None = IndexBytes


class ZoneRangeSpec(_Model):
    ns: str
    min: dict[str, Any]
    max: dict[str, Any]
    zone: str


class WindowSpec(_Model):
    start: str
    stop: str


class BalancerSpec(_Model):
    enabled: bool = True
    activeWindow: WindowSpec | None = None
    chunkSizeMB: int | None = Field(default=None, ge=1, le=1024)
    # `{_id: "automerge", enabled}` (7.0+ reads it; balancer-settings.md §3.1). Absent: no
    # document, i.e. the auto-merger runs whenever the balancer does.
    autoMerger: bool | None = None
    # Simulated migration costs (zonectl/sandbox/balancer/costs.py): the copy rate of shards
    # without their own, e.g. "40MiB/s" (default 64MiB/s); a per-document part of the clone;
    # each migration scaled by a seeded factor in [1 - jitter, 1 + jitter].
    copyRate: str | None = None
    perDocumentMicros: float | None = Field(default=None, ge=0)
    jitter: float | None = Field(default=None, ge=0, lt=1)
    jitterSeed: int | None = None

    @field_validator("copyRate")
    @classmethod
    def _rate(cls, value: str | None) -> str | None:
        if value is not None:
            parse_rate(value)  # ValueError: reported at the field's file:line:col
        return value


class UserSpec(_Model):
    user: str
    pwd: str
    db: str = "admin"
    roles: list[str | dict[str, str]] = []


class WorkloadSpec(_Model):
    """`warmup`: sandbox time of workload already run when a seeded sandbox starts ("10m"),
    so the samples of collections with a queryAnalyzer are there from the first command."""

    warmup: str = "0s"


class PairRateSpec(_Model):
    donor: str
    recipient: str
    bytesPerSecond: float = Field(gt=0)


class TwinCostsSpec(_Model):
    """The twin's cost model, learned from config.changelog (or assumed), and from where."""

    source: str
    migrations: int = Field(default=0, ge=0)
    fixedSeconds: float | None = Field(default=None, ge=0)
    copyRateBytesPerSecond: float | None = Field(default=None, gt=0)
    shardRatesBytesPerSecond: dict[str, float] = {}
    pairRatesBytesPerSecond: list[PairRateSpec] = []
    perDocumentMicros: float | None = Field(default=None, ge=0)


class TwinSpec(_Model):
    """What `zonectl twin` captured (docs/twin.md): the exact chunks in a sidecar file
    beside this one, the raw config.settings documents, per-collection config fields, the
    learned costs, and notes on what could not be read."""

    format: Literal[1] = 1
    capturedFrom: str
    capturedAt: str | None = None
    serverVersion: str | None = None
    versionSource: str | None = None
    chunks: str  # the sidecar, relative to this file: .bson or .jsonl (Extended JSON lines)
    sizes: str = ""
    anonymized: bool = False
    settings: list[dict[str, Any]] = []
    collectionFields: dict[str, dict[str, Any]] = {}
    costs: TwinCostsSpec | None = None
    notes: list[str] = []
    history: int = Field(default=0, ge=0)  # changelog entries in the sidecar, after chunks


class ClusterFile(_Model):
    version: str | None = None
    # The binary's own release (the default) or the last LTS before it: catalog/fcv.py.
    featureCompatibilityVersion: str | None = None
    shards: list[ShardSpec]
    spareShards: list[SpareShardSpec] = []
    databases: list[DatabaseSpec] = []
    collections: list[CollectionSpec] = []
    unsharded: list[UnshardedSpec] = []
    zones: list[ZoneRangeSpec] = []
    balancer: BalancerSpec | None = None
    users: list[UserSpec] = []
    workload: WorkloadSpec = WorkloadSpec()
    twin: TwinSpec | None = None
    # The config server's startup parameters (config_server_spec.py).
    configServer: ConfigServerSpec = ConfigServerSpec()


def load_cluster_file(path: str | Path, text: str | None = None) -> ClusterFile:
    """Parse and validate a cluster file; every problem is reported at file:line:col."""
    path = Path(path)
    try:
        source = text if text is not None else path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SeedError(f"{path}: cannot read cluster file: {exc.strerror or exc}") from None
    try:
        data = YAML(typ="rt").load(source)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark
        where = f"{path}:{mark.line + 1}:{mark.column + 1}" if mark else str(path)
        raise SeedError(f"{where}: invalid YAML: {exc.problem}") from None
    if not isinstance(data, dict):
        raise SeedError(f"{path}:1:1: a cluster file is a mapping with at least 'shards'")
    try:
        return ClusterFile.model_validate(_plain(data))
    except ValidationError as exc:
        lines = []
        for err in exc.errors():
            loc = tuple(err["loc"])
            line, col = position(data, loc)
            field = _field_name(loc)
            lines.append(f"{path}:{line}:{col}: field '{field}': {err['msg']}")
        hint = None
        if data.get("kind") == "ZonePolicy" or "apiVersion" in data:
            hint = (
                "this is a zonectl policy, not a sandbox cluster file (the shards, databases "
                "and collections a cluster holds, as in policies/examples/clusters/); a "
                "policy is the argument of validate, plan and apply"
            )
        # one problem per line: the first is the message, the others its details
        raise SeedError(lines[0], details=lines[1:], hint=hint) from None


def position(data: Any, loc: tuple[Any, ...]) -> tuple[int, int]:
    """1-based line/column of the deepest node of `loc` that exists in the YAML tree."""
    line, col = 1, 1
    node: Any = data
    for part in loc:
        try:
            if isinstance(part, int) and isinstance(node, list):
                ln, cl = getattr(node, "lc").item(part)  # noqa: B009 - ruamel's position data
                node = node[part]
            elif isinstance(node, dict) and part in node:
                ln, cl = getattr(node, "lc").key(part)  # noqa: B009
                node = node[part]
            else:
                break
        except (AttributeError, KeyError, IndexError, TypeError):
            break
        line, col = ln + 1, cl + 1
    return line, col


def _field_name(loc: tuple[Any, ...]) -> str:
    out = ""
    for part in loc:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def _plain(node: Any) -> Any:
    """ruamel's round-trip containers as plain dicts/lists (keeps scalar types)."""
    if isinstance(node, dict):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    return node
