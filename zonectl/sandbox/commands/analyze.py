"""`analyzeShardKey` (7.0+): shard-key characteristics from the sandbox's simulated data.

As MongoDB builds it (mongo:src/mongo/s/commands/cluster_analyze_shard_key_cmd.cpp on the
router, src/mongo/db/s/analyze_shard_key_cmd.cpp and analyze_shard_key_cmd_util.cpp on
the shard, output fields from src/mongo/s/analyze_shard_key_cmd.idl and the manual page
"analyzeShardKey", Output):
  * admin only; authorization is the `analyzeShardKey` action on the exact namespace, and a
    refusal reads just "Unauthorized" (doCheckAuthorization's uassert);
  * validateNamespace: admin/config/local -> IllegalOperation "Cannot run against an
    internal collection"; `system.*` -> "Cannot run against a system collection";
  * keyCharacteristics and readWriteDistribution both false -> InvalidOptions "Cannot skip
    analyzing all metrics"; sampleRate and sampleSize together -> InvalidOptions;
  * validateCollectionOptions (analyze_shard_key_util.cpp): a time-series collection ->
    IllegalOperation "Operation not supported for a timeseries collection", a view ->
    CommandNotSupportedOnView "Operation not supported for a view", a missing collection
    -> NamespaceNotFound "The namespace does not exist";
  * the key must be a valid shard-key pattern (validateShardKeyPattern), and an index must
    support it (its prefix); without one, keyCharacteristics are left out, or with
    readWriteDistribution false the command fails IllegalOperation;
  * keyCharacteristics = {numDocsTotal, avgDocSizeBytes, numDocsSampled, isUnique,
    numDistinctValues, mostCommonValues: [{value, frequency}] (analyzeShardKeyNumMostCommon
    Values = 5, most frequent first), monotonicity: {recordIdCorrelationCoefficient, type}}
    with type "monotonic" when |coefficient| >= analyzeShardKeyMonotonicityCorrelation
    CoefficientThreshold (0.7); a hashed first field is "not monotonic" with coefficient 0,
    a hashed later field "unknown" without one (calculateMonotonicity). numOrphanDocs and
    `note` appear only when there are orphans, and the sandbox has none;
  * numDocsSampled is min(numDocsTotal, sampleSize or analyzeShardKeyCharacteristics
    DefaultSampleSize = 10,000,000), or sampleRate * numDocsTotal;
  * readDistribution/writeDistribution from the samples the sandbox's sampler stored
    (rw_distribution.py); with none, only their zero `sampleSize` counters (the manual:
    "returns the read and write distribution metrics as 0 values").
Figures come from the chunk store (counts, sizes) and doc_keys (distinct values, skew,
insert order); an unsharded collection is analyzed from its stored documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.auth.roles import is_allowed
from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.commands import key_characteristics, rw_distribution
from zonectl.sandbox.commands.analysis_util import (
    reject_unknown_fields,
    validate_collection,
    validate_namespace,
)
from zonectl.sandbox.commands.authz import shell_repr
from zonectl.sandbox.commands.move_rules import typed_namespace
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError, required_object

_FIELDS = {"analyzeShardKey", "key", "keyCharacteristics", "readWriteDistribution",
           "sampleRate", "sampleSize"}  # fmt: skip


def _authorize(request: Request) -> bool:
    if not is_allowed(request.session.roles, _ns_for_auth(request), "analyzeShardKey"):
        raise CommandError.of("Unauthorized", "Unauthorized")
    return True


def _ns_for_auth(request: Request) -> str:
    value = request.body.get("analyzeShardKey")
    return value if isinstance(value, str) else ""


@command(
    "analyzeShardKey",
    admin_only=True,
    supports_write_concern=False,
    authorize=_authorize,
    exists_in=lambda version: version.version_array[0] >= 7,
)
def analyze_shard_key(request: Request) -> dict[str, Any]:
    body = request.body
    reject_unknown_fields(body, "analyzeShardKey", _FIELDS | {"$audit"})
    ns = typed_namespace(request)
    key = required_object(body, "analyzeShardKey", "key")
    characteristics = _flag(body, "keyCharacteristics")
    distribution = _flag(body, "readWriteDistribution")
    rate, size = _sampling(body)
    # The router checks the namespace (validateNamespace), then the shard checks the options
    # and the collection (analyze_shard_key_cmd.cpp typedRun, in this order).
    validate_namespace(ns)
    if not characteristics and not distribution:
        raise CommandError.of("InvalidOptions", "Cannot skip analyzing all metrics")
    if rate is not None and size is not None:
        raise CommandError.of("InvalidOptions", "Cannot specify both 'sampleRate' and 'sampleSize'")
    sandbox = request.sandbox
    validate_collection(sandbox, ns)
    _validate_pattern(key)
    reply: dict[str, Any] = {}
    if characteristics:
        metrics = key_characteristics.characteristics(sandbox, ns, key, rate, size)
        if metrics is None and not distribution:
            raise CommandError.of(
                "IllegalOperation",
                "Cannot analyze the characteristics of a shard key that does not have a "
                "supporting index",
            )
        if metrics is not None:
            reply["keyCharacteristics"] = metrics
    if distribution:
        reply.update(rw_distribution.read_write_distribution(sandbox, ns, key))
    return reply


def _flag(body: Mapping[str, Any], name: str) -> bool:
    value = body.get(name, True)
    if not isinstance(value, bool):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field 'analyzeShardKey.{name}' is the wrong type '{type_name(value)}', "
            "expected type 'bool'",
        )
    return value


def _sampling(body: Mapping[str, Any]) -> tuple[float | None, int | None]:
    rate, size = body.get("sampleRate"), body.get("sampleSize")
    if rate is not None and not (isinstance(rate, int | float) and 0 < rate <= 1):
        # IDL validator {gt: 0, lte: 1}; the wording is the IDL's bounds message.
        raise CommandError.of(
            "BadValue", f"BSON field 'sampleRate' value must be > 0 and <= 1, actual value '{rate}'"
        )
    if size is not None and not (isinstance(size, int) and size > 0):
        raise CommandError.of(
            "BadValue", f"BSON field 'sampleSize' value must be > 0, actual value '{size}'"
        )
    return (float(rate) if rate is not None else None), size


def _validate_pattern(key: Mapping[str, Any]) -> None:
    """ShardKeyPattern: ascending fields, or one hashed field (validateShardKeyPattern)."""
    values = list(key.values())
    hashed = sum(v == "hashed" for v in values)
    ascending = all(v == "hashed" or (_is_number(v) and v == 1) for v in values)
    if not key or hashed > 1 or not ascending:
        shown = shell_repr(dict(key))
        raise CommandError.of(
            "BadValue",
            f"Unsupported shard key pattern {shown}. Pattern must either be a single hashed "
            "field, or a list of ascending fields",
        )


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)
