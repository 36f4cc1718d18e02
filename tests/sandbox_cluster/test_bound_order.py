"""Bounds in MongoDB's BSON order: updateZoneKeyRange's `min < max` check (reference §1.4 #5)
and the chunk store's order, for the types where the sandbox and the planner once ordered
bounds otherwise than a server does.
Found by tests/model/test_key_order_differential.py; the order is compareElementValues in
src/mongo/bson/bsonelement.cpp, on the BSON that pymongo sends."""

from __future__ import annotations

import re
from typing import Any

import pytest
from bson import Binary, DBRef, MaxKey, MinKey, Regex
from pymongo.errors import OperationFailure


def _assign(cluster: Any, lo: Any, hi: Any) -> None:
    admin = cluster.client.admin
    admin.command("addShardToZone", "s0", zone="z")
    admin.command("updateZoneKeyRange", "test.c", min={"x": lo}, max={"x": hi}, zone="z")


def test_old_binary_subtype_counts_its_inner_length(cluster: Any) -> None:
    # BinData compares size first; subtype 2 holds a 4-byte length before its bytes, so
    # BinData(2, "ab") is 6 bytes long and above the 3-byte BinData(0, "abc").
    with pytest.raises(OperationFailure) as info:
        _assign(cluster, Binary(b"ab", 2), Binary(b"abc", 0))
    assert info.value.code == 9, info.value.details  # FailedToParse: min is not below max
    _assign(cluster, Binary(b"abc", 0), Binary(b"ab", 2))
    assert cluster.client.config.tags.count_documents({"ns": "test.c"}) == 1


def test_dbref_is_a_document_below_bindata(cluster: Any) -> None:
    # pymongo sends DBRef("c", 1) as the object {$ref: "c", $id: 1}: objects sort below BinData.
    _assign(cluster, DBRef("c", 1), Binary(b"", 0))
    assert cluster.client.config.tags.count_documents({"ns": "test.c"}) == 1


def test_regex_flags_compare_as_sent_unicode_flag_included(cluster: Any) -> None:
    # re.compile("a") goes out as /a/u, and "i" < "u": min < max passes on mongos (check 5),
    # so the config server's storage check is the one that answers (regexes are not stored).
    with pytest.raises(OperationFailure) as info:
        _assign(cluster, Regex("a", "i"), re.compile("a"))
    assert info.value.code == 2, info.value.details
    assert "is not valid for storage" in str(info.value.details)


def test_split_points_keep_chunks_in_server_order(cluster: Any) -> None:
    # The chunk store bisects on the sandbox's KeyString port: BinData(0, "abc") (3 bytes)
    # lies below BinData(2, "ab") (6 bytes with its inner length), whichever is split first.
    admin, config = cluster.client.admin, cluster.client.config
    admin.command("split", "test.c", middle={"x": Binary(b"ab", 2)})
    admin.command("split", "test.c", middle={"x": Binary(b"abc", 0)})
    bounds = [(d["min"]["x"], d["max"]["x"]) for d in config.chunks.find({}, sort=[("min", 1)])]
    assert bounds == [
        (MinKey(), b"abc"),
        (b"abc", Binary(b"ab", 2)),
        (Binary(b"ab", 2), MaxKey()),
    ]
