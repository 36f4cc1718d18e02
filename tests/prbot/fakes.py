"""Fake transports for the PR bot: `Replay` plays a recorded exchange in order and fails on
any request it does not expect; `FakeGitHub` keeps comments and pages them with Link
headers (rel="next" pointing at /repositories/{id}/..., as github.com does)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from zonectl.prbot.sticky import Response

FIXTURES = Path(__file__).resolve().parent / "fixtures"


def load_exchange(name: str, part: str) -> list[dict[str, Any]]:
    doc = json.loads((FIXTURES / name).read_text(encoding="utf-8"))
    exchange: list[dict[str, Any]] = doc[part]
    return exchange


@dataclass
class Sent:
    method: str
    url: str
    headers: dict[str, str]
    payload: Any


@dataclass
class Replay:
    exchange: list[dict[str, Any]]
    sent: list[Sent] = field(default_factory=list)

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None
    ) -> Response:
        payload = json.loads(body) if body else None
        self.sent.append(Sent(method, url, dict(headers), payload))
        assert self.exchange, f"unexpected request {method} {url}"
        step = self.exchange.pop(0)
        want = step["request"]
        assert (method, url) == (want["method"], want["url"]), f"{method} {url} != {want}"
        reply = step["response"]
        out = reply["body"]
        if isinstance(out, str) and out.startswith("$ECHO:"):  # the created/updated comment
            out = {"id": int(out.split(":", 1)[1]), "body": payload["body"]}
        return Response(reply["status"], reply["headers"], json.dumps(out).encode())

    def done(self) -> bool:
        return not self.exchange


@dataclass
class FakeGitHub:
    """Issue comments of PR acme/policies#42; ids ascend as on GitHub."""

    comments: list[dict[str, Any]] = field(default_factory=list)
    next_id: int = 5000
    writes: list[tuple[str, int]] = field(default_factory=list)

    def add(self, body: str) -> int:
        self.next_id += 1
        self.comments.append({"id": self.next_id, "body": body})
        return self.next_id

    def __call__(
        self, method: str, url: str, headers: Mapping[str, str], body: bytes | None
    ) -> Response:
        assert headers["Authorization"].startswith("Bearer ")
        parts = urlsplit(url)
        payload = json.loads(body) if body else None
        if method == "GET" and re.fullmatch(
            r"/(repos/acme/policies|repositories/7001)/issues/42/comments", parts.path
        ):
            query = parse_qs(parts.query)
            per_page, page = int(query["per_page"][0]), int(query["page"][0])
            chunk = self.comments[(page - 1) * per_page : page * per_page]
            headers_out = {}
            if page * per_page < len(self.comments):
                headers_out["link"] = (
                    "<https://api.github.com/repositories/7001/issues/42/comments"
                    f'?per_page={per_page}&page={page + 1}>; rel="next"'
                )
            return Response(200, headers_out, json.dumps(chunk).encode())
        if method == "POST" and parts.path == "/repos/acme/policies/issues/42/comments":
            new = self.add(payload["body"])
            self.writes.append(("create", new))
            return Response(201, {}, json.dumps(self.comments[-1]).encode())
        m = re.fullmatch(r"/repos/acme/policies/issues/comments/(\d+)", parts.path)
        if method == "PATCH" and m:
            for c in self.comments:
                if c["id"] == int(m.group(1)):
                    c["body"] = payload["body"]
                    self.writes.append(("update", c["id"]))
                    return Response(200, {}, json.dumps(c).encode())
            return Response(404, {}, b'{"message": "Not Found"}')
        return Response(404, {}, b'{"message": "Not Found"}')
