"""The `$jsonSchema` validator a 7.0+ config server keeps on `config.settings`, per FCV.

balancer-settings.md §2.3: FCV 6.2/7.0 constrains the `chunksize` document (and names the
other `_id`s allowed), FCV 8.0 adds the `balancer` document's schema, 8.3 allows
`activeWindowDOW` in it (mongo:src/mongo/s/balancer_configuration.cpp `kSchema`,
`ShardingCatalogManager::_initConfigSettings`). A write that fails it is
DocumentValidationFailure (121) "Document failed validation" with `errInfo`, shaped as
mongod's doc_validation_error.cpp explains a `$jsonSchema` (the shapes are from memory).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bson import Decimal128, Int64

from zonectl.sandbox.catalog import fcv
from zonectl.sandbox.catalog.namespaces import Catalog
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.versions import VersionProfile

SETTINGS_NS = "config.settings"

_CHUNKSIZE: dict[str, Any] = {
    "properties": {
        "_id": {"enum": ["chunksize"]},
        "value": {"bsonType": "number", "minimum": 1, "maximum": 1024},
    },
    "additionalProperties": False,
}


def _balancer(dow: bool) -> dict[str, Any]:
    props: dict[str, Any] = {
        "_id": {"enum": ["balancer"]},
        "mode": {"enum": ["full", "off"]},
        "stopped": {"bsonType": "bool"},
        "activeWindow": {"bsonType": "object", "required": ["start", "stop"]},
    }
    if dow:
        props["activeWindowDOW"] = {"bsonType": "array"}
    props.update(
        {
            "_secondaryThrottle": {"oneOf": [{"bsonType": "bool"}, {"bsonType": "object"}]},
            "_waitForDelete": {"bsonType": "bool"},
            "attemptToBalanceJumboChunks": {"bsonType": "bool"},
        }
    )
    return {"properties": props, "additionalProperties": False}


def schema_for(version: VersionProfile, at_fcv: tuple[int, int]) -> dict[str, Any] | None:
    """The validator on config.settings for this binary at this FCV (None: none)."""
    if version.version_array[:2] < [7, 0] or at_fcv < (7, 0):
        return None  # 6.2 brought it (FCV-gated); 5.0/6.0 have none
    if at_fcv < (8, 0):
        # 7.0 release: the autosplit _id is gone (ansible community.mongodb#625 dump).
        noop = {"properties": {"_id": {"enum": ["balancer", "automerge",
                                                "ReadWriteConcernDefaults", "audit"]}}}  # fmt: skip
        return {"$jsonSchema": {"oneOf": [_CHUNKSIZE, noop]}}
    noop = {"properties": {"_id": {"enum": ["automerge", "ReadWriteConcernDefaults", "audit"]}}}
    balancer = _balancer(dow=version.has_window_dow and at_fcv >= (8, 3))
    return {"$jsonSchema": {"oneOf": [balancer, _CHUNKSIZE, noop]}}


def check_write(catalog: Catalog, version: VersionProfile, ns: str, doc: Mapping[str, Any]) -> None:
    """Raise DocumentValidationFailure if `doc` may not be stored in `ns` (strict level:
    every insert and update, whatever the document was before)."""
    if ns != SETTINGS_NS:
        return
    validator = schema_for(version, fcv.current(catalog, version))
    if validator is None:
        return
    schema = validator["$jsonSchema"]
    failures = _explain(schema, doc)
    if failures:
        raise CommandError.of(
            "DocumentValidationFailure",
            "Document failed validation",
            errInfo={
                "failingDocumentId": doc.get("_id"),
                "details": {"operatorName": "$jsonSchema", "schemaRulesNotSatisfied": failures},
            },
        )


_BSON_TYPES = {
    "bool": "bool",
    "int": "int",
    "long": "long",
    "double": "double",
    "decimal": "decimal",
    "string": "string",
    "object": "object",
    "array": "array",
    "null": "null",
}


def _type_of(value: Any) -> str:
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, Int64):
        return "long"
    if isinstance(value, int):
        return "int" if -(2**31) <= value < 2**31 else "long"
    if isinstance(value, float):
        return "double"
    if isinstance(value, Decimal128):
        return "decimal"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, list | tuple):
        return "array"
    if value is None:
        return "null"
    return type(value).__name__


def _matches_type(value: Any, wanted: str) -> bool:
    actual = _type_of(value)
    if wanted == "number":
        return actual in ("int", "long", "double", "decimal")
    return actual == _BSON_TYPES.get(wanted, wanted)


def _number(value: Any) -> float:
    return float(value.to_decimal()) if isinstance(value, Decimal128) else float(value)


def _explain(schema: Mapping[str, Any], value: Any) -> list[dict[str, Any]]:
    """The rules of `schema` that `value` breaks ([] when it satisfies them)."""
    out: list[dict[str, Any]] = []
    if "bsonType" in schema and not _matches_type(value, schema["bsonType"]):
        out.append(
            {
                "operatorName": "bsonType",
                "specifiedAs": {"bsonType": schema["bsonType"]},
                "reason": "type did not match",
                "consideredValue": value,
                "consideredType": _type_of(value),
            }
        )
        return out  # the other keywords only apply to values of the type
    if "enum" in schema and value not in schema["enum"]:
        out.append(
            {
                "operatorName": "enum",
                "specifiedAs": {"enum": list(schema["enum"])},
                "reason": "value was not found in enum",
                "consideredValue": value,
            }
        )
    for bound, sign in (("minimum", 1), ("maximum", -1)):
        numeric = bound in schema and _matches_type(value, "number")
        if numeric and sign * (_number(value) - schema[bound]) < 0:
            out.append(
                {
                    "operatorName": bound,
                    "specifiedAs": {bound: schema[bound]},
                    "reason": "comparison failed",
                    "consideredValue": value,
                }
            )
    if isinstance(value, Mapping):
        out.extend(_explain_object(schema, value))
    if "oneOf" in schema:
        out.extend(_explain_one_of(schema["oneOf"], value))
    return out


def _explain_object(schema: Mapping[str, Any], doc: Mapping[str, Any]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    required = schema.get("required", [])
    missing = [name for name in required if name not in doc]
    if missing:
        out.append(
            {
                "operatorName": "required",
                "specifiedAs": {"required": list(required)},
                "missingProperties": missing,
            }
        )
    props: Mapping[str, Any] = schema.get("properties", {})
    broken = []
    for name, sub in props.items():
        if name in doc:
            details = _explain(sub, doc[name])
            if details:
                broken.append({"propertyName": name, "details": details})
    if broken:
        out.append({"operatorName": "properties", "propertiesNotSatisfied": broken})
    if schema.get("additionalProperties") is False:
        extra = [name for name in doc if name not in props]
        if extra:
            out.append(
                {
                    "operatorName": "additionalProperties",
                    "specifiedAs": {"additionalProperties": False},
                    "additionalProperties": extra,
                }
            )
    return out


def _explain_one_of(schemas: Sequence[Mapping[str, Any]], value: Any) -> list[dict[str, Any]]:
    results = [_explain(sub, value) for sub in schemas]
    matching = [i for i, r in enumerate(results) if not r]
    if len(matching) == 1:
        return []
    if matching:
        return [
            {
                "operatorName": "oneOf",
                "specifiedAs": {"oneOf": list(schemas)},
                "reason": "more than one subschema matched",
                "matchingSchemaIndexes": matching,
            }
        ]
    return [
        {
            "operatorName": "oneOf",
            "schemasNotSatisfied": [{"index": i, "details": r} for i, r in enumerate(results)],
        }
    ]
