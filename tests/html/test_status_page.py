"""`zonectl status --format html` end to end: clusters built with real admin commands over
pymongo (or a cluster file for the big ones), the CLI reading them over TCP, and the page
read back element by element: the strip's zones, chunks by shard, out-of-zone and
straddling marks, the bytes by zone, the burn-down, the tables, escaping and binning."""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

from bson.max_key import MaxKey
from bson.min_key import MinKey
from builders import add_range, add_shards, shard_collection, zonectl
from dom import Page

from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

NS = "app.t"


def status_html(uri: str, *args: str) -> Page:
    code, out, err = zonectl("status", "--uri", uri, "--format", "html", *args)
    assert code == 0, err
    assert out.startswith("<!DOCTYPE html>")
    page = Page(out)
    assert page.unclosed == [], "every element is closed"
    return page


def build_layout(client: Any) -> None:
    """Chunks [Min,10) [10,20) [20,30) [30,40) [40,50) [50,Max) on s2 s0 s1 s1 s1 s2;
    hot = [10,30) on s0, cold = [35,50) on s1: [20,30) is outside hot, [30,40) straddles."""
    add_shards(client, {"s0": ["hot"], "s1": ["cold"], "s2": []})
    shard_collection(
        client,
        NS,
        {"x": 1},
        splits=[{"x": 10}, {"x": 20}, {"x": 30}, {"x": 40}, {"x": 50}],
        owners={0: "s2", 1: "s0", 2: "s1", 3: "s1", 4: "s1", 5: "s2"},
    )
    add_range(client, NS, "hot", {"x": 10}, {"x": 30})
    add_range(client, NS, "cold", {"x": 35}, {"x": 50})


def test_the_strip_shows_zones_chunks_by_shard_and_marks_the_misplaced_chunks(
    sandbox_server: Any, server_version: str
) -> None:
    sb = sandbox_server(server_version)
    build_layout(sb.client)
    page = status_html(sb.uri)
    (strip,) = page.find("svg", "strip", data_ns=NS)
    assert (strip.attrs["data-chunks"], strip.attrs["data-columns"]) == ("6", "6")
    bands = [e.attrs["data-zone"] for e in page.inside(strip, "rect", "zone")]
    assert bands == ["no zone", "hot", "no zone", "cold", "no zone"]
    chunks = [e.attrs["data-shard"] for e in page.inside(strip, "rect", "chunk")]
    assert chunks == ["s2", "s0", "s1", "s2"]  # chunks 2-4 on s1 draw as one rectangle
    (outside,) = page.inside(strip, "rect", "outside")
    assert outside.attrs["data-chunks"] == "1"
    assert float(outside.attrs["x"]) == 92 + 900 * 2 / 6  # the third chunk of six
    (straddling,) = page.inside(strip, "path", "straddling")
    assert straddling.attrs["data-chunks"] == "1"
    assert len(page.inside(strip, "line", "boundary")) == 4
    rows = page.table("strip-table")
    # from, zone, chunks, outside, straddling, then chunks per shard (s2, s0, s1)
    assert rows[1] == ["{x: 10}", "hot", "2", "1", "0", "0", "1", "1"]
    assert rows[2] == ["{x: 30}", "(none)", "1", "0", "1", "0", "0", "1"]


def _cluster(tmp_path: Path, text: str) -> str:
    path = tmp_path / "cluster.yaml"
    path.write_text(text)
    return f"sandbox:{path}"


HOT_COLD = """version: "7.0"
shards: [{name: h0, zones: [hot]}, {name: c0, zones: [cold]}]
collections:
  - ns: app.e
    key: {x: 1}
    chunks: 24
    keys: {type: int, start: 0, step: 100}
    chunkSize: {bytes: 33554432, docs: 1000}
    distribution: all-on-one
    shard: h0
zones:
  - {ns: app.e, min: {x: 1200}, max: {x: {$maxKey: 1}}, zone: hot}
balancer: {activeWindow: {start: "01:00", stop: "02:00"}}
"""


