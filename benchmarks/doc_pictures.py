"""The pictures in docs/img/, made from the demo's real output: runs the commands below
against a sandbox whose clock is pinned (so every run prints the same), screenshots each
--format html page in headless Chromium, and writes beside each PNG the page's text
(NAME.txt), whose SHA-256 the PNG carries in a tEXt chunk. tests/html/test_doc_pictures.py
fails when that text no longer matches what the commands print, or the PNG is not the one
made from it.

    python benchmarks/doc_pictures.py          # needs chromium (or $ZONECTL_CHROMIUM)
"""

from __future__ import annotations

import hashlib
import html.parser
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
IMG = ROOT / "docs" / "img"
AT = "2026-11-23T17:01:00Z"  # the instant of every picture (plan --at, the sandbox's clock)
DIGEST_KEY = b"zonectl-text-sha256"
# name -> the commands whose last one prints the page, and the screenshot's size
PICTURES: dict[str, tuple[list[list[str]], tuple[int, int]]] = {
    "plan-demo": (
        [["plan", "policies/demo", "--at", AT, "--format", "html"]],
        (1000, 640),
    ),
    # ranges assigned, chunks not yet moved: `apply` without --migrate of the two
    # namespaces that have no window (a window's ranges depend on the day)
    "status-demo": (
        [
            ["apply", "policies/demo", "-n", "app.users", "-n", "app.audit", "--yes"],
            ["status", "--format", "html"],
        ],
        (1000, 1900),
    ),
}
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",  # CI containers run as root, where Chromium's sandbox cannot start
    "--disable-gpu",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--hide-scrollbars",
]


def render_pages(workdir: Path) -> dict[str, str]:
    """Each picture's page, as the commands print it (a fresh sandbox per picture)."""
    pages = {}
    for name, (steps, _) in PICTURES.items():
        uri = f"sandbox:?state={workdir / name}.json&now={AT}"
        out = ""
        for args in steps:
            done = subprocess.run(
                [sys.executable, "-m", "zonectl", *args, "--uri", uri],
                cwd=ROOT,
                capture_output=True,
                text=True,
                env={**os.environ, "PYTHONPATH": str(ROOT), "NO_COLOR": "1"},
                timeout=600,
                check=False,
            )
            if done.returncode != 0:
                raise SystemExit(f"zonectl {' '.join(args)}: exit {done.returncode}\n{done.stderr}")
            out = done.stdout
        pages[name] = out
    return pages


# What differs from run to run and is not in the pictures (it is in the folded plan text):
# the plan's id and the live metadata's fingerprint, which hash the collections' UUIDs, new
# random ones in every sandbox as in every real cluster.
VARYING = (
    (re.compile(r"zonectl plan [0-9a-f]{12} at "), "zonectl plan <id> at "),
    (re.compile(r"live metadata sha256:[0-9a-f]{64}"), "live metadata sha256:<fingerprint>"),
)


class _Text(html.parser.HTMLParser):
    SKIP = frozenset({"style", "script", "head", "title"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.lines: list[str] = []
        self.depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.depth += tag in self.SKIP

    def handle_endtag(self, tag: str) -> None:
        self.depth -= tag in self.SKIP

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text and not self.depth:
            self.lines.append(text)


def page_text(page: str) -> str:
    """The page's text, one line per text node: what the picture shows in words and
    numbers (its titles, axes, labels, legends and tables)."""
    parser = _Text()
    parser.feed(page)
    parser.close()
    text = "\n".join(parser.lines) + "\n"
    for varying, shown in VARYING:
        text = varying.sub(shown, text)
    return text


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def png_chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    chunks, at = [], 8
    while at < len(png):
        (size,) = struct.unpack(">I", png[at : at + 4])
        chunks.append((png[at + 4 : at + 8], png[at + 8 : at + 8 + size]))
        at += 12 + size
    return chunks


def png_text_digest(png: bytes) -> str | None:
    """The text digest a picture carries (None when it carries none)."""
    for kind, data in png_chunks(png):
        if kind == b"tEXt" and data.startswith(DIGEST_KEY + b"\0"):
            return data[len(DIGEST_KEY) + 1 :].decode("latin-1")
    return None


def with_text_digest(png: bytes, text: str) -> bytes:
    """The PNG with a tEXt chunk naming the digest of `text`, before IEND."""
    data = DIGEST_KEY + b"\0" + digest(text).encode("latin-1")
    chunk = struct.pack(">I", len(data)) + b"tEXt" + data
    chunk += struct.pack(">I", zlib.crc32(b"tEXt" + data) & 0xFFFFFFFF)
    end = png.rindex(b"IEND") - 4
    return png[:end] + chunk + png[end:]


def screenshot(chromium: str, page: Path, size: tuple[int, int]) -> bytes:
    out = page.with_suffix(".png")
    with tempfile.TemporaryDirectory(prefix="zonectl-chromium-") as profile:
        subprocess.run(
            [
                chromium,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={profile}",
                f"--screenshot={out}",
                f"--window-size={size[0]},{size[1]}",
                page.as_uri(),
            ],
            capture_output=True,
            timeout=120,
            check=True,
        )
    return out.read_bytes()


def main() -> int:
    chromium = os.environ.get("ZONECTL_CHROMIUM") or shutil.which("chromium")
    if not chromium:
        print("needs Chromium: apt-get install chromium, or set ZONECTL_CHROMIUM", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory(prefix="zonectl-pictures-") as tmp:
        work = Path(tmp)
        for name, page in render_pages(work).items():
            text = page_text(page)
            (work / f"{name}.html").write_text(page, encoding="utf-8")
            png = screenshot(chromium, work / f"{name}.html", PICTURES[name][1])
            (IMG / f"{name}.png").write_bytes(with_text_digest(png, text))
            (IMG / f"{name}.txt").write_text(text, encoding="utf-8")
            print(f"docs/img/{name}.png, docs/img/{name}.txt ({len(text.splitlines())} lines)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
