"""Server side of SCRAM-SHA-256 and SCRAM-SHA-1 (RFC 5802/7677) as mongod implements them.

SHA-256 hashes the SASLprepped password; SHA-1 hashes MongoDB's legacy digest
md5("<user>:mongo:<password>") (mongo:src/mongo/db/auth/sasl_scram_server_conversation.cpp,
pymongo:auth.py `_password_digest`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
from dataclasses import dataclass

MECHANISMS = ("SCRAM-SHA-1", "SCRAM-SHA-256")


@dataclass(frozen=True)
class Credentials:
    mechanism: str
    salt: bytes
    iterations: int
    stored_key: bytes
    server_key: bytes

    @property
    def digest(self) -> str:
        return "sha256" if self.mechanism == "SCRAM-SHA-256" else "sha1"


def make_credentials(user: str, password: str, mechanism: str, iterations: int) -> Credentials:
    if mechanism == "SCRAM-SHA-256":
        from pymongo.saslprep import saslprep

        secret = saslprep(password).encode()
        digest = "sha256"
    else:
        secret = hashlib.md5(f"{user}:mongo:{password}".encode()).hexdigest().encode()
        digest = "sha1"
    salt = os.urandom(28 if digest == "sha256" else 16)
    salted = hashlib.pbkdf2_hmac(digest, secret, salt, iterations)
    client_key = hmac.digest(salted, b"Client Key", digest)
    return Credentials(
        mechanism=mechanism,
        salt=salt,
        iterations=iterations,
        stored_key=hashlib.new(digest, client_key).digest(),
        server_key=hmac.digest(salted, b"Server Key", digest),
    )


class ScramError(Exception):
    """Any failure: mongod answers AuthenticationFailed "Authentication failed." for all."""


@dataclass
class Conversation:
    """One SCRAM exchange: `first()` answers the client-first message, `final()` the proof."""

    user: str
    credentials: Credentials | None
    client_first_bare: bytes = b""
    server_first: bytes = b""
    nonce: bytes = b""
    done: bool = False

    def first(self, payload: bytes) -> bytes:
        if not payload.startswith((b"n,,", b"y,,")):
            raise ScramError("bad gs2 header")
        self.client_first_bare = payload[3:]
        attrs = _parse(self.client_first_bare)
        if self.credentials is None or b"r" not in attrs:
            raise ScramError("unknown user")
        self.nonce = attrs[b"r"] + base64.b64encode(os.urandom(24))
        salt = base64.b64encode(self.credentials.salt)
        self.server_first = b"r=%s,s=%s,i=%d" % (self.nonce, salt, self.credentials.iterations)
        return self.server_first

    def final(self, payload: bytes) -> bytes:
        creds = self.credentials
        if creds is None or not self.server_first:
            raise ScramError("out of order")
        attrs = _parse(payload)
        if attrs.get(b"c") != b"biws" or attrs.get(b"r") != self.nonce or b"p" not in attrs:
            raise ScramError("bad client-final message")
        without_proof = payload[: payload.rindex(b",p=")]
        auth_message = b",".join((self.client_first_bare, self.server_first, without_proof))
        signature = hmac.digest(creds.stored_key, auth_message, creds.digest)
        proof = base64.b64decode(attrs[b"p"])
        client_key = bytes(a ^ b for a, b in zip(proof, signature, strict=False))
        if hashlib.new(creds.digest, client_key).digest() != creds.stored_key:
            raise ScramError("wrong password")
        self.done = True
        server_signature = hmac.digest(creds.server_key, auth_message, creds.digest)
        return b"v=" + base64.b64encode(server_signature)


def _parse(message: bytes) -> dict[bytes, bytes]:
    out: dict[bytes, bytes] = {}
    for part in message.split(b","):
        key, sep, value = part.partition(b"=")
        if sep:
            out[key] = value
    return out


def decode_username(raw: bytes) -> str:
    """RFC 5802 escapes: "=2C" is ",", "=3D" is "="."""
    return raw.decode().replace("=2C", ",").replace("=3D", "=")
