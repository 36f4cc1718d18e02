"""The inventory file format (clusters.yaml) as pydantic models: validation and the
allowed keys behind "did you mean" in diagnostics."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, StrictStr

KIND = "ClusterInventory"


class _Model(BaseModel):
    # strict: YAML's "yes" or 1 must not quietly become a label value or a name.
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class UriModel(_Model):
    """Where the cluster's URI comes from: exactly one of env, file, value."""

    env: StrictStr | None = Field(None, description="Environment variable holding the URI.")
    file: StrictStr | None = Field(
        None, description="File holding the URI (relative to the inventory file's directory)."
    )
    value: StrictStr | None = Field(
        None, description="The URI itself, without a password (e.g. sandbox: or a host list)."
    )


class OverlayModel(_Model):
    """Per-cluster changes to the desired state, applied before planning."""

    shardNames: dict[StrictStr, StrictStr] = Field(
        default_factory=dict, description="policy shard name -> this cluster's shard name."
    )
    extraZones: dict[StrictStr, list[StrictStr]] = Field(
        default_factory=dict,
        description="this cluster's shard name -> zones it carries in addition to the policy's.",
    )


class ClusterModel(_Model):
    name: StrictStr = Field(description="Cluster name: a DNS label (a-z, 0-9, -), 37 at most.")
    uri: UriModel = Field(description="Where the URI comes from: {env: VAR} or {file: PATH}.")
    labels: dict[StrictStr, StrictStr] = Field(
        default_factory=dict, description="Labels for --selector k=v."
    )
    overlay: OverlayModel = Field(default_factory=OverlayModel)


class InventoryFileModel(_Model):
    apiVersion: Literal["zonectl/v1"] = Field(description="Format version of this file.")
    kind: Literal["ClusterInventory"] = Field(description="Always ClusterInventory.")
    clusters: list[ClusterModel] = Field(description="The clusters, each named once.")
