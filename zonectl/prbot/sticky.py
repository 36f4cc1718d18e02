"""Find-or-update of the one sticky comment: GitHub issue comments and GitLab merge-request
notes behind one small interface, pages followed to the end, over an injected transport."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Protocol
from urllib.parse import urlencode

from zonectl.prbot.body import MARKER


@dataclass(frozen=True)
class Response:
    status: int
    headers: Mapping[str, str]  # names lower-cased
    body: bytes


class Transport(Protocol):
    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None
    ) -> Response: ...


class BotError(Exception):
    """An API call failed; the message names the call, never the token."""


@dataclass(frozen=True)
class Comment:
    id: int
    body: str


class Thread(Protocol):
    """The comments of one pull request or merge request."""

    def comments(self) -> Iterator[Comment]: ...
    def create(self, body: str) -> Comment: ...
    def update(self, comment_id: int, body: str) -> Comment: ...


@dataclass(frozen=True)
class Outcome:
    action: str  # created | updated | unchanged
    comment_id: int
    duplicates: tuple[int, ...] = ()  # other marker comments (a past race), left alone


def upsert_sticky(thread: Thread, body: str) -> Outcome:
    """Update the oldest comment that starts with the marker, or create one. An identical
    body is not sent again; comments without the marker are never touched."""
    ours = [c for c in thread.comments() if c.body.lstrip().startswith(MARKER)]
    if not ours:
        return Outcome("created", thread.create(body).id)
    first, rest = ours[0], tuple(c.id for c in ours[1:])
    if first.body == body:
        return Outcome("unchanged", first.id, rest)
    return Outcome("updated", thread.update(first.id, body).id, rest)


class _Api:
    def __init__(self, transport: Transport, headers: Mapping[str, str]) -> None:
        self.transport, self.headers = transport, dict(headers)

    def call(self, method: str, url: str, payload: Any = None) -> tuple[Any, Response]:
        data = json.dumps(payload).encode() if payload is not None else None
        headers = {**self.headers, **({"Content-Type": "application/json"} if data else {})}
        response = self.transport(method, url, headers, data)
        if not 200 <= response.status < 300:
            detail = response.body[:300].decode("utf-8", "replace")
            raise BotError(
                f"{method} {url.split('?', 1)[0]} failed: HTTP {response.status}: {detail}"
            )
        return (json.loads(response.body) if response.body else None), response


_NEXT = re.compile(r'<([^>]+)>\s*;\s*rel="next"')


def _next_link(headers: Mapping[str, str]) -> str | None:
    m = _NEXT.search(headers.get("link", ""))
    return m.group(1) if m else None


class GitHubThread:
    """Issue comments of a pull request (REST v3): list with `per_page` and the `Link`
    header's rel="next", POST to create, PATCH /issues/comments/{id} to update."""

    def __init__(
        self,
        transport: Transport,
        *,
        api_url: str,
        repository: str,
        number: int,
        token: str,
        per_page: int = 100,
    ) -> None:
        self.base = f"{api_url.rstrip('/')}/repos/{repository}"
        self.number, self.per_page = number, per_page
        self.api = _Api(
            transport,
            {
                "Accept": "application/vnd.github+json",
                "Authorization": f"Bearer {token}",
                "X-GitHub-Api-Version": "2022-11-28",
                "User-Agent": "zonectl-prbot",
            },
        )

    def comments(self) -> Iterator[Comment]:
        query = urlencode({"per_page": self.per_page, "page": 1})
        url: str | None = f"{self.base}/issues/{self.number}/comments?{query}"
        while url is not None:
            page, response = self.api.call("GET", url)
            yield from (Comment(int(c["id"]), str(c.get("body") or "")) for c in page)
            url = _next_link(response.headers)

    def create(self, body: str) -> Comment:
        doc, _ = self.api.call("POST", f"{self.base}/issues/{self.number}/comments", {"body": body})
        return Comment(int(doc["id"]), str(doc["body"]))

    def update(self, comment_id: int, body: str) -> Comment:
        url = f"{self.base}/issues/comments/{comment_id}"
        doc, _ = self.api.call("PATCH", url, {"body": body})
        return Comment(int(doc["id"]), str(doc["body"]))


class GitLabThread:
    """Notes of a merge request (REST v4): list sorted by creation with `X-Next-Page`
    (or `Link`) for the next page, POST to create, PUT .../notes/{id} to update."""

    def __init__(
        self,
        transport: Transport,
        *,
        api_url: str,
        project: str,
        mr_iid: int,
        token: str,
        per_page: int = 100,
    ) -> None:
        self.base = f"{api_url.rstrip('/')}/projects/{project}/merge_requests/{mr_iid}/notes"
        self.per_page = per_page
        self.api = _Api(transport, {"PRIVATE-TOKEN": token, "User-Agent": "zonectl-prbot"})

    def comments(self) -> Iterator[Comment]:
        page_no: str | None = "1"
        while page_no:
            query = urlencode(
                {
                    "per_page": self.per_page,
                    "page": page_no,
                    "sort": "asc",
                    "order_by": "created_at",
                }
            )
            page, response = self.api.call("GET", f"{self.base}?{query}")
            for note in page:
                if not note.get("system"):  # "added 1 commit" and such
                    yield Comment(int(note["id"]), str(note.get("body") or ""))
            page_no = response.headers.get("x-next-page") or None
            if page_no is None and (link := _next_link(response.headers)):
                page_no = dict(_query(link)).get("page")

    def create(self, body: str) -> Comment:
        doc, _ = self.api.call("POST", self.base, {"body": body})
        return Comment(int(doc["id"]), str(doc["body"]))

    def update(self, comment_id: int, body: str) -> Comment:
        doc, _ = self.api.call("PUT", f"{self.base}/{comment_id}", {"body": body})
        return Comment(int(doc["id"]), str(doc["body"]))


def _query(url: str) -> list[tuple[str, str]]:
    from urllib.parse import parse_qsl, urlsplit

    return parse_qsl(urlsplit(url).query)
