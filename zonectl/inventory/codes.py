"""The stable diagnostic codes of the inventory file (clusters.yaml), one line each.

Reading the YAML itself (syntax, encoding, size, duplicate keys) reports the policy
loader's ZP1xx codes: it is the same reader.
"""

from __future__ import annotations

CODES: dict[str, str] = {
    "ZI110": "unknown key",
    "ZI111": "missing required key",
    "ZI112": "wrong type or value",
    "ZI113": "unsupported apiVersion",
    "ZI114": "kind is not ClusterInventory",
    "ZI120": "a cluster is named twice",
    "ZI121": "a cluster name is not a DNS label",
    "ZI130": "the URI's environment variable is unset or empty",
    "ZI131": "the URI file cannot be read or is empty",
    "ZI132": "a URI written in the inventory carries a password",
    "ZI133": "uri names more than one source, or none",
    "ZI134": "the URI does not parse (what is wrong is named, the URI never quoted)",
    "ZI135": "a URI file a pod cannot mount (not in a directory below the inventory's)",
    "ZI140": "an overlay renames a shard the policy does not name",
    "ZI141": "an overlay gives two policy shards the same real name",
    "ZI142": "an overlay names a shard the cluster lacks",
    "ZI150": "no cluster matches the selection",
}
