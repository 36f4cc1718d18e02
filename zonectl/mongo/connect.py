"""Connecting to a mongos: URI from --uri or ZONECTL_URI (`sandbox:` starts the simulated
cluster in-process), a check that the target is a mongos, and every message redacted."""

from __future__ import annotations

import contextlib
import datetime as dt
import re
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

from pymongo import MongoClient, monitoring
from pymongo.errors import ConfigurationError, OperationFailure, PyMongoError

from zonectl.errors import ClusterError, UsageError, redact
from zonectl.mongo.reach import Reachability
from zonectl.redaction import scrub, shown_uri, uri_problem

# Fail fast in a CLI: pymongo's 30 s default server selection is too long to wait for a typo.
DEFAULTS = {"appname": "zonectl", "serverSelectionTimeoutMS": 10_000}

Client = MongoClient[dict[str, Any]]


@dataclass(frozen=True)
class Connection:
    client: Client
    uri: str  # redacted, for messages
    version: str
    fcv: str | None
    # The cluster's clock in seconds: time.monotonic, or an in-process sandbox's clock
    # (virtual: simulated time), so budgets and progress bars run in the cluster's time.
    clock: Callable[[], float] = time.monotonic
    # The cluster's wall clock ("now" for forecasts and status): this host's clock moved by
    # the offset hello's localTime showed at connect; an in-process sandbox's own clock.
    wall: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))
    # This host's wall clock (what cron's schedule runs on); an in-process sandbox and this
    # process share one simulated timeline, so there it is the sandbox's clock too.
    local: Callable[[], dt.datetime] = field(default=lambda: dt.datetime.now(dt.UTC))
    skew: ClockSkew | None = None  # cluster minus this host, measured at connect
    # Seconds every mongos of the URI has failed its heartbeats (0 while one answers).
    down_s: Callable[[], float] = field(default=lambda: 0.0)
    # What `local` is, as messages name it: a sandbox's clock is not this host's.
    local_name: str = "this host's clock"


@dataclass(frozen=True)
class ClockSkew:
    """hello's `localTime` against this host's clock around it: `offset_s` is the cluster's
    clock minus this host's, known to within `error_s` (half the round trip, plus the
    millisecond localTime is rounded to)."""

    offset_s: float
    error_s: float

    @property
    def sure_s(self) -> float:
        """How far apart the clocks are at least."""
        return max(abs(self.offset_s) - self.error_s, 0.0)


def _measure(before: dt.datetime, after: dt.datetime, hello: dict[str, Any]) -> ClockSkew | None:
    local_time = hello.get("localTime")
    if not isinstance(local_time, dt.datetime):
        return None  # a mongos sends it (reference §6.3); without it nothing is known
    if local_time.tzinfo is None:
        local_time = local_time.replace(tzinfo=dt.UTC)
    mid = before + (after - before) / 2
    error = (after - before).total_seconds() / 2 + 0.001
    return ClockSkew((local_time - mid).total_seconds(), error)


def _sandbox_time(
    build: dict[str, Any], hello: dict[str, Any], mono: float
) -> Callable[[], dt.datetime] | None:
    """A served zonectl sandbox whose clock runs on its own timeline (`zonectl sandbox
    --time-scale N`: real time x N, ahead of this host's by design) says so in buildInfo
    (`buildEnvironment.zonectlTimeScale`, a key no MongoDB build has): its clock, followed
    from hello's localTime at `mono` (time.monotonic) at that rate; else None."""
    env = build.get("buildEnvironment")
    scale = env.get("zonectlTimeScale") if isinstance(env, dict) else None
    local_time = hello.get("localTime")
    if not isinstance(scale, int | float) or scale <= 0 or not isinstance(local_time, dt.datetime):
        return None
    start = local_time if local_time.tzinfo else local_time.replace(tzinfo=dt.UTC)
    return lambda: start + dt.timedelta(seconds=(time.monotonic() - mono) * float(scale))


def _with_defaults(uri: str) -> dict[str, Any]:
    """Options the URI does not set itself; options in the URI always win."""
    query = uri.partition("?")[2].lower()
    return {k: v for k, v in DEFAULTS.items() if f"{k.lower()}=" not in query}


@contextlib.contextmanager
def _resolve(uri: str) -> Iterator[tuple[str, Callable[[], dt.datetime] | None]]:
    """A mongodb:// URI for `uri` and, for `sandbox:[...]` (served meanwhile), its clock."""
    if not uri.startswith("sandbox:"):
        yield uri, None
        return
    from zonectl.sandbox import uri as sandbox_uri  # the sandbox imports stay lazy

    with sandbox_uri.start(uri) as handle:
        yield handle.uri, handle.sandbox.clock.now


