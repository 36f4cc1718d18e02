"""The ZA131 snippet on generated inputs (prefix values of one BSON type, shard and
namespace names with characters YAML would misread): it always loads as a valid policy
whose ranges partition the key space, one zone per shard, in value order."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.analyze.inputs import CollectionInput
from zonectl.analyze.rules_hotspots import InsertPoints, spread_snippet
from zonectl.model.keys import sort_key
from zonectl.policy import load_policy

_names = st.text("ab1 :#-_.'\"yes", min_size=1, max_size=6).filter(lambda s: s.strip() == s)
_values = st.one_of(
    st.lists(st.integers(-(2**40), 2**40), min_size=1, max_size=12, unique=True),
    st.lists(st.text("xyz\"':# ", min_size=1, max_size=4), min_size=1, max_size=12, unique=True),
    st.lists(
        st.datetimes(dt.datetime(2000, 1, 1), dt.datetime(2100, 1, 1)).map(
            lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
        ),
        min_size=1,
        max_size=12,
        unique=True,
    ),
)


@settings(
    max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    values=_values,
    shards=st.lists(_names, min_size=2, max_size=6, unique=True),
    coll=_names,
)
def test_the_snippet_is_a_valid_partition_with_one_zone_per_shard(
    tmp_path: Path, values: list[Any], shards: list[str], coll: str
) -> None:
    ns = f"app.{coll}"
    ordered = sorted(values, key=sort_key)
    points = InsertPoints("bucket", tuple(ordered), {}, tuple(shards))
    key = {"bucket": 1, "ts": 1}
    snippet = spread_snippet(CollectionInput(ns, "sharded", key=key), points, sorted(shards))
    path = tmp_path / "snippet.yaml"
    path.write_text("apiVersion: zonectl/v1\nkind: ZonePolicy\n" + snippet, encoding="utf-8")
    desired = load_policy([path]).desired  # raises on any diagnostic error
    ranges = desired.collections[ns].ranges
    groups = min(len(shards), len(values))
    assert len(ranges) == groups
    owners = {zone: shard for shard, zones in desired.shards.items() for zone in zones}
    assert [owners[r.zone] for r in ranges] == sorted(shards)[:groups]
    # Every value falls in exactly one range, and each range holds at least one value.
    for value in ordered:
        k = sort_key({"bucket": value, "ts": dt.datetime(2001, 1, 1)})
        assert sum(sort_key(dict(r.min)) <= k < sort_key(dict(r.max)) for r in ranges) == 1
    for r in ranges:
        inside = [v for v in ordered if sort_key(dict(r.min)) <= sort_key({"bucket": v, "ts": 0})
                  < sort_key(dict(r.max))]  # fmt: skip
        assert inside
