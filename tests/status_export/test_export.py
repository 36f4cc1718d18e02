"""`zonectl export`: the policy it writes plans empty against the cluster it came from
(property-tested on random clusters built with real admin commands), and reads well."""

from __future__ import annotations

import datetime as dt
import itertools
import re
from pathlib import Path
from typing import Any

from bson import Int64
from bson.max_key import MaxKey
from bson.min_key import MinKey
from builders import add_range, add_shards, fresh_sandbox, set_balancing, shard_collection, zonectl
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.model.keys import sort_key

VERSIONS = ("5.0", "6.0", "7.0", "8.0")
ZONES = ("z0", "z1", "z2")

# Key shapes and the values each key's leading field takes.
KEYS: dict[str, tuple[dict[str, Any], st.SearchStrategy[Any]]] = {
    "int": ({"x": 1}, st.one_of(st.integers(-1000, 1000), st.floats(-1e3, 1e3, allow_nan=False),
                                st.integers(-(2**40), 2**40).map(Int64))),
    "country": ({"country": 1, "userId": 1}, st.sampled_from(["AU", "DE", "FR", "NO", "US",
                                                              "2026-01-01", "yes", "null"])),
    "date": ({"ts": 1, "_id": 1}, st.datetimes(dt.datetime(1965, 1, 1), dt.datetime(2100, 1, 1))
             .map(lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000, tzinfo=dt.UTC))),
    "hashed": ({"h": "hashed"}, st.integers(-(2**62), 2**62).map(Int64)),
}  # fmt: skip


def distinct(values: list[Any]) -> list[Any]:
    out: dict[Any, Any] = {}
    for v in values:
        out.setdefault(sort_key(v), v)
    return [out[k] for k in sorted(out)]


@st.composite
def clusters(draw: st.DrawFn) -> dict[str, Any]:
    n_shards = draw(st.integers(1, 4))
    shards = {
        f"shard-{i}": draw(st.lists(st.sampled_from(ZONES), unique=True, max_size=2))
        for i in range(n_shards)
    }
    carried = sorted({z for zs in shards.values() for z in zs})
    collections = []
    for i, kind in enumerate(draw(st.lists(st.sampled_from(sorted(KEYS)), max_size=3))):
        key, values = KEYS[kind]
        first = next(iter(key))
        splits = [] if kind == "hashed" else distinct(draw(st.lists(values, max_size=6)))
        marks = distinct(draw(st.lists(values, max_size=5)))
        cuts: list[Any] = [MinKey(), *marks, MaxKey()]
        ranges = []
        if carried:
            for lo, hi in itertools.pairwise(cuts):
                if draw(st.booleans()):
                    ranges.append((draw(st.sampled_from(carried)), {first: lo}, {first: hi}))
        collections.append(
            {
                "ns": f"db{i % 2}.c{i}",
                "key": key,
                # split's `middle` is a whole shard-key value
                "splits": [{f: v if f == first else MinKey() for f in key} for v in splits],
                "owners": {j: draw(st.sampled_from(sorted(shards))) for j in range(len(splits) + 1)}
                if kind != "hashed"
                else {},
                "ranges": ranges,
                "balancing": draw(st.booleans()),
            }
        )
    unsharded = []
    if carried and draw(st.booleans()):
        lo, hi = sorted(draw(st.lists(st.integers(0, 99), min_size=2, max_size=2, unique=True)))
        unsharded.append(("later.coll", draw(st.sampled_from(carried)), {"n": lo}, {"n": hi}))
    window = draw(st.one_of(st.none(), st.sampled_from([("23:00", "06:00"), ("01:30", "02:45")])))
    return {
        "version": draw(st.sampled_from(VERSIONS)),
        "shards": shards,
        "collections": collections,
        "unsharded": unsharded,
        "balancer_on": draw(st.booleans()),
        "window": window,
    }


def build(client: Any, spec: dict[str, Any]) -> None:
    add_shards(client, spec["shards"])
    for c in spec["collections"]:
        shard_collection(client, c["ns"], c["key"], c["splits"], c["owners"])
        for zone, lo, hi in c["ranges"]:
            add_range(client, c["ns"], zone, lo, hi)
        set_balancing(client, c["ns"], c["balancing"])
    for ns, zone, lo, hi in spec["unsharded"]:
        add_range(client, ns, zone, lo, hi)
    client.admin.command({"balancerStart" if spec["balancer_on"] else "balancerStop": 1})
    if spec["window"]:
        start, stop = spec["window"]
        client.config.settings.update_one(
            {"_id": "balancer"}, {"$set": {"activeWindow": {"start": start, "stop": stop}}}
        )


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(clusters())
def test_export_then_plan_is_empty_on_random_clusters(tmp_path_factory: Any, spec: Any) -> None:
    out = tmp_path_factory.mktemp("export") / "policy.yaml"
    with fresh_sandbox(spec["version"]) as (uri, client):
        build(client, spec)
        code, _, err = zonectl("export", "--uri", uri, "-o", str(out))
        assert code == 0, err
        code, plan, err = zonectl("plan", str(out), "--uri", uri, "--detailed-exitcode")
        assert code == 0, f"{out.read_text()}\n{plan}\n{err}"
        assert "No changes" in plan


