"""split, mergeChunks and clearJumboFlag: chunk-boundary commands (reference §4.3, §5.4).

split is an errmsg-style command in every version (mongo:src/mongo/s/commands/
cluster_split_cmd.cpp): its validation failures carry an `errmsg` and no code, in the order
and words of that file. Split keys the shard would compute (`splitVector` for `find` /
`bounds`) are interpolated by `balancer_view` because the sandbox holds no documents.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.merges import commit_merge
from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import compare
from zonectl.sandbox.tostring import to_string


def _errmsg(message: str) -> CommandError:
    return CommandError(None, message)


def _object_field(body: Mapping[str, Any], name: str, expected: str) -> Any:
    """FieldParser::extract: absent -> empty; a wrong type is FIELD_INVALID (errmsg)."""
    if name not in body:
        return {} if expected == "object" else []
    value = body[name]
    ok = isinstance(value, Mapping) if expected == "object" else isinstance(value, list)
    if not ok:
        raise _errmsg(
            f"wrong type for '{name}' field, expected {expected}, found {name}: {to_string(value)}"
        )
    return value


@command("split", admin_only=True, supports_write_concern=False)
def split_cmd(request: Request) -> dict[str, Any]:
    sandbox = request.sandbox
    ns = move_rules.fully_qualified_namespace(request)
    store = move_rules.routing_store(sandbox.cluster, ns)
    key = move_rules.key_pattern(sandbox.cluster, ns)
    body = request.body
    find = _object_field(body, "find", "object")
    bounds = _object_field(body, "bounds", "array")
    if bounds:
        if len(bounds) < 1:
            raise _errmsg("lower bound not specified")
        if len(bounds) < 2:
            raise _errmsg("upper bound not specified")
    if find and bounds:
        raise _errmsg("cannot specify bounds and find at the same time")
    middle = _object_field(body, "middle", "object")
    if not find and not bounds and not middle:
        raise _errmsg("need to specify find/bounds or middle")
    if find and middle:
        raise _errmsg("cannot specify find and middle together")
    if bounds and middle:
        raise _errmsg("cannot specify bounds and middle together")
    if find:
        shard_key = move_rules.extract_shard_key(find, key)
        if not shard_key:
            raise _errmsg(f"no shard key found in chunk query {to_string(find)}")
        i = store.find(shard_key)
    elif bounds:
        lo, hi = bounds[0], bounds[1]
        if not (move_rules.is_shard_key(lo, key) and move_rules.is_shard_key(hi, key)):
            raise _errmsg(
                f"shard key bounds [{to_string(lo)},{to_string(hi)}) are not valid for "
                f"shard key pattern {to_string(key)}"
            )
        lo, hi = move_rules.normalize(lo, key), move_rules.normalize(hi, key)
        i = store.find(lo)
        if compare(store.min_at(i), lo) != 0 or compare(store.max_at(i), hi) != 0:
            raise _errmsg(
                f"no chunk found with the shard key bounds {to_string(lo)} -> {to_string(hi)}"
            )
    else:
        if not move_rules.is_shard_key(middle, key):
            raise _errmsg(
                f"new split key {to_string(middle)} is not valid for shard key pattern "
                f"{to_string(key)}"
            )
        middle = move_rules.normalize(middle, key)
        i = store.find(middle)
        if compare(store.min_at(i), middle) == 0 or compare(store.max_at(i), middle) == 0:
            raise _errmsg(
                f"new split key {to_string(middle)} is a boundary key of existing chunk "
                f"[{to_string(store.min_at(i))},{to_string(store.max_at(i))})"
            )
    point = middle if middle else _median(store, i)
    sandbox.balancer.split_chunk(ns, i, [point])
    return {}


def _median(store: Any, i: int) -> dict[str, Any]:
    """splitVector with `force`: the chunk's median key, or CannotSplit (87)."""
    point = view.interpolate_key(store.min_at(i), store.max_at(i), 0.5, store.extent)
    if point is None or store.count_at(i) == 1:
        raise CommandError(
            87, "Unable to find median in chunk because chunk is indivisible.", "CannotSplit"
        )
    return point


