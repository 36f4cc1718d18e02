"""The policy file format as pydantic models: the single source of both validation and
the JSON Schema that `zonectl schema` prints for editors (yaml-language-server)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    Tag,
    create_model,
)

from zonectl.balancer_settings.row import Setting
from zonectl.balancer_settings.table import CLUSTER, COLLECTION

API_VERSION = "zonectl/v1"
KIND = "ZonePolicy"

_BOUND = Field(
    description=(
        "A shard-key bound: {field: value} in key order, values as MongoDB Extended JSON "
        '({$minKey: 1}, {$maxKey: 1}, {$date: "2026-01-01T00:00:00Z"}, {$oid: "..."}, '
        '{$numberLong: "42"}, ...). A prefix of the key is padded with MinKey.'
    ),
    json_schema_extra={"type": "object", "minProperties": 1},
)


class _Model(BaseModel):
    # strict: YAML's "yes" or "1" must not quietly become a boolean or a number.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class ActiveWindowModel(_Model):
    """The daily window in which the balancer may run (config server local time)."""

    start: StrictStr = Field(description='Start time, "HH:MM".', examples=["23:00"])
    stop: StrictStr = Field(description='Stop time, "HH:MM"; may be before start.')


def _setting_fields(rows: tuple[Setting, ...]) -> dict[str, Any]:
    """One optional field per row of the settings table (absent: not managed)."""
    return {
        r.key: (r.annotation | None, Field(None, description=f"{r.summary} ({r.since_text})"))
        for r in rows
    }


class _BalancerOwn(_Model):
    enabled: StrictBool | None = Field(None, description="Run the balancer (true) or stop it.")
    activeWindow: ActiveWindowModel | None = Field(
        None, description="Restrict balancing to a daily window; null removes the window."
    )
    timezone: StrictStr | None = Field(
        None,
        description="IANA time zone of the config server, in whose local time the balancer "
        "reads activeWindow (default UTC). Only the forecast uses it; it is never sent to "
        "the cluster. --balancer-tz overrides it.",
        examples=["Europe/Berlin"],
    )


# The settings table's rows, as fields after the model's own: a new row is a new policy
# key, nothing more here.
_BalancerSettings: Any = create_model(
    "_BalancerSettings", __base__=_BalancerOwn, **_setting_fields(CLUSTER)
)


class BalancerModel(_BalancerSettings):
    """Cluster balancer settings; absent keys are left as they are."""


class RangeModel(_Model):
    """[min, max) of the shard key belongs to `zone`."""

    zone: StrictStr = Field(description="Zone name; must be assigned to a shard under shards.")
    min: dict[StrictStr, Any] = _BOUND
    max: dict[StrictStr, Any] = _BOUND


class FirehoseModel(_Model):
    """A rolling window: [boundary, MaxKey) -> hot, [MinKey, boundary) -> cold (if set)."""

    field: StrictStr = Field(description="The first shard-key field, holding the time.")
    type: Literal["date", "objectId", "epochSeconds", "epochMillis"] = Field(
        description="How the field stores time."
    )
    schedule: StrictStr = Field(
        description="Cron expression: the boundary moves at each tick.", examples=["0 0 * * *"]
    )
    timezone: StrictStr = Field("UTC", description="IANA time zone of the schedule.")
    keep: StrictInt = Field(
        1, ge=1, description="The boundary is the keep-th most recent tick at or before now."
    )
    hot: StrictStr = Field(description="Zone of the newest data, [boundary, MaxKey).")
    cold: StrictStr | None = Field(None, description="Zone of older data, [MinKey, boundary).")


class SlicesModel(_Model):
    """Collection-per-period: the namespace is a strftime template ("metrics.events_%Y%m%d");
    the newest `keep` slices are pinned to `hot`, older ones to `cold` (if set)."""

    schedule: StrictStr = Field(
        description="Cron expression: a new slice starts at each tick.", examples=["0 0 * * *"]
    )
    timezone: StrictStr = Field("UTC", description="IANA time zone of the schedule and names.")
    keep: StrictInt = Field(1, ge=1, description="How many of the newest slices are hot.")
    hot: StrictStr = Field(description="Zone of the newest `keep` slices.")
    cold: StrictStr | None = Field(None, description="Zone of older slices (unmanaged if unset).")


class SamplingModel(_Model):
    """Query sampling (configureQueryAnalyzer, MongoDB 7.0+), for analyze's read/write
    distribution."""

    samplesPerSecond: StrictInt | StrictFloat = Field(
        gt=0,
        le=50,
        description="Queries sampled per second across the cluster; the server allows (0, 50].",
    )


def _sampling_tag(value: Any) -> str:
    return "off" if isinstance(value, str) else "rate"


# One branch reports its error: a mapping is checked as {samplesPerSecond}, a string as "off".
Sampling = Annotated[
    Annotated[SamplingModel, Tag("rate")] | Annotated[Literal["off"], Tag("off")],
    Discriminator(_sampling_tag),
]


class _CollectionOwn(_Model):
    key: dict[StrictStr, Any] | None = Field(
        None,
        description='The expected shard key, e.g. {ts: 1, _id: 1} or {_id: "hashed"}.',
        json_schema_extra={"additionalProperties": {"enum": [1, "hashed"]}},
    )
    ranges: list[RangeModel] = Field(default_factory=list, description="Explicit zone ranges.")
    pin: StrictStr | None = Field(None, description="Zone owning the whole key space.")
    firehose: FirehoseModel | None = Field(None, description="A rolling time window.")
    slices: SlicesModel | None = Field(
        None, description="Collection-per-period window; the namespace is a strftime template."
    )
    balancing: StrictBool | None = Field(None, description="Per-collection balancing switch.")
    sampling: Sampling | None = Field(
        None,
        description='Query sampling: {samplesPerSecond: N} or "off"; absent: not managed.',
    )
    migrate: Literal["eager", "balancer", "reshard"] | None = Field(
        None,
        description="eager: apply moves out-of-zone chunks itself; balancer: leave it to it; "
        "reshard (7.2+): make a zone change as one reshardCollection to the same key.",
    )
    reshard: StrictBool | None = Field(
        None,
        description="Allow reshardCollection on this collection: a key change that is not a "
        "refine, or `migrate: reshard`. Without it such a change is planned but blocked.",
    )
    partition: StrictStr | None = Field(
        None,
        description="The key's first field: the ranges partition the key space by whole "
        "values of it (a multi-hotspot key such as {bucket: 1, ts: 1}). Validation checks "
        "they cover MinKey to MaxKey and that no value of the field is split between ranges.",
    )


_CollectionSettings: Any = create_model(
    "_CollectionSettings", __base__=_CollectionOwn, **_setting_fields(COLLECTION)
)


class CollectionModel(_CollectionSettings):
    """What zonectl manages for one namespace."""


class DiskModel(_Model):
    """How full a plan may make a shard's volume: plan blocks (and apply refuses) a change
    that would take a shard past it. MongoDB has no such limit since 6.2."""

    limit: StrictStr = Field(
        description='Share of the volume (fsTotalSize), "85%" by default; over 0 % and at '
        "most 100 %.",
        examples=["85%"],
    )


class ShardModel(_Model):
    """A `shards:` entry in long form: its zones, and where it stands in its lifecycle."""

    zones: list[StrictStr] = Field(
        default_factory=list, description="Zones this shard carries (dropped when removed)."
    )
    state: Literal["active", "removed"] = Field(
        "active",
        description="active: a shard of the cluster; removed: drain everything off it and "
        "remove it from the cluster (removeShard; startShardDraining/commitShardRemoval on 8.3+).",
    )
    host: StrictStr | None = Field(
        None,
        description='Replica set seed list "rs/host:port,...": addShard when the cluster '
        "lacks this shard, before its zones are given.",
    )
    disk: DiskModel | None = Field(
        None, description="This shard's disk limit, over the cluster's `disk`."
    )


def _shard_tag(value: Any) -> str:
    return "zones" if isinstance(value, list) else "entry"


# One branch reports its error: a list is checked as the zones, a mapping as the long form.
ShardValue = Annotated[
    Annotated[list[StrictStr], Tag("zones")] | Annotated[ShardModel, Tag("entry")],
    Discriminator(_shard_tag),
]


class PolicyFileModel(_Model):
    """One zonectl policy document. Files are merged; each shard or namespace once."""

    apiVersion: Literal["zonectl/v1"] = Field(description="Format version of this file.")
    kind: Literal["ZonePolicy"] = Field(description="Always ZonePolicy.")
    balancer: BalancerModel | None = Field(None, description="Balancer settings to manage.")
    disk: DiskModel | None = Field(
        None, description='Every shard\'s disk limit ({limit: "85%"} by default).'
    )
    shards: dict[StrictStr, ShardValue] = Field(
        default_factory=dict,
        description="shard -> zones (a list), or {zones, state, host}; authoritative for "
        "every zone named here.",
    )
    collections: dict[StrictStr, CollectionModel] = Field(
        default_factory=dict,
        description='Namespace "db.collection" -> its policy. A key may be an fnmatch pattern '
        '("logs.*", "tenant_*.events") or, with `slices:`, a strftime template '
        '("metrics.events_%Y%m%d").',
    )


def policy_json_schema() -> dict[str, Any]:
    """JSON Schema (2020-12) of a policy file."""
    schema = PolicyFileModel.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "urn:zonectl:policy:v1",
        "title": "zonectl ZonePolicy (zonectl/v1)",
        **{k: v for k, v in schema.items() if k != "title"},
    }
