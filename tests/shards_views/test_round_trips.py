"""Status of a cluster with a draining shard sends the same commands for 20 or 200
collections: what the drain still holds is read in a fixed number of round trips, and no
balancerCollectionStatus is sent (status derives it, as without a drain; issue 41)."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest
from views_kit import cluster_uri, zonectl
from wire_count import Sent, counting, registered


def _cluster(n: int) -> str:
    text = """
shards:
  - {name: s0, zones: [eu]}
  - {name: s1, zones: [eu], draining: true}
  - {name: s2, zones: [us]}
databases:
  - {name: app, primary: s1}
collections:
"""
    for i in range(n):
        text += (
            f"  - ns: app.c{i:04d}\n    key: {{country: 1}}\n"
            "    keys: {type: list, values: [DE, FR, US]}\n"
            "    distribution: listed\n    placement: [s0, s1, s1, s2]\n"
            f"    jumbo: [{1 + i % 2}]\n"
        )
    return text + "unsharded:\n  - {ns: app.settings}\n"


@pytest.fixture(scope="module")
def sent() -> Iterator[Sent]:
    yield from registered()  # for the session: counting only inside `counting`


def _status(sent: Sent, uri: str) -> tuple[Counter[str], str]:
    with counting(sent):
        out = zonectl("status", "--uri", uri, "--format", "json")
    assert out.exit_code == 0, out.stderr
    return Counter(sent.names), str(out.stdout)


def test_status_with_a_drain_sends_the_same_commands_for_20_or_200_collections(
    sent: Sent, tmp_path: Path
) -> None:
    found = []
    for n in (20, 200):
        (tmp_path / str(n)).mkdir()
        names, out = _status(sent, cluster_uri(tmp_path / str(n), _cluster(n), "8.0"))
        [drain] = json.loads(out)["drains"]
        assert drain["remaining"]["jumboChunks"] == n  # one jumbo chunk per collection
        assert "balancerCollectionStatus" not in names
        found.append(names)
    assert found[0] == found[1]
    assert found[0]["dataSize"] > 0  # jumbo chunks were sized (a bounded number of them)
