"""SCRAM authentication commands: `saslStart`, `saslContinue`, `logout`, and the
`speculativeAuthenticate` / `saslSupportedMechs` fields of hello.

Every failure is AuthenticationFailed (18) "Authentication failed." as mongod reports it
(mongo:src/mongo/db/auth/sasl_commands.cpp hides which step failed); a failed speculative
attempt just leaves the field out of hello, and the driver retries with saslStart.
"""

from __future__ import annotations

import contextlib
import itertools
from typing import Any

from zonectl.sandbox.auth.scram import MECHANISMS, Conversation, ScramError, decode_username
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

_conversation_ids = itertools.count(1)


def _failed() -> CommandError:
    return CommandError.of("AuthenticationFailed", "Authentication failed.")


def _start(request: Request, body: dict[str, Any], db: str) -> dict[str, Any]:
    config = request.sandbox.auth
    mechanism = body.get("mechanism")
    if config is None or mechanism not in MECHANISMS:
        # sasl_commands.cpp: an unsupported mechanism is BadValue with the list on offer.
        raise CommandError.of(
            "BadValue",
            f"Received authentication for mechanism {mechanism} which is not enabled",
        )
    payload = _payload(body)
    try:
        bare = payload[3:] if payload[:3] in (b"n,,", b"y,,") else payload
        fields = dict(p.split(b"=", 1) for p in bare.split(b",") if b"=" in p)
        name = decode_username(fields.get(b"n", b""))
        user = config.find(name, db)
        creds = config.credentials(user, str(mechanism)) if user else None
        conversation = Conversation(name, creds)
        server_first = conversation.first(payload)
    except (ScramError, ValueError, UnicodeDecodeError):
        raise _failed() from None
    conversation_id = next(_conversation_ids)
    request.session.scratch["sasl"] = (conversation_id, conversation, db, user)
    return {"conversationId": conversation_id, "done": False, "payload": server_first}


def _payload(body: dict[str, Any]) -> bytes:
    payload = body.get("payload", b"")
    if isinstance(payload, str):
        return payload.encode()
    return bytes(payload)


@command("saslStart", requires_auth=False)
def sasl_start(request: Request) -> dict[str, Any]:
    remember_options(request)
    return _start(request, request.body, request.db)


@command("saslContinue", requires_auth=False)
def sasl_continue(request: Request) -> dict[str, Any]:
    state = request.session.scratch.get("sasl")
    if state is None or request.body.get("conversationId") != state[0]:
        raise CommandError.of("ProtocolError", "No SASL session state found")
    conversation_id, conversation, db, user = state
    if conversation.done:
        # The empty final exchange of clients that did not ask for skipEmptyExchange.
        request.session.scratch.pop("sasl", None)
        return {"conversationId": conversation_id, "done": True, "payload": b""}
    try:
        server_final = conversation.final(_payload(request.body))
    except (ScramError, ValueError):
        request.session.scratch.pop("sasl", None)
        raise _failed() from None
    assert user is not None  # final() succeeded, so the user had credentials
    assert user is not None  # final() succeeded, so the user had credentials
    session = request.session
    session.user, session.user_db, session.roles = user.name, db, user.role_names()
    options = request.session.scratch.get("sasl_options", {})
    skip_empty = bool(options.get("skipEmptyExchange"))
    if skip_empty:
        request.session.scratch.pop("sasl", None)
    return {"conversationId": conversation_id, "done": skip_empty, "payload": server_final}


@command("logout", requires_auth=False)
def logout(request: Request) -> dict[str, Any]:
    session = request.session
    session.user, session.user_db, session.roles = None, None, ()
    return {}


def hello_fields(request: Request) -> dict[str, Any]:
    """`saslSupportedMechs` for "db.user" and the first SCRAM step of speculativeAuthenticate."""
    out: dict[str, Any] = {}
    config = request.sandbox.auth
    assert config is not None
    mechs = request.body.get("saslSupportedMechs")
    if isinstance(mechs, str) and "." in mechs:
        db, name = mechs.split(".", 1)
        if config.find(name, db) is not None:
            out["saslSupportedMechs"] = list(MECHANISMS)
    spec = request.body.get("speculativeAuthenticate")
    if isinstance(spec, dict) and "saslStart" in spec:
        db = spec.get("db", request.db)
        options = spec.get("options")
        request.session.scratch["sasl_options"] = options if isinstance(options, dict) else {}
        # On failure mongod omits the field; the driver then falls back to saslStart.
        with contextlib.suppress(CommandError):
            out["speculativeAuthenticate"] = _start(request, spec, str(db))
    return out


def remember_options(request: Request) -> None:
    options = request.body.get("options")
    request.session.scratch["sasl_options"] = options if isinstance(options, dict) else {}