def test_the_page_shows_each_shards_bytes_by_zone_and_the_burn_down_by_route(
    tmp_path: Path, sandbox_server: Any
) -> None:
    """All 24 chunks of 32 MiB on h0; once cold gets [MinKey, 1200), its 12 are outside."""
    sb = Sandbox("7.0")
    (tmp_path / "cluster.yaml").write_text(HOT_COLD)
    seed.seed(sb, seed.load(tmp_path / "cluster.yaml"))
    served = sandbox_server(sandbox=sb)
    add_range(served.client, "app.e", "cold", {"x": MinKey()}, {"x": 1200})
    page = status_html(served.uri)
    (stray,) = page.find("rect", "zonebar", data_shard="h0", data_zone="cold")
    assert stray.attrs["stroke-dasharray"]  # outlined: data of a zone not its own
    (home,) = page.find("rect", "zonebar", data_shard="h0", data_zone="hot")
    assert "stroke-dasharray" not in home.attrs
    rows = {(r[0], r[1]): r[2:] for r in page.table("zonebytes-table")}
    assert rows == {("h0", "cold"): ["384.0 MiB", "no"], ("h0", "hot"): ["384.0 MiB", "yes"]}
    routes = {e.attrs["data-route"] for e in page.find("path", "route")}
    assert routes == {"migrate", "balancer"}
    assert page.find("rect", "window"), "the balancer's window is shaded"
    burn = page.table("burndown-table")
    assert burn[0][3] == "384.0 MiB"
    assert [r[3] for r in burn if r[0] == "apply --migrate"][-1] == "0 B"
    assert [r[3] for r in burn if r[0] == "balancer"][-1] == "0 B"
    assert page.table("forecast-table")[0][:3] == ["app.e", "12", "384.0 MiB"]


def test_the_page_is_self_contained_with_no_script(sandbox_server: Any) -> None:
    sb = sandbox_server("7.0")
    build_layout(sb.client)
    code, out, _ = zonectl("status", "--uri", sb.uri, "--format", "html")
    page = Page(out)
    assert code == 0 and not page.find("script")
    assert not [e for e in page.elements if {"src", "href"} & set(e.attrs)]
    (csp,) = page.find("meta", http_equiv="Content-Security-Policy")
    assert "default-src 'none'" in csp.attrs["content"]
    assert len(out.encode()) < 200_000


def test_hostile_collection_and_zone_names_are_escaped(sandbox_server: Any) -> None:
    sb = sandbox_server("7.0")
    ns, zone = "app.t<b>&\"'x", "<z>&\"'"
    add_shards(sb.client, {"s0": [zone], "s1": []})
    shard_collection(sb.client, ns, {"x": 1}, splits=[{"x": 10}, {"x": 20}], owners={1: "s1"})
    add_range(sb.client, ns, zone, {"x": 10}, {"x": 20})
    code, out, err = zonectl("status", "--uri", sb.uri, "--format", "html")
    assert code == 0, err
    assert "<b>" not in out and "<z>" not in out
    page = Page(out)
    assert [e.all_text() for e in page.find("h3", data_ns=ns)] == [ns]
    assert len(page.find("svg", "strip", data_ns=ns)) == 1
    assert page.find("rect", "zone", data_zone=zone)
    assert page.find("rect", "zonebar", data_zone=zone)


def test_many_chunks_are_binned_and_the_page_says_so(tmp_path: Path, sandbox_server: Any) -> None:
    """5,000 chunks spread round-robin over two shards, then one zone per shard over half
    the key space each: half the chunks of each half sit on the other shard."""
    sb = Sandbox("7.0")
    (tmp_path / "cluster.yaml").write_text(
        """version: "7.0"
shards: [{name: a, zones: [lo]}, {name: b, zones: [hi]}]
collections:
  - {ns: app.big, key: {x: 1}, chunks: 5000, keys: {type: int, start: 0, step: 10}}
"""
    )
    seed.seed(sb, seed.load(tmp_path / "cluster.yaml"))
    served = sandbox_server(sandbox=sb)
    add_range(served.client, "app.big", "lo", {"x": MinKey()}, {"x": 25000})
    add_range(served.client, "app.big", "hi", {"x": 25000}, {"x": MaxKey()})
    page = status_html(served.uri)
    (strip,) = page.find("svg", "strip", data_ns="app.big")
    assert (strip.attrs["data-chunks"], strip.attrs["data-columns"]) == ("5000", "600")
    notes = [e.all_text() for e in page.find("p", "note")]
    assert any("binned: 5000 chunks drawn as 600 columns" in n for n in notes)
    marked = sum(int(e.attrs["data-chunks"]) for e in page.inside(strip, "rect", "outside"))
    assert marked == 2500


def test_thousands_of_zones_and_a_hashed_key_still_render_and_say_what_was_binned(
    tmp_path: Path,
) -> None:
    zones = [f"z{i}" for i in range(2000)]
    ranges = "\n".join(
        f"  - {{ns: app.zoned, min: {{x: {i * 20}}}, max: {{x: {i * 20 + 20}}}, zone: {z}}}"
        for i, z in enumerate(zones)
    )
    uri = _cluster(
        tmp_path,
        f"""version: "7.0"
shards:
  - {{name: a, zones: [{", ".join(zones[:1000])}]}}
  - {{name: b, zones: [{", ".join(zones[1000:])}]}}
collections:
  - ns: app.zoned
    key: {{x: 1}}
    chunks: 4000
    keys: {{type: int, start: 0, step: 10}}
  - ns: app.hashed
    key: {{x: hashed}}
    chunks: 8
    keys: {{type: hashed}}
zones:
{ranges}
""",
    )
    code, out, err = zonectl("status", "--uri", uri, "--format", "html")
    assert code == 0, err
    assert len(out.encode()) < 2 * 1024 * 1024
    page = Page(out)
    notes = " ".join(e.all_text() for e in page.find("p", "note"))
    assert "binned: 2002 zone runs drawn per column" in notes  # 2,000 zones and 2 gaps
    assert "hashed key: chunks are in order of the hashed value" in notes
    # app.hashed sorts first; app.zoned's runs are summed into one row per zone
    assert len(page.table("strip-table", nth=1)) == 2001
    (strip,) = page.find("svg", "strip", data_ns="app.zoned")
    assert len(page.inside(strip, "rect", "zone")) <= 600


