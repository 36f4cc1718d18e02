"""The fleet's inventory: the inventory file (clusters.yaml), selecting clusters from it,
resolving their URIs, and per-cluster overlays applied to the desired state.

Entry points: `load_inventory`, `select_clusters`, `read_uris`, `apply_overlay`.
"""

from __future__ import annotations

from zonectl.inventory.clusters import Cluster, Inventory, Overlay, UriSource, load_inventory
from zonectl.inventory.overlay import apply_overlay, check_overlay_policy, check_overlay_shards
from zonectl.inventory.select import parse_selectors, read_uris, select_clusters

__all__ = [
    "Cluster",
    "Inventory",
    "Overlay",
    "UriSource",
    "apply_overlay",
    "check_overlay_policy",
    "check_overlay_shards",
    "load_inventory",
    "parse_selectors",
    "read_uris",
    "select_clusters",
]
