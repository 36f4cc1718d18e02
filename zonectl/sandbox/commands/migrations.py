"""Chunk commands: moveChunk, moveRange (6.0+), split, mergeChunks, clearJumboFlag (ref §4).

moveChunk is the errmsg-style command through 5.0 (malformed input gets an `errmsg` and no
code) and a typed command from 6.0 (InvalidOptions and numeric assertions), per
mongo:src/mongo/s/commands/cluster_move_chunk_cmd.cpp in each version. split stays
errmsg-style in every version (cluster_split_cmd.cpp). Every move ignores `noBalance`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.balancer import view
from zonectl.sandbox.balancer.manual_moves import check_move_allowed, move_chunk, refresh_for_move
from zonectl.sandbox.bsontypes import type_name
from zonectl.sandbox.catalog.chunks import ChunkStore
from zonectl.sandbox.commands import move_rules
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError
from zonectl.sandbox.keyorder import compare
from zonectl.sandbox.state import Sandbox
from zonectl.sandbox.tostring import to_string


def _errmsg(message: str) -> CommandError:
    """An ErrmsgCommandDeprecated failure: `ok: 0, errmsg`, no code (pymongo: code None)."""
    return CommandError(None, message)


def _bounds_text(lo: Any, hi: Any) -> str:
    return f"[{to_string(lo)},{to_string(hi)})"


def _shard_exists(sandbox: Sandbox, shard: str) -> bool:
    return sandbox.cluster.shard_doc(shard) is not None


# --------------------------------------------------------------------------- moveChunk
def _locate_errmsg_style(request: Request, store: ChunkStore, key: dict[str, Any]) -> int:
    """5.0 moveChunk: find/bounds as errmsg failures."""
    body = request.body
    find = body.get("find") if isinstance(body.get("find"), Mapping) else {}
    raw_bounds = body.get("bounds")
    bounds = raw_bounds if isinstance(raw_bounds, list | Mapping) else []
    if bool(find) == bool(bounds):
        raise _errmsg("need to specify either a find query, or both lower and upper bounds.")
    if find:
        shard_key = move_rules.extract_shard_key(find, key)
        if not shard_key:
            raise _errmsg(f"no shard key found in chunk query {to_string(find)}")
        return store.find(shard_key)
    pair = list(bounds.values()) if isinstance(bounds, Mapping) else list(bounds)
    lo, hi = [*pair, None, None][:2]
    if not (move_rules.is_shard_key(lo, key) and move_rules.is_shard_key(hi, key)):
        raise _errmsg(
            f"shard key bounds {_bounds_text(lo, hi)} are not valid for shard key pattern "
            f"{to_string(key)}"
        )
    return _exact_chunk(store, key, lo, hi, None)


def _exact_chunk(
    store: ChunkStore, key: dict[str, Any], lo: Any, hi: Any, assertion: int | None
) -> int:
    lo, hi = move_rules.normalize(lo, key), move_rules.normalize(hi, key)
    i = store.find(lo)
    if compare(store.min_at(i), lo) != 0 or compare(store.max_at(i), hi) != 0:
        text = f"no chunk found with the shard key bounds {to_string(lo)} -> {to_string(hi)}"
        raise _errmsg(text) if assertion is None else CommandError.assertion(assertion, text)
    return i


def _locate_typed(request: Request, store: ChunkStore, key: dict[str, Any]) -> int:
    """6.0+ moveChunk: InvalidOptions, then assertions 656450-656452."""
    body = request.body
    find, bounds = body.get("find"), body.get("bounds")
    if bounds is not None and (not isinstance(bounds, list) or len(bounds) != 2):
        raise CommandError.of("InvalidOptions", "bounds can only have exactly 2 elements")
    if find is not None and bounds is not None:
        raise CommandError.of("InvalidOptions", "cannot specify bounds and query at the same time")
    if find is None and bounds is None:
        raise CommandError.of("InvalidOptions", "need to specify query or bounds")
    return -1  # resolved after the destination check, as the typed command orders them


def _resolve_typed(request: Request, store: ChunkStore, key: dict[str, Any]) -> int:
    find, bounds = request.body.get("find"), request.body.get("bounds")
    if find is not None:
        shard_key = move_rules.extract_shard_key(find, key) if isinstance(find, Mapping) else {}
        if not shard_key:
            text = f"no shard key found in chunk query {to_string(find)}"
            raise CommandError.assertion(656450, text)
        return store.find(shard_key)
    assert isinstance(bounds, list)
    lo, hi = bounds
    if not (move_rules.is_shard_key(lo, key) and move_rules.is_shard_key(hi, key)):
        raise CommandError.assertion(
            656451,
            f"shard key bounds {_bounds_text(lo, hi)} are not valid for shard key pattern "
            f"{to_string(key)}",
        )
    return _exact_chunk(store, key, lo, hi, 656452)


def _parse_to(request: Request, typed: bool) -> str:
    to = request.body.get("to")
    if typed and "to" not in request.body:
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'moveChunk.to' is missing but a required field"
        )
    if not isinstance(to, str):
        if typed:
            raise CommandError.of(
                "TypeMismatch",
                f"BSON field 'moveChunk.to' is the wrong type "
                f"'{type_name(to)}', expected type 'string'",
            )
        raise CommandError.of("TypeMismatch", "'to' must be of type String")
    return to


@command("moveChunk", aliases=("movechunk",), admin_only=True)
def move_chunk_cmd(request: Request) -> dict[str, Any]:
    sandbox = request.sandbox
    typed = sandbox.version.move_chunk_typed_errors
    if typed:
        ns = move_rules.typed_namespace(request)
        to = _parse_to(request, typed)
    else:
        ns = move_rules.fully_qualified_namespace(request)
    store = move_rules.routing_store(sandbox.cluster, ns)
    key = move_rules.key_pattern(sandbox.cluster, ns)
    if typed:
        _locate_typed(request, store, key)
    else:
        to = _parse_to(request, typed)
        if not to:
            raise _errmsg("you have to specify where you want to move the chunk")
    if not _shard_exists(sandbox, to):
        raise CommandError.of(
            "ShardNotFound",
            f"Could not move chunk in {ns} to {to} because that shard does not exist",
        )
    i = _resolve_typed(request, store, key) if typed else _locate_errmsg_style(request, store, key)
    refresh_for_move(sandbox.balancer)
    if sandbox.version.manual_moves_check_zones:
        check_move_allowed(sandbox.cluster, ns, i, to)
    force = bool(request.body.get("forceJumbo", False))
    deadline = move_rules.deadline_of(request)
    move_chunk(sandbox.balancer, ns, i, to, force_jumbo=force, deadline=deadline)
    return {"millis": 0}


# --------------------------------------------------------------------------- moveRange
def _range_bound(request: Request, name: str, key: dict[str, Any]) -> dict[str, Any] | None:
    value = request.body.get(name)
    if value is None:
        return None
    if not move_rules.is_shard_key(value, key):
        # Balancer::moveRange validates each bound against the shard key (InvalidOptions,
        # move_range_basic.js); the wording is the sandbox's own.
        raise CommandError.of(
            "InvalidOptions",
            f"{name} bound {to_string(value)} is not a valid shard key for shard key "
            f"pattern {to_string(key)}",
        )
    return move_rules.normalize(value, key)


@command("moveRange", admin_only=True, exists_in=lambda version: version.has_move_range)
def move_range_cmd(request: Request) -> dict[str, Any]:
    sandbox = request.sandbox
    version = sandbox.version
    ns = move_rules.typed_namespace(request)
    to = request.body.get("toShard")
    if not isinstance(to, str):
        raise CommandError.of(
            "IDLFailedToParse", "BSON field 'moveRange.toShard' is missing but a required field"
        )
    has_min, has_max = "min" in request.body, "max" in request.body
    if not version.move_range_one_bound and not has_min:
        raise CommandError.of("InvalidOptions", "Missing required parameter 'min'")
    if not has_min and not has_max:
        raise CommandError.of("InvalidOptions", "At least one of 'min' or 'max' must be specified")
    store = move_rules.routing_store(sandbox.cluster, ns)
    key = move_rules.key_pattern(sandbox.cluster, ns)
    if not _shard_exists(sandbox, to):
        raise CommandError.of("ShardNotFound", f"Shard {to} not found")
    refresh_for_move(sandbox.balancer)  # before the bounds are checked or a chunk split
    lo, hi = _range_bound(request, "min", key), _range_bound(request, "max", key)
    if lo is not None and hi is not None and compare(lo, hi) >= 0:
        raise CommandError.of(
            "InvalidOptions", f"min {to_string(lo)} must be less than max {to_string(hi)}"
        )
    i = _carve_range(sandbox, ns, store, lo, hi)
    force = bool(request.body.get("forceJumbo", False))
    move_chunk(
        sandbox.balancer, ns, i, to, force_jumbo=force, deadline=move_rules.deadline_of(request)
    )
    return {}


def _carve_range(
    sandbox: Sandbox, ns: str, store: ChunkStore, lo: dict[str, Any] | None, hi: Any
) -> int:
    """Split the owning chunk so [lo, hi) is exactly one chunk; the index of that chunk.

    With one bound the range is at most one chunk size starting at min (or ending at max),
    as the donor's autoSplitVector would pick it.
    """
    anchor = lo if lo is not None else hi
    assert anchor is not None
    i = store.find(anchor)
    if lo is None and compare(store.min_at(i), anchor) == 0 and i > 0:
        i -= 1  # a max equal to a chunk's min names the chunk ending there
    c_lo, c_hi = store.min_at(i), store.max_at(i)
    if lo is not None and hi is not None and compare(hi, c_hi) > 0:
        # Before 8.3 a range spanning chunks is undefined (§4.2); the sandbox refuses it.
        raise CommandError.of("InvalidOptions", "min and max must lie within a single chunk")
    if lo is not None and hi is None:
        hi = _sized_end(sandbox, ns, store, i, from_min=True)
    if hi is not None and lo is None:
        lo = _sized_end(sandbox, ns, store, i, from_min=False)
    points = [p for p in (lo, hi) if compare(c_lo, p) < 0 and compare(p, c_hi) < 0]
    if points:
        pieces = sandbox.balancer.split_chunk(ns, i, points)
        i = pieces[0] if compare(c_lo, lo) == 0 else pieces[1]
    return i


def _sized_end(sandbox: Sandbox, ns: str, store: ChunkStore, i: int, from_min: bool) -> Any:
    max_bytes = view.max_chunk_size_bytes(sandbox.cluster, ns, sandbox.balancer.current_settings())
    size = store.size_at(i)
    if size <= max_bytes:
        return store.max_at(i) if from_min else store.min_at(i)
    fraction = max_bytes / size
    point = view.interpolate_key(
        store.min_at(i), store.max_at(i), fraction if from_min else 1 - fraction, store.extent
    )
    if point is None:
        return store.max_at(i) if from_min else store.min_at(i)
    return point
