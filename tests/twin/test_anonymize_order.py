"""`--anonymize` keeps the layout for any bounds (generated: ints and strings mixed in one
field, in BSON order): the same chunks per shard in the same order, zone ranges on the same
chunk boundaries, and none of the values or names in the files."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from twin_util import run

from zonectl.model.keys import sort_key
from zonectl.sandbox import uri as sandbox_uri

VALUES = st.lists(
    st.one_of(
        st.integers(-(10**9), 10**9),
        st.text(alphabet="abz@._0", max_size=6).map(lambda t: f"secret-{t}"),
    ),
    min_size=2,
    max_size=10,
    unique_by=lambda v: sort_key(v),
)


def _cluster(values: list[Any], cut: int) -> str:
    ordered = sorted(values, key=sort_key)
    return f"""version: "7.0"
shards: [{{name: alpha-shard, zones: [secret-zone]}}, {{name: beta-shard}}]
collections:
  - ns: customers.emails
    key: {{email: 1}}
    keys: {{type: list, values: {json.dumps(ordered)}}}
zones:
  - ns: customers.emails
    min: {{email: {{$minKey: 1}}}}
    max: {{email: {json.dumps(ordered[cut])}}}
    zone: secret-zone
"""


def _stand_ins(bounds: list[Any]) -> list[Any]:
    """What --anonymize must make of a field's chunk bounds: each integer becomes its rank
    (1, 2, ...) among the distinct integers, each string `v` and its rank among the strings
    (10 digits), and MinKey stays. So no integer of the source survives, other than by
    coinciding with its own rank, and their order is kept."""
    ints = sorted({v for v in bounds if isinstance(v, int)})
    strings = sorted({v for v in bounds if isinstance(v, str)}, key=sort_key)
    out: list[Any] = []
    for v in bounds:
        if isinstance(v, int):
            out.append(ints.index(v) + 1)
        elif isinstance(v, str):
            out.append(f"v{strings.index(v) + 1:010d}")
        else:
            out.append(v)
    return out


@settings(max_examples=8, deadline=None)
@given(values=VALUES, data=st.data())
def test_anonymized_twins_keep_order_and_hide_values(values: list[Any], data: Any) -> None:
    cut = data.draw(st.integers(0, len(values) - 1))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "cluster.yaml"
        path.write_text(_cluster(values, cut))
        twin = Path(tmp) / "t.yaml"
        with sandbox_uri.start(f"sandbox:{path}") as real:
            assert run("twin", "--uri", real.uri, "-o", str(twin), "--anonymize").exit_code == 0
            store = real.sandbox.cluster.chunks("customers.emails")
            assert store is not None
            want = [store.shard_at(i) for i in range(len(store))]
            real_mins = [store.min_at(i)["email"] for i in range(len(store))]
        files = twin.read_bytes() + (Path(tmp) / "t.chunks.bson").read_bytes()
        for secret in (b"secret-", b"customers", b"emails", b"alpha", b"beta"):
            assert secret not in files
        with sandbox_uri.start(f"sandbox:{twin}") as anon:
            got_store = anon.sandbox.cluster.chunks("db1.c1")
            assert got_store is not None
            got = [got_store.shard_at(i) for i in range(len(got_store))]
            names = {"alpha-shard": "shard1", "beta-shard": "shard2"}
            assert got == [names[s] for s in want]
            got_mins = [got_store.min_at(i)["email"] for i in range(len(got_store))]
            assert got_mins == _stand_ins(real_mins), (real_mins, got_mins)
            (zone,) = anon.sandbox.cluster.zone_ranges("db1.c1")
            # The range ended at the (cut+1)-th chunk boundary; so does its stand-in.
            assert sort_key(zone.max) == sort_key(got_store.min_at(cut + 1))
            assert zone.zone == "zone1"