def demo_cluster(client: Any) -> None:
    add_shards(client, {"fast": ["hot"], "std-0": ["archive"], "std-1": ["archive", "logs"]})
    shard_collection(client, "app.events", {"ts": 1, "_id": 1})
    split = {"ts": dt.datetime(2026, 6, 1, tzinfo=dt.UTC), "_id": MinKey()}
    add_range(client, "app.events", "archive", {"ts": MinKey(), "_id": MinKey()}, split)
    add_range(client, "app.events", "hot", split, {"ts": MaxKey(), "_id": MaxKey()})
    shard_collection(client, "app.audit", {"_id": 1})
    add_range(client, "app.audit", "logs", {"_id": MinKey()}, {"_id": MaxKey()})
    shard_collection(client, "app.reports", {"_id": "hashed"})
    set_balancing(client, "app.reports", False)
    add_range(client, "app.reports", "hot", {"_id": Int64(-(2**62))}, {"_id": Int64(0)})


def test_export_marks_what_it_found_and_uses_extended_json(tmp_path: Path) -> None:
    with fresh_sandbox() as (uri, client):
        demo_cluster(client)
        code, text, err = zonectl("export", "--uri", uri)
    assert code == 0, err
    assert text.startswith("# Exported by `zonectl export` from mongodb://")
    assert "apiVersion: zonectl/v1\nkind: ZonePolicy\n" in text
    assert re.search(r"\n  enabled: true +# found: mode full\n", text)
    assert re.search(r"\n  activeWindow: null +# found: none \(always active\)\n", text)
    assert "  std-1: [archive, logs]\n" in text
    assert '        max: {ts: {$date: "2026-06-01T00:00:00Z"}, _id: {$minKey: 1}}\n' in text
    assert re.search(r"\n    pin: logs +# found: one range over the whole key space\n", text)
    assert '        min: {_id: {$numberLong: "-4611686018427387904"}}\n' in text
    assert "    key: {_id: hashed}\n" in text
    assert re.search(r"\n    balancing: false +# found: noBalance set\n", text)


def test_export_of_some_namespaces_keeps_their_zones_and_leaves_the_balancer(
    tmp_path: Path,
) -> None:
    out = tmp_path / "events.yaml"
    with fresh_sandbox() as (uri, client):
        demo_cluster(client)
        code, text, err = zonectl("export", "--uri", uri, "-n", "app.events", "-o", str(out))
        assert code == 0, err
        assert text == ""
        assert f"policy written to {out}" in err
        policy = out.read_text()
        code, plan, err = zonectl("plan", str(out), "--uri", uri, "--detailed-exitcode")
    assert code == 0, plan + err
    assert "balancer:" not in policy
    assert "app.audit" not in policy
    assert "shards:\n  fast: [hot]\n  std-0: [archive]\n  std-1: [archive]\n" in policy


def test_export_of_a_namespace_the_cluster_lacks_exits_2_naming_it() -> None:
    """As in every command: a typo is not an empty policy (`shards: {}`) written out."""
    with fresh_sandbox() as (uri, client):
        demo_cluster(client)
        code, out, err = zonectl("export", "--uri", uri, "-n", "app.evnets")
        assert (code, out) == (2, "")
        assert "--namespace app.evnets: no such namespace on the cluster" in err
        assert "did you mean app.events?" in err
        code, out, _ = zonectl("export", "--uri", uri, "-n", "app.nomatch*")
        assert (code, out) == (2, "")
        # on the cluster, unsharded and without ranges: said, left out, exit 0
        client.app.plain.insert_one({"x": 1})
        code, out, err = zonectl("export", "--uri", uri, "-n", "app.plain", "-n", "app.audit")
    assert code == 0
    assert "--namespace app.plain: neither sharded nor given zone ranges" in err
    assert "app.audit" in out and "app.plain" not in out


def test_export_to_an_unwritable_path_exits_1_and_leaves_nothing(tmp_path: Path) -> None:
    target = tmp_path / "missing-dir" / "policy.yaml"
    with fresh_sandbox() as (uri, client):
        demo_cluster(client)
        code, _, err = zonectl("export", "--uri", uri, "-o", str(target))
    assert code == 1
    assert f"zonectl: error: cannot write {target}" in err
    assert not target.parent.exists()
