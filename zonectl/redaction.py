"""Credentials never reach an operator: one redaction for any text zonectl prints or writes,
a URI's shown form (hosts only), and what is wrong with a URI that cannot be parsed, said
without quoting any part of it."""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping
from typing import Any
from urllib.parse import unquote

HIDDEN = "***"

# A scheme as written, mangled ones included (`mongodb//`, `mongodb:/`, `mongodb:///`).
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*:?/{1,3}|(?i:mongodb(?:\+srv)?|sandbox):)")
# Where a URI starts inside a run of text: a MongoDB scheme, mangled ones included
# (`mongodb//`, `mongodb:/`, `mongodb:///`, `mongodb:`), `sandbox:`, or any `scheme:/`,
# `scheme://`, `scheme:///`.
_URI_START = re.compile(
    r"(?i:mongodb(?:\+srv)?)(?::/{0,3}|/{2,3})|(?i:sandbox):|[A-Za-z][A-Za-z0-9+.-]*:/{1,3}"
)
# Whitespace-delimited runs holding an `@`: candidates for `userinfo@host`.
_AT_TOKEN = re.compile(r"[^\s'\"<>()\[\]{}`]*@[^\s'\"<>()\[\]{}`]*")
# Options and fields whose value is a secret (MongoDB's connection-string options
# `password`, `tlsCertificateKeyFilePassword`, `sslPEMKeyPassword`,
# `authMechanismProperties` (AWS_SESSION_TOKEN, OIDC tokens), and `pwd=` of shell tools).
_SECRET_FIELDS = re.compile(
    r"(?i)((?:\w*password|pwd|authMechanismProperties|\w*token|\w*secret)\s*[=:]\s*)"
    r"([^\s&;,}'\"]+(?:,[^\s&;,}'\"]+)*)"
)
_URI_SCHEMES = ("mongodb://", "mongodb+srv://")


def redact(text: str) -> str:
    """Hide credentials in any text: the userinfo of every URI (whatever its scheme, mangled
    MongoDB ones included, up to the last `@`: a password may hold an unescaped `@` or `/`)
    and secret options."""
    text = _AT_TOKEN.sub(_redact_token, text)
    return _SECRET_FIELDS.sub(lambda m: f"{m.group(1)}{HIDDEN}", text)


