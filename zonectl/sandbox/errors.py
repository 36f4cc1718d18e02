"""MongoDB error replies for the sandbox: a code name, its number, and the reply shape.

Codes are from src/mongo/base/error_codes.yml (reference §0); they have not changed across
versions. A `CommandError` raised anywhere in a command handler becomes
`{ok: 0, errmsg, code, codeName}` on the wire.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.bsontypes import type_name

CODES: dict[str, int] = {
    "InternalError": 1,
    "BadValue": 2,
    "NoSuchKey": 4,
    "GraphContainsCycle": 5,
    "HostUnreachable": 6,
    "HostNotFound": 7,
    "UnknownError": 8,
    "FailedToParse": 9,
    "CannotMutateObject": 10,
    "UserNotFound": 11,
    "UnsupportedFormat": 12,
    "Unauthorized": 13,
    "TypeMismatch": 14,
    "Overflow": 15,
    "InvalidLength": 16,
    "ProtocolError": 17,
    "AuthenticationFailed": 18,
    "IllegalOperation": 20,
    "EmptyArrayOperation": 21,
    "InvalidBSON": 22,
    "NamespaceNotFound": 26,
    "IndexNotFound": 27,
    "LockBusy": 46,
    "NamespaceExists": 48,
    "MaxTimeMSExpired": 50,
    "DollarPrefixedFieldName": 52,
    "InvalidIdField": 53,
    "NotSingleValueField": 54,
    "CommandNotFound": 59,
    "ShardKeyNotFound": 61,
    "OplogOperationUnsupported": 62,
    "ShardNotFound": 70,
    "InvalidOptions": 72,
    "InvalidNamespace": 73,
    "CommandNotSupported": 115,
    "NodeNotFound": 74,
    "CursorNotFound": 43,
    "ImmutableField": 66,
    "ConflictingUpdateOperators": 40,
    "ConflictingOperationInProgress": 117,
    "FailedToSatisfyReadPreference": 133,
    "NamespaceNotSharded": 118,
    "DocumentValidationFailure": 121,
    "ChunkTooBig": 153,
    "ZoneStillInUse": 163,
    "ZoneNotFound": 177,
    "RangeOverlapConflict": 178,
    "BalancerInterrupted": 194,
    "NotImplemented": 238,
    "ReshardCollectionInProgress": 338,
    "NoSuchReshardCollection": 339,
    "ReshardCollectionCommitted": 340,
    "ReshardCollectionAborted": 341,
    "Location": 0,  # placeholder name for numeric assertions; see `assertion`
    "DuplicateKey": 11000,
    "Interrupted": 11601,
    "StaleConfig": 13388,
    "IDLFailedToParse": 40414,
    "IDLUnknownField": 40415,
}

_NAMES: dict[int, str] = {code: name for name, code in CODES.items() if code}


class CommandError(Exception):
    """A command failed the way MongoDB fails it. `code` None means an errmsg-only reply
    (the 4.4/5.0 moveChunk parser does that, reference §4.1)."""

    def __init__(
        self,
        code: int | None,
        message: str,
        code_name: str | None = None,
        **extra: Any,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.code_name = code_name if code_name is not None else _NAMES.get(code or -1)
        self.extra = extra

    @classmethod
    def of(cls, code_name: str, message: str, **extra: Any) -> CommandError:
        return cls(CODES[code_name], message, code_name, **extra)

    @classmethod
    def assertion(cls, number: int, message: str) -> CommandError:
        """A numeric uassert (50973, 656450, ...): codeName is "Location<number>"."""
        return cls(number, message, f"Location{number}")

    def reply(self) -> dict[str, Any]:
        doc: dict[str, Any] = {"ok": 0.0, "errmsg": self.message}
        if self.code is not None:
            doc["code"] = self.code
            if self.code_name:
                doc["codeName"] = self.code_name
        doc.update(self.extra)
        return doc


def max_time_expired() -> CommandError:
    """What a command answers when its `maxTimeMS` runs out while it waits."""
    return CommandError.of("MaxTimeMSExpired", "operation exceeded time limit")


def required_object(body: Mapping[str, Any], command: str, field: str) -> dict[str, Any]:
    """An IDL-required object field of a command, with the server's two parse errors
    (IDLFailedToParse when missing, TypeMismatch when not an object)."""
    if field not in body:
        raise CommandError.of(
            "IDLFailedToParse", f"BSON field '{command}.{field}' is missing but a required field"
        )
    value = body[field]
    if not isinstance(value, Mapping):
        raise CommandError.of(
            "TypeMismatch",
            f"BSON field '{command}.{field}' is the wrong type '{type_name(value)}', "
            "expected type 'object'",
        )
    return dict(value)
