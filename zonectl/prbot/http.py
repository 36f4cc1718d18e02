"""The real transport: urllib with a timeout; HTTP errors come back as responses so the
caller words them, and nothing here ever prints a header (the token is in one)."""

from __future__ import annotations

import http.client
import urllib.error
import urllib.request
from collections.abc import Iterable, Mapping

from zonectl.prbot.sticky import BotError, Response
from zonectl.redaction import redact

TIMEOUT_S = 30


def urllib_transport(
    method: str, url: str, headers: Mapping[str, str], body: bytes | None
) -> Response:
    shown = redact(url.split("?", 1)[0])
    try:
        request = urllib.request.Request(url, data=body, method=method, headers=dict(headers))
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as reply:
            return Response(reply.status, _lower(reply.headers.items()), reply.read())
    except urllib.error.HTTPError as exc:
        return Response(exc.code, _lower(exc.headers.items()), exc.read())
    except (urllib.error.URLError, OSError, ValueError, http.client.HTTPException) as exc:
        # ValueError: a URL urllib cannot use; InvalidURL (an HTTPException) may quote it.
        reason = getattr(exc, "reason", exc)
        raise BotError(f"{method} {shown} failed: {redact(str(reason))}") from None


def _lower(items: Iterable[tuple[str, str]]) -> dict[str, str]:
    return {str(k).lower(): str(v) for k, v in items}
