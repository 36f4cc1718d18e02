"""configureCollectionBalancing per version, through pymongo (balancer-settings.md §4).

Bounds and sizes from jstests/sharding/balancer_defragmentation_merge_chunks.js; fields per
version from configure_collection_balancing.idl (strict: false) and the 8.0.10/8.1
`enableBalancing`.
"""

from __future__ import annotations

from typing import Any

import pytest
from bson import Int64
from pymongo.errors import OperationFailure

from zonectl.sandbox.state import Sandbox

MB = 1024 * 1024


def _fail(c: Any, **fields: Any) -> OperationFailure:
    with pytest.raises(OperationFailure) as err:
        c.admin.command("configureCollectionBalancing", "db.c", **fields)
    return err.value


def _coll(c: Any) -> dict[str, Any]:
    return c.client.config.collections.find_one({"_id": "db.c"})  # type: ignore[no-any-return]


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0", "8.3"])
def test_chunk_size_bounds_of_the_jstest(make_cluster: Any, version: str) -> None:
    c = make_cluster(version)
    c.admin.command("configureCollectionBalancing", "db.c", chunkSize=1024)
    assert _coll(c)["maxChunkSizeBytes"] == 1024 * MB
    for bad in (4 * 1024 * 1024, 8796093022209, -1):
        err = _fail(c, chunkSize=bad)
        assert err.code == 72
        assert f"Chunk size '{bad}' out of range [1MB, 1GB]" in str(err.details["errmsg"])
    assert _fail(c, chunkSize="64").code == 14
    c.admin.command("configureCollectionBalancing", "db.c", chunkSize=0)
    assert "maxChunkSizeBytes" not in _coll(c)


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.0", "8.3"])
def test_chunk_size_is_reported_as_a_long_before_8_0_and_a_double_after(
    make_cluster: Any, version: str
) -> None:
    c = make_cluster(version)
    c.admin.command("configureCollectionBalancing", "db.c", chunkSize=5)
    size = c.admin.command("balancerCollectionStatus", "db.c")["chunkSize"]
    assert size == 5
    # 6.0/7.0: a long (bytes / 1 MiB); 8.x: a double rounded up to 1/100 MB
    assert isinstance(size, float) == (version >= "8.0")
    assert isinstance(size, Int64) == (version < "8.0")


def test_no_field_is_invalid_options_on_6_0_and_a_no_op_from_7_0(make_cluster: Any) -> None:
    c6 = make_cluster("6.0")
    err = _fail(c6)
    assert err.code == 72
    assert "invalid configure collection balancing update" in str(err.details["errmsg"])
    c7 = make_cluster("7.0")
    c7.admin.command("configureCollectionBalancing", "db.c")
    c7.admin.command("configureCollectionBalancing", "nodb.none")  # even unknown: ok
    c7.admin.command("configureCollectionBalancing", "db.c", enableAutoSplitter=False)
    assert "noAutoSplit" not in _coll(c7)  # strict: false, the 7.0 IDL has no such field


def test_auto_splitter_on_6_0_and_auto_merger_from_7_0(make_cluster: Any) -> None:
    c6 = make_cluster("6.0")
    c6.admin.command("configureCollectionBalancing", "db.c", enableAutoSplitter=False)
    assert _coll(c6)["noAutoSplit"] is True
    c6.admin.command("configureCollectionBalancing", "db.c", enableAutoMerger=False, chunkSize=2)
    assert "enableAutoMerge" not in _coll(c6)
    c7 = make_cluster("7.0")
    c7.admin.command("configureCollectionBalancing", "db.c", enableAutoMerger=False)
    assert _coll(c7)["enableAutoMerge"] is False
    assert _fail(c7, enableAutoMerger="no").code == 14


@pytest.mark.parametrize(("version", "has_it"), [("7.0", False), ("8.0", False),
                                                 ("8.0.12", True), ("8.3", True)])  # fmt: skip
def test_enable_balancing_writes_no_balance_from_8_0_10(
    make_cluster: Any, version: str, has_it: bool
) -> None:
    c = make_cluster(version)
    c.admin.command("configureCollectionBalancing", "db.c", enableBalancing=False, chunkSize=4)
    assert _coll(c)["noBalance"] is has_it
    if has_it:
        c.admin.command("configureCollectionBalancing", "db.c", enableBalancing=True)
        assert _coll(c)["noBalance"] is False


@pytest.mark.parametrize("version", ["6.0", "7.0", "8.3"])
def test_an_unsharded_namespace_is_namespace_not_sharded(make_cluster: Any, version: str) -> None:
    c = make_cluster(version)
    with pytest.raises(OperationFailure) as err:
        c.admin.command("configureCollectionBalancing", "db.other", chunkSize=5)
    assert err.value.code == 118


def test_the_change_is_logged(make_cluster: Any) -> None:
    c = make_cluster("7.0")
    c.admin.command("configureCollectionBalancing", "db.c", chunkSize=8, enableAutoMerger=True)
    entry = c.client.config.changelog.find_one({"what": "configureCollectionBalancing"})
    assert entry["ns"] == "db.c"
    assert entry["details"] == {"chunkSize": 8, "enableAutoMerger": True}


def test_a_6_0_cluster_at_fcv_5_0_refuses_it(sandbox_server: Any) -> None:
    client = sandbox_server(sandbox=Sandbox("6.0", fcv="5.0")).client
    with pytest.raises(OperationFailure) as err:
        client.admin.command("configureCollectionBalancing", "db.c", chunkSize=10)
    assert err.value.code == 20
    assert "greater or equal than 5.3" in str(err.value.details["errmsg"])
