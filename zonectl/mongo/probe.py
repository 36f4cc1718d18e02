"""`zonectl doctor --probe`: a round trip on a scratch sharded collection and a scratch zone
in zonectl's own database, checking every answer and error code zonectl relies on, then
removing all it created, also after a failure or an interrupt.

Expected answers (reference §1.2-1.7, §3.5): identical re-add ok, overlap
RangeOverlapConflict (178), unknown zone ZoneNotFound (177), removing the last shard of a
zone with ranges ZoneStillInUse (163), noBalance a plain config.collections update, a range
removal by exact bounds, and a drop that takes the collection's ranges with it.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NoReturn

from bson.min_key import MinKey
from pymongo.errors import OperationFailure, PyMongoError

from zonectl.doctor.facts import Check, Status
from zonectl.errors import ClusterError, redact
from zonectl.mongo.connect import Connection
from zonectl.mongo.lease import MongoLease, describe_holder
from zonectl.mongo.probe_teach import teach_rate
from zonectl.plan.ops import SetCollectionBalancing

Shield = Callable[[], contextlib.AbstractContextManager[None]]
Checkpoint = Callable[[], None]  # raises KeyboardInterrupt when the run was asked to stop
PREFIX = "zonectl_probe_"
_POLL_S = 0.2  # every scratch name starts so: nothing else is ever touched


def _nothing_yet() -> None:
    """The default checkpoint: no one asks this probe to stop but a signal."""


class _Failed(Exception):
    """A step answered other than expected; the probe stops there and cleans up."""


class Probe:
    def __init__(
        self,
        conn: Connection,
        database: str,
        checkpoint: Checkpoint = _nothing_yet,
        *,
        teach: bool = False,
    ) -> None:
        self.conn = conn
        self.teach = teach  # --teach-rate: then migrate scratch chunks (probe_teach)
        self.checkpoint = checkpoint  # between steps: a fleet run's Ctrl-C stops here
        self.client = conn.client
        token = uuid.uuid4().hex[:12]
        self.database = database
        self.ns = f"{database}.{PREFIX}{token}"
        self.zone = f"{PREFIX}{token}"
        self.checks: list[Check] = []

    def refuse_if_busy(self, now: dt.datetime, round_wait_s: float) -> None:
        """Never while a run holds the lease or the balancer is inside a round (a round
        lasts seconds: wait up to `round_wait_s` for it to end first)."""
        holder = MongoLease(self.client, self.database).read()
        expires = holder.get("expires") if holder else None
        if holder is not None and _aware(expires) > now:
            raise ClusterError(
                f"--probe refused: lease held by {describe_holder(holder)}",
                hint="run the probe when no zonectl apply or rotate is running",
            )
        deadline = time.monotonic() + round_wait_s
        while self._admin({"balancerStatus": 1}, "balancerStatus").get("inBalancerRound"):
            if time.monotonic() >= deadline:
                raise ClusterError(
                    "--probe refused: the balancer is in a round",
                    hint="rerun when the round is over, or outside the balancer's active window",
                )
            time.sleep(_POLL_S)

    def run(self, shield: Shield) -> list[Check]:
        """The round trip; cleanup runs under `shield` (signals deferred) in every case."""
        try:
            self._round_trip()
            if self.teach:
                self.checks.append(teach_rate(self.client, self.ns, self.checkpoint))
        except _Failed:
            pass
        finally:
            with shield():
                self._clean_up()
        return self.checks

    # ---------------------------------------------------------------- the steps
    def _round_trip(self) -> None:
        shard = self._first_shard()
        low = {"k": MinKey()}
        mid = {"k": 0}
        with contextlib.suppress(OperationFailure):  # implicit from 6.0; an error is fine
            self.client.admin.command({"enableSharding": self.database})
        self._expect_ok("shardCollection", {"shardCollection": self.ns, "key": {"k": 1}})
        self._expect_ok("addShardToZone", {"addShardToZone": shard, "zone": self.zone})
        self._verify(
            "addShardToZone",
            self.zone in (self._find_one("shards", {"_id": shard}) or {}).get("tags", []),
            f"config.shards {shard} carries {self.zone}",
        )
        assign = {"updateZoneKeyRange": self.ns, "min": low, "max": mid, "zone": self.zone}
        self._expect_ok("updateZoneKeyRange", assign)
        tag = self._find_one("tags", {"ns": self.ns})
        self._verify(
            "updateZoneKeyRange",
            tag is not None and tag.get("tag") == self.zone and tag.get("max") == mid,
            "config.tags holds [MinKey, 0) of the scratch zone",
        )
        self._expect_ok("re-add identical range", assign)
        self._expect_code(
            "overlapping range",
            {"updateZoneKeyRange": self.ns, "min": {"k": -5}, "max": {"k": 5}, "zone": self.zone},
            "RangeOverlapConflict",
        )
        self._expect_code(
            "range of a missing zone",
            {"updateZoneKeyRange": self.ns, "min": {"k": 10}, "max": {"k": 20},
             "zone": f"{self.zone}_missing"},
            "ZoneNotFound",
        )  # fmt: skip
        self._expect_code(
            "remove a zone still in use",
            {"removeShardFromZone": shard, "zone": self.zone},
            "ZoneStillInUse",
        )
        self._balancing_round_trip()
        self._expect_ok(
            "remove range", {"updateZoneKeyRange": self.ns, "min": low, "max": mid, "zone": None}
        )
        self._verify(
            "remove range",
            self._find_one("tags", {"ns": self.ns}) is None,
            "config.tags no longer holds the range",
        )
        self._expect_ok("removeShardFromZone", {"removeShardFromZone": shard, "zone": self.zone})
        self._verify(
            "removeShardFromZone",
            self._find_one("shards", {"tags": self.zone}) is None,
            "no shard carries the scratch zone",
        )

    def _balancing_round_trip(self) -> None:
        for enabled in (False, True):
            what = "pause balancing" if not enabled else "restore balancing"
            reply = self._run("config", SetCollectionBalancing(self.ns, enabled).command(), what)
            doc = self._find_one("collections", {"_id": self.ns}) or {}
            matched = reply.get("n") == 1 and not reply.get("writeErrors")
            self._verify(
                what,
                matched and bool(doc.get("noBalance", False)) is (not enabled),
                f"config.collections noBalance: {str(not enabled).lower()}",
            )
            self.checks.append(
                Check(f"probe:{what}", Status.OK, f"noBalance: {str(not enabled).lower()}")
            )

    # ---------------------------------------------------------------- cleanup
    def _clean_up(self) -> None:
        """Remove whatever the probe created, whichever step it reached; say what is left."""
        problems: list[str] = []
        for tag in self._quiet(lambda: list(self.client.config.tags.find({"ns": self.ns}))) or []:
            command = {"updateZoneKeyRange": self.ns, "min": tag["min"], "max": tag["max"]}
            self._attempt({**command, "zone": None}, problems)
        for shard in (
            self._quiet(lambda: list(self.client.config.shards.find({"tags": self.zone}))) or []
        ):
            self._attempt({"removeShardFromZone": shard["_id"], "zone": self.zone}, problems)
        db, _, coll = self.ns.partition(".")
        try:
            self.client[db].drop_collection(coll)
        except PyMongoError as exc:
            problems.append(f"drop {self.ns}: {_say(exc)}")
        try:
            left = self.leftovers()
        except PyMongoError as exc:
            raise ClusterError(
                f"the probe could not check its cleanup: {_say(exc)}",
                hint=f"check for the {self.zone} zone and the {self.ns} collection by hand",
            ) from None
        if left:
            raise ClusterError(
                f"the probe could not remove {', '.join(left)}"
                + (f" ({'; '.join(problems)})" if problems else ""),
                hint=f"remove the {self.zone} zone and the {self.ns} collection by hand",
            )
        self.checks.append(Check("probe:cleanup", Status.OK, f"removed {self.ns} and {self.zone}"))

    def leftovers(self) -> list[str]:
        config = self.client.config
        left = []
        if config.tags.count_documents({"ns": self.ns}):
            left.append(f"zone ranges of {self.ns}")
        if config.shards.count_documents({"tags": self.zone}):
            left.append(f"zone {self.zone}")
        entry = config.collections.find_one({"_id": self.ns})
        if entry is not None and not entry.get("dropped"):
            left.append(f"collection {self.ns}")
        return left

    # ---------------------------------------------------------------- helpers
    def _first_shard(self) -> str:
        doc = self._find_one("shards", {"draining": {"$ne": True}})
        if doc is None:
            self.checks.append(Check("probe:shard", Status.FAIL, "no shard that is not draining"))
            raise _Failed
        return str(doc["_id"])

    def _expect_ok(self, what: str, command: Mapping[str, Any]) -> None:
        self.checkpoint()
        try:
            self.client.admin.command(dict(command))
        except OperationFailure as exc:
            self._fail(f"probe:{what}", f"expected ok, got {_say(exc)}")
        except PyMongoError as exc:
            self._fail(f"probe:{what}", f"lost the cluster: {_say(exc)}")
        self.checks.append(Check(f"probe:{what}", Status.OK, f"{next(iter(command))}: ok"))

    def _expect_code(self, what: str, command: Mapping[str, Any], code_name: str) -> None:
        self.checkpoint()
        try:
            self.client.admin.command(dict(command))
        except OperationFailure as exc:
            got = (exc.details or {}).get("codeName")
            if got == code_name:
                self.checks.append(Check(f"probe:{what}", Status.OK, f"{code_name} ({exc.code})"))
                return
            self._fail(f"probe:{what}", f"expected {code_name}, got {_say(exc)}")
        except PyMongoError as exc:
            self._fail(f"probe:{what}", f"lost the cluster: {_say(exc)}")
        self._fail(f"probe:{what}", f"expected {code_name}, the command succeeded")

    def _verify(self, what: str, holds: bool, claim: str) -> None:
        if not holds:
            self._fail(f"probe:{what}", f"answered ok, but not so: {claim}")

    def _fail(self, name: str, detail: str) -> NoReturn:
        fix = "zonectl relies on this answer; report it with the server version"
        self.checks.append(Check(name, Status.FAIL, detail, fix))
        raise _Failed

    def _run(self, db: str, command: Mapping[str, Any], what: str) -> Mapping[str, Any]:
        try:
            return self.client[db].command(dict(command))
        except PyMongoError as exc:
            self._fail(f"probe:{what}", _say(exc))

    def _admin(self, command: Mapping[str, Any], what: str) -> Mapping[str, Any]:
        try:
            return self.client.admin.command(dict(command))
        except OperationFailure:
            return {}
        except PyMongoError as exc:
            raise ClusterError(f"{what} failed: {_say(exc)}") from None

    def _find_one(self, coll: str, query: Mapping[str, Any]) -> dict[str, Any] | None:
        try:
            doc = self.client.config[coll].find_one(dict(query))
        except PyMongoError as exc:
            self._fail(f"probe:read config.{coll}", _say(exc))
        return dict(doc) if doc is not None else None

    def _attempt(self, command: Mapping[str, Any], problems: list[str]) -> None:
        try:
            self.client.admin.command(dict(command))
        except PyMongoError as exc:
            problems.append(f"{next(iter(command))}: {_say(exc)}")

    def _quiet(self, fn: Callable[[], Any]) -> Any:
        try:
            return fn()
        except PyMongoError:
            return None


@contextlib.contextmanager
def _nothing() -> Iterator[None]:
    yield


def run_probe(
    conn: Connection,
    database: str,
    *,
    now: dt.datetime,
    round_wait_s: float = 30.0,
    shield: Shield = _nothing,
    checkpoint: Checkpoint | None = None,
    teach: bool = False,
) -> list[Check]:
    """The round trip's checks (and, with `teach`, the scratch migrations that give
    config.changelog a history), or one failed `probe` check when refused (busy); raises
    ClusterError when the cleanup could not remove everything."""
    probe = Probe(conn, database, checkpoint or _nothing_yet, teach=teach)
    try:
        probe.refuse_if_busy(now, round_wait_s)
    except PyMongoError as exc:
        raise ClusterError(f"--probe: {_say(exc)}") from None
    except ClusterError as exc:  # refused: a line of the report, nothing was touched
        return [Check("probe", Status.FAIL, exc.message, exc.hint)]
    return probe.run(shield)


def _aware(value: Any) -> dt.datetime:
    if not isinstance(value, dt.datetime):
        return dt.datetime.max.replace(tzinfo=dt.UTC)  # no readable expiry: treat as held
    return value if value.tzinfo is not None else value.replace(tzinfo=dt.UTC)


def _say(exc: PyMongoError) -> str:
    if isinstance(exc, OperationFailure) and exc.details:
        return redact(f"{exc.details.get('codeName', exc.code)}: {exc.details.get('errmsg')}")
    return redact(str(exc))
