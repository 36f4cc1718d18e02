"""The apply lease: one document `{_id: "apply"}` in zonectl's own database (`locks`),
taken atomically, renewed while a run lasts, and naming its holder when refused."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Mapping
from typing import Any

from pymongo import ReturnDocument
from pymongo.errors import DuplicateKeyError, PyMongoError

from zonectl.errors import ClusterError, LeaseHeldError, redact
from zonectl.mongo.connect import Client

LEASE_ID = "apply"


def describe_holder(doc: Mapping[str, Any]) -> str:
    """`cron@ops-3 (apply, plan 3f2a) since 02:00Z, expires 02:10Z`."""
    plan = doc.get("plan_id")
    what = f"{doc.get('operation', '?')}, plan {plan}" if plan else str(doc.get("operation", "?"))
    return (
        f"{doc.get('owner', '?')} (pid {doc.get('pid', '?')}, {what}) "
        f"since {_hhmm(doc.get('acquired'))}, expires {_hhmm(doc.get('expires'))}"
    )


def _hhmm(value: Any) -> str:
    if not isinstance(value, dt.datetime):
        return "?"
    if value.tzinfo is None:
        value = value.replace(tzinfo=dt.UTC)
    return str(value.astimezone(dt.UTC).strftime("%Y-%m-%d %H:%M:%SZ"))


class MongoLease:
    """pymongo I/O for the lease document; the policy (TTL, takeover) is the caller's."""

    def __init__(self, client: Client, database: str) -> None:
        self.coll = client[database]["locks"]

    def acquire(
        self,
        fields: Mapping[str, Any],
        *,
        now: dt.datetime,
        may_take: Callable[[Mapping[str, Any]], bool],
    ) -> dict[str, Any]:
        """Take the lease when free, expired, or held by a holder `may_take` accepts (a
        dead process on this host, or --break-lease). The filter on expiry makes the upsert
        atomic: two racing runs both try to insert `_id: "apply"`, one gets E11000."""
        token = fields["token"]
        free = {"_id": LEASE_ID, "$or": [{"expires": {"$lte": now}}, {"token": token}]}
        try:
            return self._take(free, fields)
        except DuplicateKeyError:
            pass
        except PyMongoError as exc:
            raise _failed("taking the lease", exc) from None
        holder = self.read()
        if holder is None:  # released between our two reads: try once more
            try:
                return self._take(free, fields)
            except DuplicateKeyError:
                holder = self.read() or {}
            except PyMongoError as exc:
                raise _failed("taking the lease", exc) from None
        if may_take(holder):
            # Compare-and-set on the holder's token: only one taker wins.
            try:
                got = self.coll.find_one_and_update(
                    {"_id": LEASE_ID, "token": holder.get("token")},
                    {"$set": dict(fields)},
                    return_document=ReturnDocument.AFTER,
                )
            except PyMongoError as exc:
                raise _failed("taking over the lease", exc) from None
            if got is not None:
                return dict(got)
            holder = self.read() or holder
        raise LeaseHeldError(
            f"lease held by {describe_holder(holder)}; "
            "rerun later or 'zonectl recover --break-lease'",
            hint="another zonectl run is changing this cluster; a dead run's lease expires, "
            "or `zonectl recover --break-lease` frees it after you checked",
        )

    def _take(self, free: Mapping[str, Any], fields: Mapping[str, Any]) -> dict[str, Any]:
        got = self.coll.find_one_and_update(
            free, {"$set": dict(fields)}, upsert=True, return_document=ReturnDocument.AFTER
        )
        return dict(got or fields)

    def renew(self, token: str, expires: dt.datetime) -> bool:
        """Push the expiry forward; False when the lease is no longer ours."""
        result = self.coll.update_one(
            {"_id": LEASE_ID, "token": token}, {"$set": {"expires": expires}}
        )
        return result.matched_count == 1

    def update(self, token: str, fields: Mapping[str, Any]) -> None:
        try:
            self.coll.update_one({"_id": LEASE_ID, "token": token}, {"$set": dict(fields)})
        except PyMongoError as exc:
            raise _failed("updating the lease", exc) from None

    def release(self, token: str) -> None:
        try:
            self.coll.delete_one({"_id": LEASE_ID, "token": token})
        except PyMongoError as exc:
            raise _failed("releasing the lease", exc) from None

    def read(self) -> dict[str, Any] | None:
        try:
            doc = self.coll.find_one({"_id": LEASE_ID})
        except PyMongoError as exc:
            raise _failed("reading the lease", exc) from None
        return dict(doc) if doc is not None else None


def _failed(what: str, exc: PyMongoError) -> ClusterError:
    return ClusterError(f"{what} failed: {redact(str(exc))}")
