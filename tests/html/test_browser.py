"""The pages in a real browser: headless Chromium (Debian's package) loads the demo's
status and plan pages (which forbid scripts), the drawn elements are checked in the DOM it
built, their laid-out sizes measured, and a screenshot saved under the test's output."""

from __future__ import annotations

import itertools
import json
import struct
from pathlib import Path

import pytest
from browser import find_chromium, run, screenshot
from builders import zonectl
from dom import Page

CHROMIUM, WHY_NOT = find_chromium()
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=WHY_NOT)
DEMO = str(Path(__file__).parents[2] / "policies" / "demo")

# Appended to a copy of the page (its no-script policy removed): the laid-out boxes of the
# drawn elements, written into the DOM for --dump-dom to carry out.
MEASURE = """<script>
const box = e => { const r = e.getBoundingClientRect(); return [r.width, r.height]; };
const all = s => [...document.querySelectorAll(s)].map(box);
document.body.insertAdjacentHTML("beforeend", "<pre id=measured>" + JSON.stringify({
  strips: all("svg.strip"), chunks: all("svg.strip rect.chunk"),
  outside: all("svg.strip rect.outside"), routes: all("svg.burndown path.route"),
  windows: all("svg.burndown rect.window"), bars: all("svg.zonebytes rect.zonebar"),
  summaries: all("details > summary"),
}) + "</pre>");
</script>"""


@pytest.fixture(scope="module")
def demo_pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The README's walk through the demo: the plan of policies/demo, then the status
    after `apply` without --migrate (ranges assigned, chunks not yet home)."""
    out = tmp_path_factory.mktemp("pages")
    uri = f"sandbox:?state={out / 'state.json'}"
    pages = {}
    for name, args in (
        ("plan", ["plan", DEMO]),
        ("apply", ["apply", DEMO, "--yes"]),
        ("status", ["status"]),
    ):
        fmt = [] if name == "apply" else ["--format", "html"]
        code, html, err = zonectl(*args, "--uri", uri, *fmt)
        assert code == 0, err
        pages[name] = out / f"{name}.html"
        pages[name].write_text(html, encoding="utf-8")
    return pages


def _dom(path: Path) -> Page:
    assert CHROMIUM is not None
    # The page itself runs no script (its Content-Security-Policy forbids any); --dump-dom
    # reads the DOM through DevTools, which that policy does not govern.
    return Page(run(CHROMIUM, path.as_uri(), "--dump-dom"))


def _measured(path: Path) -> dict[str, list[list[float]]]:
    assert CHROMIUM is not None
    text = path.read_text(encoding="utf-8")
    start = text.index('<meta http-equiv="Content-Security-Policy"')
    text = text[:start] + text[text.index(">", start) + 1 :]
    probe = path.with_name(path.stem + ".measure.html")
    probe.write_text(text.replace("</body>", MEASURE + "</body>"), encoding="utf-8")
    (pre,) = Page(run(CHROMIUM, probe.as_uri(), "--dump-dom")).find("pre", id="measured")
    boxes: dict[str, list[list[float]]] = json.loads(pre.all_text())
    return boxes


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def test_chromium_builds_the_status_pictures_and_lays_them_out(
    demo_pages: dict[str, Path],
) -> None:
    dom = _dom(demo_pages["status"])
    strips = {s.attrs["data-ns"] for s in dom.find("svg", "strip")}
    assert strips == {"app.audit", "app.events", "app.reports", "app.sessions", "app.users"}
    (audit,) = dom.find("svg", "strip", data_ns="app.audit")
    assert sum(int(e.attrs["data-chunks"]) for e in dom.inside(audit, "rect", "outside")) == 100
    assert dom.find("path", "route", data_route="migrate")
    # app.audit's logs data still on shard-std-0, outside logs: outlined
    (stray,) = dom.find("rect", "zonebar", data_shard="shard-std-0", data_zone="logs")
    assert stray.attrs["stroke-dasharray"]
    boxes = _measured(demo_pages["status"])
    assert len(boxes["strips"]) == 5 and all(w > 600 and h > 60 for w, h in boxes["strips"])
    assert boxes["chunks"] and all(w > 0 and h > 10 for w, h in boxes["chunks"])
    assert boxes["outside"] and all(w > 0 for w, _ in boxes["outside"])
    assert boxes["routes"] and all(w > 0 or h > 0 for w, h in boxes["routes"])
    assert boxes["bars"] and all(w > 0 for w, _ in boxes["bars"])
    assert len(boxes["summaries"]) >= 7  # a table behind each picture
    shot = demo_pages["status"].with_suffix(".png")
    assert _png_size(screenshot(CHROMIUM or "", demo_pages["status"], shot, 1000, 3000)) == (
        1000,
        3000,
    )
    print(f"screenshot: {shot}")


def test_chromium_draws_the_plans_burn_down_with_the_window_shaded(
    demo_pages: dict[str, Path],
) -> None:
    dom = _dom(demo_pages["plan"])
    assert not dom.find("script")
    routes = {e.attrs["data-route"] for e in dom.find("path", "route")}
    assert routes == {"migrate", "balancer"}
    boxes = _measured(demo_pages["plan"])
    assert len(boxes["routes"]) == 2 and all(h > 100 for _, h in boxes["routes"])
    # the plan sets the 23:00-06:00 window, so the balancer's line waits for it
    assert boxes["windows"] and all(h > 100 for _, h in boxes["windows"])
    shot = demo_pages["plan"].with_suffix(".png")
    assert _png_size(screenshot(CHROMIUM or "", demo_pages["plan"], shot, 1000, 1400)) == (
        1000,
        1400,
    )
    print(f"screenshot: {shot}")


LABELS = """<script>
const r = e => { const b = e.getBoundingClientRect(); return [b.left, b.right, e.textContent]; };
document.body.insertAdjacentHTML("beforeend", "<pre id=measured>" + JSON.stringify(
  [...document.querySelectorAll("svg.strip")].map(s => ({
    ns: s.dataset.ns, strip: r(s), labels: [...s.querySelectorAll("text.bound")].map(r),
  }))) + "</pre>");
</script>"""


def test_chromium_draws_every_boundary_label_whole_inside_its_strip(tmp_path: Path) -> None:
    """Laid out by the browser's own font, each label of a boundary near the strip's ends
    stays inside the picture, and no two labels overlap."""
    from test_status_page import EDGE_BOUNDS, EDGES

    assert CHROMIUM is not None
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(EDGES, encoding="utf-8")
    code, html, err = zonectl("status", "--uri", f"sandbox:{cluster}", "--format", "html")
    assert code == 0, err
    start = html.index('<meta http-equiv="Content-Security-Policy"')
    html = html[:start] + html[html.index(">", start) + 1 :]
    probe = tmp_path / "status.measure.html"
    probe.write_text(html.replace("</body>", LABELS + "</body>"), encoding="utf-8")
    for width in (1000, 640):  # the page's usual width, and a narrow window
        found = Page(run(CHROMIUM, probe.as_uri(), "--dump-dom", f"--window-size={width},900"))
        (pre,) = found.find("pre", id="measured")
        (strip,) = [s for s in json.loads(pre.all_text()) if s["ns"] == "app.events"]
        (left, right, _), labels = strip["strip"], strip["labels"]
        assert [text for _, _, text in labels] == EDGE_BOUNDS  # whole, none left out
        for lo, hi, _ in labels:
            assert left <= lo and hi <= right, (width, left, right, lo, hi)
        assert all(a[1] < b[0] for a, b in itertools.pairwise(labels)), labels
