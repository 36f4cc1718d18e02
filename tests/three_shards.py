"""The three-shard cluster the shard-lifecycle tests share, as a sandbox cluster file:
app.users in 4 chunks of 4 MiB, [MinKey, DE) on s0, [DE, FR) and [FR, US) on s1 (the second
one jumbo), [US, MaxKey) on s2; zone eu (s0, s1) has [DE, US), zone us (s2) [US, MaxKey);
s1 is the primary of database app and holds its unsharded app.settings."""

from __future__ import annotations

THREE_SHARDS = """
shards:
  - {name: s0, zones: [eu]}
  - {name: s1, zones: [eu]}
  - {name: s2, zones: [us]}
databases:
  - {name: app, primary: s1}
  - {name: shop, primary: s0}
collections:
  - ns: app.users
    key: {country: 1}
    keys: {type: list, values: [DE, FR, US]}
    distribution: listed
    placement: [s0, s1, s1, s2]
    chunkSize: {bytes: 4194304, docs: 10000}
    jumbo: [2]
zones:
  - {ns: app.users, min: {country: DE}, max: {country: US}, zone: eu}
  - {ns: app.users, min: {country: US}, max: {country: {$maxKey: 1}}, zone: us}
unsharded:
  - {ns: app.settings}
"""

# The same cluster caught mid-drain: s1 is draining (`draining: true`).
S1_DRAINING = THREE_SHARDS.replace(
    "{name: s1, zones: [eu]}", "{name: s1, zones: [eu], draining: true}"
)

# The policy that removes s1 and keeps the other two shards in their zones.
REMOVE_S1 = """apiVersion: zonectl/v1
kind: ZonePolicy
shards:
  s0: [eu]
  s1: {state: removed}
  s2: [us]
"""
