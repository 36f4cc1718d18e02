"""The sandbox's command table: handlers register here by name, the dispatcher looks them up.

A handler takes a `Request` and returns the reply document without `ok` (the dispatcher adds
`ok: 1.0`), or raises `CommandError`. Handlers run with `request.sandbox.lock` held, so each
command is atomic with respect to every other, as each config-server write is (reference
§1.1 "Serialization on the config server").
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox
    from zonectl.sandbox.versions import VersionProfile


@dataclass
class Session:
    """Per-connection state: the connection id hello reports, and who authenticated."""

    connection_id: int
    peer: str = ""
    local: str = ""  # host:port the client connected to (the server's own address)
    user: str | None = None
    user_db: str | None = None
    roles: tuple[str, ...] = ()
    scratch: dict[str, Any] = field(default_factory=dict)  # e.g. SCRAM conversation state


@dataclass
class Request:
    name: str  # the command name as the client spelled it
    body: dict[str, Any]  # the command document, OP_MSG kind-1 sequences merged in
    db: str  # the `$db` it was sent to
    session: Session
    sandbox: Sandbox

    @property
    def arg(self) -> Any:
        """The value of the command's first field (`{updateZoneKeyRange: "db.c"}` -> "db.c")."""
        return self.body[self.name]


Handler = Callable[[Request], dict[str, Any]]


@dataclass(frozen=True)
class CommandSpec:
    name: str
    handler: Handler
    aliases: tuple[str, ...] = ()
    admin_only: bool = False  # "<cmd> may only be run against the admin database." (13)
    supports_write_concern: bool = True  # False: "Command does not support writeConcern" (72)
    requires_auth: bool = True  # False for hello, ping, saslStart, ... when --auth is on
    # Authorization: a callable deciding whether the session's roles allow this request.
    authorize: Callable[[Request], bool] | None = None
    # Whether the imitated server version has this command at all; without it the command
    # is unknown there and answers CommandNotFound before any other check.
    exists_in: Callable[[VersionProfile], bool] | None = None

    def exists_in_version(self, version: VersionProfile) -> bool:
        return self.exists_in is None or self.exists_in(version)


# Generic arguments every command accepts and the sandbox does not act on (reference §6.4).
IGNORED_FIELDS = frozenset(
    {
        "$db",
        "lsid",
        "$clusterTime",
        "$readPreference",
        "txnNumber",
        "apiVersion",
        "apiStrict",
        "apiDeprecationErrors",
        "comment",
        "readConcern",
        "autocommit",
        "startTransaction",
        "maxTimeMS",
    }
)

COMMANDS: dict[str, CommandSpec] = {}


def command(
    name: str,
    *,
    aliases: tuple[str, ...] = (),
    admin_only: bool = False,
    supports_write_concern: bool = True,
    requires_auth: bool = True,
    authorize: Callable[[Request], bool] | None = None,
    exists_in: Callable[[VersionProfile], bool] | None = None,
) -> Callable[[Handler], Handler]:
    """Register a handler under `name` and its aliases (command lookup is case-sensitive)."""

    def register(handler: Handler) -> Handler:
        spec = CommandSpec(
            name=name,
            handler=handler,
            aliases=aliases,
            admin_only=admin_only,
            supports_write_concern=supports_write_concern,
            requires_auth=requires_auth,
            authorize=authorize,
            exists_in=exists_in,
        )
        for key in (name, *aliases):
            if key in COMMANDS:
                raise RuntimeError(f"sandbox command {key!r} registered twice")
            COMMANDS[key] = spec
        return handler

    return register


def lookup(name: str) -> CommandSpec | None:
    """The command registered as `name`; the handler modules must be loaded first
    (`commands.load_all()`, which the dispatcher calls)."""
    return COMMANDS.get(name)