@command("mergeChunks", admin_only=True)
def merge_chunks_cmd(request: Request) -> dict[str, Any]:
    """cluster_merge_chunks_cmd.cpp, then the config server's commitChunksMerge checks."""
    sandbox = request.sandbox
    ns = move_rules.fully_qualified_namespace(request)
    bounds = request.body.get("bounds")
    if not isinstance(bounds, list) or not bounds:
        raise _errmsg("no bounds were specified")
    if len(bounds) != 2:
        raise _errmsg("only a min and max bound may be specified")
    store = move_rules.routing_store(sandbox.cluster, ns)
    key = move_rules.key_pattern(sandbox.cluster, ns)
    lo, hi = bounds
    if not (move_rules.is_shard_key(lo, key) and move_rules.is_shard_key(hi, key)):
        raise _errmsg(
            f"shard key bounds [{to_string(lo)},{to_string(hi)}) are not valid for "
            f"shard key pattern {to_string(key)}"
        )
    lo, hi = move_rules.normalize(lo, key), move_rules.normalize(hi, key)
    first = store.find(lo)
    shard = store.shard_at(first)
    last = store.find(hi) - (1 if store.index_of_min(hi) is not None else 0)
    exact = (
        compare(store.min_at(first), lo) == 0
        and compare(lo, hi) < 0
        and compare(store.max_at(last), hi) == 0
        and all(store.shard_at(j) == shard for j in range(first, last + 1))
    )
    if not exact:
        raise CommandError.of(
            "IllegalOperation",
            f"could not merge chunks, shard {shard} does not contain a sequence of chunks "
            f"that exactly fills the range [{to_string(lo)}, {to_string(hi)})",
        )
    if last > first:
        commit_merge(sandbox.cluster, ns, first, last + 1)
    return {}


@command("clearJumboFlag", admin_only=True)
def clear_jumbo_flag_cmd(request: Request) -> dict[str, Any]:
    """cluster_clear_jumbo_flag_cmd.cpp: find or bounds (numbered assertions, inferred)."""
    sandbox = request.sandbox
    ns = move_rules.typed_namespace(request)
    store = move_rules.routing_store(sandbox.cluster, ns)
    key = move_rules.key_pattern(sandbox.cluster, ns)
    find, bounds = request.body.get("find"), request.body.get("bounds")
    if find is not None and bounds is not None:
        raise CommandError.assertion(51261, "cannot specify bounds and find at the same time")
    if find is None and bounds is None:
        raise CommandError.assertion(51260, "need to specify find or bounds")
    if find is not None:
        shard_key = move_rules.extract_shard_key(find, key) if isinstance(find, Mapping) else {}
        if not shard_key:
            text = f"no shard key found in chunk query {to_string(find)}"
            raise CommandError.assertion(51260, text)
        i = store.find(shard_key)
    else:
        if not isinstance(bounds, list) or len(bounds) != 2:
            raise CommandError.assertion(51261, "bounds can only have exactly 2 elements")
        lo, hi = bounds
        if not (move_rules.is_shard_key(lo, key) and move_rules.is_shard_key(hi, key)):
            raise CommandError.assertion(
                51262,
                f"shard key bounds [{to_string(lo)},{to_string(hi)}) are not valid for "
                f"shard key pattern {to_string(key)}",
            )
        lo, hi = move_rules.normalize(lo, key), move_rules.normalize(hi, key)
        i = store.find(lo)
        if compare(store.min_at(i), lo) != 0 or compare(store.max_at(i), hi) != 0:
            raise CommandError.assertion(
                51263,
                f"no chunk found with the shard key bounds {to_string(lo)} -> {to_string(hi)}",
            )
    if store.jumbo_at(i):
        store.set_jumbo(i, False)
    return {}