@contextlib.contextmanager
def connect(
    uri: str | None,
    *,
    listeners: Sequence[monitoring.CommandListener] = (),
    origin: str = "--uri",
) -> Iterator[Connection]:
    """Connect, check for a mongos (`msg: "isdbgrid"` in hello, reference §3.6/§6.3) and
    read version and FCV. Raises ClusterError showing only the URI's hosts; a URI that does
    not parse is never quoted, only `origin` (flag, variable or inventory file:line) is."""
    if not uri:
        raise UsageError("no cluster given: pass --uri URI or set ZONECTL_URI")
    if problem := uri_problem(uri):
        raise ClusterError(
            f"bad URI from {origin}: {problem}",
            hint="the form is mongodb://HOST[:PORT][,HOST...][/DB][?KEY=VALUE&...], with "
            "USER:PASSWORD and an '@' before the hosts, both percent-encoded",
        )
    shown = shown_uri(uri)
    with _resolve(uri) as (real, sandbox_now):
        reach = Reachability()
        client = _client(real, [*listeners, reach], origin, uri)
        try:
            before, mono = dt.datetime.now(dt.UTC), time.monotonic()
            hello = _admin(client, shown, {"hello": 1})
            after, mono = dt.datetime.now(dt.UTC), (mono + time.monotonic()) / 2
            if hello.get("msg") != "isdbgrid":
                raise ClusterError(
                    f"{shown} is not a mongos ({_what_it_is(hello)}); zonectl reads and "
                    "changes zones through a mongos",
                    hint="point --uri at a mongos router, not at a shard or config server",
                )
            build = _admin(client, shown, {"buildInfo": 1})
            version = str(build.get("version", ""))
            scaled = _sandbox_time(build, hello, mono)
            if scaled is not None:  # a served sandbox's own timeline: the run's clock
                yield Connection(
                    client,
                    shown,
                    version,
                    _read_fcv(client),
                    wall=scaled,
                    local=scaled,
                    skew=ClockSkew(0.0, 0.0),
                    down_s=reach.down_s,
                    local_name="the sandbox's clock",
                )
            elif sandbox_now is None:
                skew = _measure(before, after, hello)
                offset = dt.timedelta(seconds=skew.offset_s if skew else 0.0)
                yield Connection(
                    client,
                    shown,
                    version,
                    _read_fcv(client),
                    wall=lambda: dt.datetime.now(dt.UTC) + offset,
                    skew=skew,
                    down_s=reach.down_s,
                )
            else:
                now = sandbox_now
                yield Connection(
                    client,
                    shown,
                    version,
                    _read_fcv(client),
                    clock=lambda: now().timestamp(),
                    wall=now,
                    local=now,
                    skew=ClockSkew(0.0, 0.0),
                    down_s=reach.down_s,
                    local_name="the sandbox's clock",
                )
        finally:
            client.close()


def _client(
    real: str, listeners: Sequence[monitoring._EventListener], origin: str, uri: str
) -> Client:
    """pymongo's client; its URI errors and option warnings (which may quote an option's
    value, or a key of authMechanismProperties) are scrubbed of every piece of the URI."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            client: Client = MongoClient(
                real, event_listeners=list(listeners), tz_aware=True, **_with_defaults(real)
            )
        except (ConfigurationError, ValueError) as exc:
            raise ClusterError(f"bad URI from {origin}: {scrub(str(exc), uri)}") from None
    for warning in caught:
        warnings.warn(f"URI from {origin}: {scrub(str(warning.message), uri)}", stacklevel=4)
    return client


def _what_it_is(hello: dict[str, Any]) -> str:
    """How hello classifies the server (pymongo hello.py, reference §6.3)."""
    if hello.get("setName"):
        return f"it answers as a member of replica set {hello['setName']}"
    if hello.get("isreplicaset"):
        return "it answers as an uninitialized replica set member"
    return "it answers as a standalone mongod"


def _admin(client: Client, shown: str, command: dict[str, Any]) -> dict[str, Any]:
    try:
        return client.admin.command(command)
    except OperationFailure as exc:
        if exc.code == 18:  # AuthenticationFailed: the driver logs in on first use
            errmsg = (exc.details or {}).get("errmsg", "Authentication failed.")
            raise ClusterError(
                f"authentication failed for {shown}: {redact(str(errmsg))}",
                hint="check the user name, password, authSource and authMechanism in the URI",
            ) from None
        raise ClusterError(
            f"{shown}: {next(iter(command))} failed: {redact(str(exc.details or exc))}"
        ) from None
    except PyMongoError as exc:
        raise ClusterError(f"cannot reach {shown}: {_reason(exc)}") from None


def _reason(exc: PyMongoError) -> str:
    """pymongo's server-selection message without its topology dump and timeout list."""
    text = str(exc).split(", Timeout: ", 1)[0]
    return redact(re.sub(r" \(configured timeouts: [^)]*\)", "", text))


def _read_fcv(client: Client) -> str | None:
    """The cluster's FCV from `admin.system.version`, which a mongos reads from the config
    server. Not `getParameter`: a mongos answers that with its own binary version, not the
    cluster's FCV (SERVER-100224, SERVER-118760). None when the user may not read it."""
    try:
        doc = client.admin["system.version"].find_one({"_id": "featureCompatibilityVersion"})
    except PyMongoError:
        return None
    version = doc.get("version") if doc else None
    return str(version) if isinstance(version, str) else None
