"""The audit trail: one record per apply or recover in zonectl's own database (`audit`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pymongo.errors import PyMongoError

from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Client
from zonectl.redaction import redact_values


class MongoAudit:
    def __init__(self, client: Client, database: str) -> None:
        self.coll = client[database]["audit"]

    def write(self, doc: Mapping[str, Any]) -> None:
        try:
            self.coll.insert_one(redact_values(doc))  # reasons quote server text
        except PyMongoError as exc:
            raise ClusterError(f"writing the audit record failed: {redact(str(exc))}") from None