def redact_values(value: Any) -> Any:
    """`value` with every string in it (mapping values, list items) redacted, for records
    zonectl writes to the cluster; keys and non-strings are kept."""
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, Mapping):
        return {k: redact_values(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [redact_values(v) for v in value]
    return value


def _redact_token(match: re.Match[str]) -> str:
    """The run with its userinfo (up to the last `@`) hidden when it is a URI's: after a
    scheme that starts the run (kept), or with a scheme later in it (`uri=mongodb://...`:
    all hidden); without a scheme, when it reads as a `user:password` a driver would take.
    Any other run is a name and kept: a lease holder `cron@ops-3`, `d.a::error::x@team`."""
    token = match.group(0)
    head, _, host = token.rpartition("@")
    scheme = _URI_START.match(head)
    if scheme is not None:
        return f"{head[: scheme.end()]}{HIDDEN}@{host}"
    if _URI_START.search(head) or _bare_userinfo(head):
        return f"{HIDDEN}@{host}"
    return token


def _bare_userinfo(text: str) -> bool:
    """`user:password` or a %-escaped user name, as a URL without its scheme writes them:
    at most one `:` (pymongo's parse_userinfo refuses a second one unescaped), so a name
    with `::` in it is none."""
    return (":" in text or "%" in text) and text.count(":") <= 1


def shown_uri(uri: str) -> str:
    """The form of a URI zonectl prints: scheme, hosts and database, never the userinfo or
    options (`mongodb://u:p@a:27017,b/db?tls=true` -> `mongodb://***@a:27017,b/db`)."""
    if uri.startswith("sandbox:"):
        return redact(uri.split("?", 1)[0])
    scheme = next((s for s in _URI_SCHEMES if uri.startswith(s)), None)
    if scheme is None:
        return "(unparsable URI)"
    netloc, slash, path = uri[len(scheme) :].partition("/")
    netloc = netloc.partition("?")[0]
    _userinfo, at, hosts = netloc.rpartition("@")
    database = path.partition("?")[0]
    return redact(f"{scheme}{HIDDEN + '@' if at else ''}{hosts}{slash}{database}")


def uri_problem(uri: str) -> str | None:
    """What keeps `uri` from being a MongoDB connection string, in words that quote none of
    it (a mangled URI's parts may be its password), or None. Follows pymongo's
    uri_parser_shared.parse_uri: scheme, `/` before options, RFC 3986 escaping of the
    userinfo, ports 0-65535, one host for mongodb+srv, key=value options."""
    if uri.startswith("sandbox:"):
        return None
    if uri != uri.strip():
        return "it has leading or trailing spaces"
    scheme = next((s for s in _URI_SCHEMES if uri.startswith(s)), None)
    if scheme is None:
        return _scheme_problem(uri)
    rest = uri[len(scheme) :]
    netloc, slash, path = rest.partition("/")
    if not slash and "?" in netloc:
        return "a '/' is required between the host list and the options"
    userinfo, at, hosts = netloc.rpartition("@")
    if "@" in path.partition("?")[0]:  # `u:pa/ss@host`: the '/' ended the host list early
        return _userinfo_problem("/")
    if at and (problem := _userinfo_problem(userinfo)):
        return problem
    if problem := _hosts_problem(hosts, srv=scheme == "mongodb+srv://"):
        return problem
    database, _, options = path.partition("?")
    if _bad_escape(database):
        return "the database name has a bad percent-escape"
    return _options_problem(options)


def _scheme_problem(uri: str) -> str:
    mangled = _SCHEME.match(uri)
    if mangled and mangled.group(1).rstrip(":/").lower() in ("mongodb", "mongodb+srv"):
        return "the scheme is malformed: write mongodb:// (a ':' or '/' is missing or doubled)"
    if "@" in uri and "://" not in uri:
        return "it has no scheme: start it with mongodb:// or mongodb+srv://"
    head = uri.partition(":")[0].lower()
    if ":" in uri and difflib.SequenceMatcher(None, head, "sandbox").ratio() >= 0.75:
        return "the scheme is malformed: did you mean sandbox: (the simulated cluster)?"
    return "the scheme must be mongodb:// or mongodb+srv:// (or sandbox: for the simulated cluster)"


def _userinfo_problem(userinfo: str) -> str | None:
    user, _, _password = userinfo.partition(":")
    if "@" in userinfo or "/" in userinfo or userinfo.count(":") > 1 or _bad_escape(userinfo):
        return (
            "the user name or password is not percent-encoded: escape ':', '/', '@' and '%' "
            "(RFC 3986, e.g. urllib.parse.quote_plus)"
        )
    if not user:
        return "the user name is empty"
    return None


def _hosts_problem(hosts: str, *, srv: bool) -> str | None:
    if not hosts:
        return "it names no host"
    names = hosts.split(",")
    if srv and (len(names) != 1 or ":" in names[0]):
        return "a mongodb+srv:// URI names exactly one host and no port"
    for host in names:
        if host.startswith("["):
            _, close, port = host.partition("]")
            if not close:
                return "an IPv6 host lacks its closing ']'"
            port = port.removeprefix(":")
        else:
            name, _, port = host.partition(":")
            if not name:
                return "a host name is empty"
        if port and not (port.isdigit() and 0 < int(port) <= 65535):
            return "a port is not a number from 1 to 65535"
    return None


def _options_problem(options: str) -> str | None:
    for pair in filter(None, re.split("[&;]", options)):
        key, eq, _value = pair.partition("=")
        if not eq or not key:
            return "an option is not a key=value pair"
        if _bad_escape(pair):
            return "an option has a bad percent-escape"
    return None


def _bad_escape(text: str) -> bool:
    return re.search(r"%(?![0-9A-Fa-f]{2})", text) is not None


def scrub(text: str, uri: str) -> str:
    """`text` (a driver's message about `uri`) without any piece of the URI's userinfo or
    option values, raw or decoded, then redacted."""
    rest = uri.split("://", 1)[-1]
    netloc, _, tail = rest.partition("/")
    userinfo = netloc.rpartition("@")[0]
    pieces = {userinfo, *userinfo.split(":")}
    for pair in re.split("[&;?]", tail):
        value = pair.partition("=")[2]
        pieces |= {value, *re.split("[,:]", value)}
    for piece in sorted(pieces | {unquote(p) for p in pieces}, key=len, reverse=True):
        if len(piece) >= 3:
            text = text.replace(piece, HIDDEN)
    return redact(text)