def test_a_namespace_with_ranges_but_no_chunks_says_so(sandbox_server: Any) -> None:
    sb = sandbox_server("6.0")
    add_shards(sb.client, {"s0": ["hot"]})
    sb.client.admin.command({"enableSharding": "app"})
    add_range(sb.client, "app.later", "hot", {"x": 1}, {"x": 5})
    page = status_html(sb.uri)
    assert len(page.find("h3", data_ns="app.later")) == 1
    notes = [e.all_text() for e in page.find("p", "note")]
    assert any("Not sharded" in n for n in notes)
    assert not page.find("svg", "strip")


EDGES = """version: "7.0"
shards: [{name: h0, zones: [hot]}, {name: c0, zones: [cold]}, {name: w0, zones: [warm]}]
collections:
  - ns: app.events
    key: {ts: 1}
    chunks: 60
    keys: {type: date, start: "2026-01-01T00:00:00Z", step: 1d}
    distribution: round-robin
zones:
  - {ns: app.events, min: {ts: {$minKey: 1}}, max: {ts: {$date: "2026-01-02T00:00:00Z"}},
     zone: cold}
  - {ns: app.events, min: {ts: {$date: "2026-01-02T00:00:00Z"}},
     max: {ts: {$date: "2026-01-31T00:00:00Z"}}, zone: warm}
  - {ns: app.events, min: {ts: {$date: "2026-01-31T00:00:00Z"}},
     max: {ts: {$date: "2026-03-01T00:00:00Z"}}, zone: hot}
"""
# Boundaries one chunk from the strip's left end, in its middle and one chunk from its
# right end, each labelled with a bound of 41 characters.
EDGE_BOUNDS = [
    '{ts: ISODate("2026-01-02T00:00:00.000Z")}',
    '{ts: ISODate("2026-01-31T00:00:00.000Z")}',
    '{ts: ISODate("2026-03-01T00:00:00.000Z")}',
]


def test_boundary_labels_are_whole_and_inside_the_picture(tmp_path: Path) -> None:
    page = status_html(_cluster(tmp_path, EDGES))
    (strip,) = page.find("svg", "strip", data_ns="app.events")
    assert strip.attrs["viewbox"] == "0 0 1000 132"
    labels = page.inside(strip, "text", "bound")
    assert [label.all_text() for label in labels] == EDGE_BOUNDS  # never cut mid-value
    extents = []
    for label in labels:
        x, anchor = float(label.attrs["x"]), label.attrs["text-anchor"]
        width = len(label.all_text()) * 0.6 * 11  # DejaVu Sans' average at 11px, rounded up
        left = {"start": x, "middle": x - width / 2, "end": x - width}[anchor]
        assert left >= 0 and left + width <= 1000, (anchor, x, label.all_text())
        extents.append((left, left + width))
    # the first held against the left edge, the last against the right one
    assert [label.attrs["text-anchor"] for label in labels] == ["start", "middle", "end"]
    assert all(a[1] < b[0] for a, b in itertools.pairwise(extents))  # no overlap


def test_the_page_lists_the_balancer_settings_as_the_text_does() -> None:
    """docs/balancer-settings.md says status shows each setting in text and html; the page
    had no such section. The shipped balancer example on its own cluster file: each
    setting, what is stored, what the policy says and whether it drifts."""
    examples = Path(__file__).resolve().parents[2] / "policies" / "examples"
    uri = f"sandbox:{examples / 'clusters' / 'balancer.yaml'}"
    policy = str(examples / "balancer.yaml")
    code, out, err = zonectl("status", policy, "--uri", uri, "--format", "html")
    assert code == 0, err
    rows = Page(out).table("settings")  # the rows under the header
    assert ["balancer.autoMerger", "on", "off", "drift"] in rows
    assert ["metrics.rollups autoMerger", "on", "on", "managed"] in rows
    code, text, err = zonectl("status", policy, "--uri", uri)
    assert code == 0, err
    listed = text.split("balancer settings\n", 1)[1]
    assert len(rows) == len(listed.split("\n\n", 1)[0].splitlines())  # one row a line
