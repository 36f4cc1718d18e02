"""Helpers for the secrets and names tests: the CLI in-process, a known secret, mangled
connection strings built around it, and everything zonectl wrote to a cluster."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pymongo
from bson import json_util
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.auth.users import AuthConfig, User
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

# Plain ASCII, so percent-encoding leaves it readable: any output holding it leaked it.
SECRET = "Zq7Sup3rS3cretXy"
ADMIN_PASSWORD = "adm1n-pw"
USERS = AuthConfig(
    users=[
        User("ops", "admin", SECRET, ("root",)),
        User("admin", "admin", ADMIN_PASSWORD, ("root",)),
    ],
    iterations_sha256=4096,
    iterations_sha1=4096,
)


@dataclass
class Result:
    code: int
    out: str
    err: str


def zonectl(*args: str, env: Mapping[str, str] | None = None) -> Result:
    result = CliRunner().invoke(app, list(args), env=dict(env or {}), catch_exceptions=False)
    return Result(result.exit_code, result.stdout, result.stderr)


@dataclass
class Served:
    port: int
    admin: pymongo.MongoClient[dict[str, Any]]
    policy: Path  # the cluster's own export with one balancer setting changed


@contextlib.contextmanager
def auth_demo(tmp: Path) -> Iterator[Served]:
    """The demo cluster with authentication (user ops, password SECRET), served over TCP,
    an admin client, and a policy whose apply is one quick settings change (the demo
    policy's chunk moves would make each example slow)."""
    sandbox = Sandbox("7.0", auth=USERS)
    seed.seed(sandbox, seed.load(None), str(seed.demo_path()))
    server = serve(sandbox)
    port = int(server.port)
    admin_uri = f"mongodb://admin:{ADMIN_PASSWORD}@127.0.0.1:{port}/"
    admin: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
        admin_uri, serverSelectionTimeoutMS=5000
    )
    try:
        exported = zonectl("export", "--uri", admin_uri)
        assert exported.code == 0, exported.err
        policy = tmp / "policy.yaml"
        changed = exported.out.replace(
            "activeWindow: null", 'activeWindow: {start: "23:00", stop: "06:00"}'
        )
        assert changed != exported.out
        policy.write_text(changed, encoding="utf-8")
        yield Served(port, admin, policy)
    finally:
        admin.close()
        server.close()


def written_documents(admin: pymongo.MongoClient[dict[str, Any]]) -> str:
    """Every document of zonectl's database (lease, journal, audit) and of the config
    collections a run writes to, as one text."""
    docs: list[Any] = []
    for name in admin.zonectl.list_collection_names():
        docs += list(admin.zonectl[name].find({}))
    for name in ("changelog", "actionlog", "settings", "collections", "tags", "shards"):
        docs += list(admin.config[name].find({}))
    return json_util.dumps(docs)


@dataclass(frozen=True)
class Shape:
    """Where the secret sits and how the connection string is broken."""

    position: str  # user | password | password_at | password_escaped | aws_token | tls_password
    mangle: str  # see MANGLES

    def uri(self, port: int) -> str:
        user, password, options = "ops", "pw", ["serverSelectionTimeoutMS=300"]
        if self.position == "user":
            user = SECRET
        elif self.position == "password":
            password = SECRET
        elif self.position == "password_at":  # unescaped '@' in the password
            password = f"{SECRET}@x"
        elif self.position == "password_escaped":  # RFC 3986 escaped: a valid URI
            password = quote(f"{SECRET}@:/%", safe="")
        elif self.position == "aws_token":
            options.append(f"authMechanismProperties=AWS_SESSION_TOKEN:{SECRET}")
        elif self.position == "tls_password":
            options.append(f"tlsCertificateKeyFilePassword={SECRET}")
        return MANGLES[self.mangle](user, password, f"127.0.0.1:{port}", "&".join(options))


def _uri(scheme: str, user: str, password: str, host: str, options: str, sep: str = ":") -> str:
    return f"{scheme}{user}{sep}{password}@{host}/?{options}"


# Mangles that leave a well-formed URI (the server, not the parser, refuses it).
WELL_FORMED = frozenset({"none", "separator_missing"})
MANGLES = {
    "none": lambda u, p, h, o: _uri("mongodb://", u, p, h, o),
    "scheme_missing_colon": lambda u, p, h, o: _uri("mongodb//", u, p, h, o),
    "scheme_one_slash": lambda u, p, h, o: _uri("mongodb:/", u, p, h, o),
    "scheme_three_slashes": lambda u, p, h, o: _uri("mongodb:///", u, p, h, o),
    "scheme_misspelt": lambda u, p, h, o: _uri("mongdb://", u, p, h, o),
    "no_scheme": lambda u, p, h, o: _uri("", u, p, h, o),
    "separator_missing": lambda u, p, h, o: _uri("mongodb://", u, p, h, o, sep=""),
    "separator_doubled": lambda u, p, h, o: _uri("mongodb://", u, p, h, o, sep="::"),
    "at_doubled": lambda u, p, h, o: _uri("mongodb://", u, p + "@", h, o),
    "port_not_a_number": lambda u, p, h, o: _uri("mongodb://", u, p, h + "x", o),
    "port_out_of_range": lambda u, p, h, o: _uri("mongodb://", u, p, "127.0.0.1:99999", o),
    "bad_escape": lambda u, p, h, o: _uri("mongodb://", u, p + "%zz", h, o),
    "leading_spaces": lambda u, p, h, o: "  " + _uri("mongodb://", u, p, h, o),
    "option_without_value": lambda u, p, h, o: _uri("mongodb://", u, p, h, o + "&tls"),
    "no_slash_before_options": lambda u, p, h, o: f"mongodb://{u}:{p}@{h}?{o}",
}


def metrics_text(path: Path) -> str:
    return path.read_text(encoding="utf-8") if path.exists() else ""
