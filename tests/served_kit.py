"""The differential tests' clusters: one served sandbox per server version, each with the
same shards (and their zones), and an open zonectl connection to each."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

from zonectl.mongo.connect import Connection, connect

Served = dict[str, tuple[Any, Connection]]


@contextlib.contextmanager
def served(
    make: Callable[[str], Any], versions: Sequence[str], shards: Mapping[str, tuple[str, ...]]
) -> Iterator[Served]:
    """`make(version)` for each version (a sandbox_server factory), `shards` added to each
    (name -> its zones); per version, the handle and a connection, closed at the end."""
    with contextlib.ExitStack() as stack:
        out: Served = {}
        for version in versions:
            handle = make(version)
            for shard, zones in shards.items():
                handle.sandbox.cluster.add_shard(shard, f"{shard}/{shard}-0:27018", zones)
            out[version] = (handle, stack.enter_context(connect(handle.uri)))
        yield out
