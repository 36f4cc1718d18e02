"""refineCollectionShardKey (4.4+): extend a sharded collection's key with suffix fields.

Checks, in the order mongo:jstests/sharding/refine_collection_shard_key_basic.js meets them:
- `key` missing: IDLFailedToParse (40414); `key` not an object: TypeMismatch;
- database or collection missing: NamespaceNotFound; not sharded: NamespaceNotSharded;
- a bad pattern ({_id: 5}, two hashed fields, {}): BadValue;
- the same key as now: ok, nothing changes;
- a key that does not start with the current key's fields, in order: InvalidOptions;
- no index starting with the new key: InvalidOptions; an index that is sparse, partial or
  has a non-simple collation does not count, and the message says why
  ("Index key is sparse.", "Index key is partial.", "Index has a non-simple collation.").
  A multikey index is refused by the server too; the sandbox keeps no index data, so it
  cannot tell (docs/sandbox-fidelity.md).
The rewrite itself is `catalog.refine`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.catalog import refine
from zonectl.sandbox.catalog.shard_collection import parse_key
from zonectl.sandbox.commands.indexes import index_specs
from zonectl.sandbox.commands.move_rules import routing_store, typed_namespace
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.tostring import to_string

_NO_INDEX = (
    "Please create an index that starts with the proposed shard key before sharding the collection."
)


@command("refineCollectionShardKey", admin_only=True)
def refine_collection_shard_key(request: Request) -> dict[str, Any]:
    ns = typed_namespace(request)
    if "key" not in request.body:
        raise CommandError.of(
            "IDLFailedToParse",
            "BSON field 'refineCollectionShardKey.key' is missing but a required field",
        )
    key = request.body["key"]
    if not isinstance(key, Mapping):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'refineCollectionShardKey.key' is the wrong type '{type_name(key)}', "
            "expected type 'object'",
        )
    cluster = request.sandbox.cluster
    routing_store(cluster, ns)
    new_key = parse_key({"key": dict(key)}, "refineCollectionShardKey")
    current = cluster.key_pattern(ns) or {}
    if new_key == current:
        return {}
    if list(new_key)[: len(current)] != list(current) or any(
        new_key[f] != current[f] for f in current
    ):
        raise CommandError.of(
            "InvalidOptions",
            f"refineCollectionShardKey: the proposed shard key {to_string(new_key)} does not "
            f"extend the current shard key {to_string(current)}",
        )
    unique = bool((cluster.collection_doc(ns) or {}).get("unique"))
    _check_index(index_specs(request.sandbox, ns), new_key, unique)
    refine.refine(cluster, ns, new_key)
    return {}


def _check_index(specs: list[dict[str, Any]], key: dict[str, Any], unique: bool) -> None:
    """validateShardKeyIndexExistsOrCreateIfPossible for refine (it never creates one)."""
    reasons: list[str] = []
    for spec in specs:
        fields = list(dict(spec["key"]).items())
        prefix = fields[: len(key)] == list(key.items())
        if not prefix or (unique and len(fields) != len(key)):
            continue
        why = []
        if spec.get("sparse"):
            why.append("Index key is sparse.")
        if "partialFilterExpression" in spec:
            why.append("Index key is partial.")
        collation = spec.get("collation")
        if isinstance(collation, Mapping) and collation.get("locale", "simple") != "simple":
            why.append("Index has a non-simple collation.")
        if not why:
            return
        reasons.append(f"Index {spec.get('name')}: {' '.join(why)}")
    detail = f" {' '.join(reasons)}" if reasons else ""
    raise CommandError.of("InvalidOptions", f"{_NO_INDEX}{detail}")
