"""What the sampler records of a command the sandbox served: the namespace, the statements
as config.sampledQueries stores them, and the diff of each sampled write that modified a
document (sampler.py cites the MongoDB sources).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from zonectl.sandbox.sampling.sampler import READS, WRITES, Sampler

_SIMPLE: dict[str, Any] = {}


def observe(
    sampler: Sampler, name: str, db: str, body: Mapping[str, Any], reply: Mapping[str, Any],
    now: dt.datetime,
) -> None:  # fmt: skip
    """Offer a served command to the sampler (a no-op unless its collection is sampled)."""
    if name == "findandmodify":
        name = "findAndModify"
    if name not in READS and name not in WRITES:
        return
    coll = body.get(name)
    if not isinstance(coll, str):
        return
    ns = f"{db}.{coll}"
    if not sampler.is_sampled(ns):
        return
    if name in READS:
        # The bucket first: most served queries are not sampled, and cost nothing more.
        if sampler.admit(ns, now):
            sampler.record(ns, name, _statements(name, coll, body)[0], now)
        return
    modified = _modified(name, reply)
    for cmd in _statements(name, coll, body):
        if not sampler.admit(ns, now):
            break
        sample_id = sampler.record(ns, name, cmd, now)
        if modified:
            sampler.record_diff(ns, sample_id, diff_of(_modification(name, cmd)), now)


def _statements(name: str, coll: str, body: Mapping[str, Any]) -> list[dict[str, Any]]:
    if name == "find":
        return [_read(body.get("filter"), body)]
    if name == "count":
        return [_read(body.get("query"), body)]
    if name == "distinct":
        return [_read(body.get("query"), body)]
    if name == "aggregate":
        pipeline = body.get("pipeline")
        first = pipeline[0] if isinstance(pipeline, list) and pipeline else {}
        match = first.get("$match") if isinstance(first, Mapping) else None
        return [_read(match, body)]
    if name == "findAndModify":
        keep = ("query", "update", "remove", "upsert", "new", "sort", "collation", "let")
        cmd = {"findAndModify": coll, **{k: body[k] for k in keep if k in body}}
        return [cmd]
    field = "updates" if name == "update" else "deletes"
    ops = body.get(field)
    if not isinstance(ops, list):
        return []
    extra = {k: body[k] for k in ("ordered", "let") if k in body}
    return [{name: coll, field: [op], **extra} for op in ops if isinstance(op, Mapping)]


def _read(query: Any, body: Mapping[str, Any]) -> dict[str, Any]:
    cmd: dict[str, Any] = {
        "filter": dict(query) if isinstance(query, Mapping) else {},
        "collation": dict(body.get("collation") or _SIMPLE),
    }
    if isinstance(body.get("let"), Mapping):
        cmd["let"] = dict(body["let"])
    return cmd


def _modified(name: str, reply: Mapping[str, Any]) -> bool:
    if name == "update":
        return int(reply.get("nModified", 0) or 0) > 0 or bool(reply.get("upserted"))
    if name == "findAndModify":
        last = reply.get("lastErrorObject")
        return isinstance(last, Mapping) and bool(last.get("n"))
    return False  # a delete has no diff


def _modification(name: str, cmd: Mapping[str, Any]) -> Any:
    if name == "findAndModify":
        return cmd.get("update")
    op = cmd["updates"][0]
    return op.get("u") if isinstance(op, Mapping) else None


def diff_of(modification: Any) -> dict[str, Any]:
    """The $v:2 diff sections of an update: `u` (set) and `d` (removed) top-level fields."""
    if isinstance(modification, list):  # a pipeline: its $set/$unset stages
        out: dict[str, Any] = {}
        for stage in modification:
            if isinstance(stage, Mapping):
                for section, fields in diff_of(stage).items():
                    out.setdefault(section, {}).update(fields)
        return out
    if not isinstance(modification, Mapping):
        return {}
    if not any(str(k).startswith("$") for k in modification):
        return {"u": {k: v for k, v in modification.items() if k != "_id"}}
    updated: dict[str, Any] = {}
    deleted: dict[str, Any] = {}
    for op, fields in modification.items():
        names = [fields] if isinstance(fields, str) else list(fields or {})
        for path in names:
            top = str(path).split(".", 1)[0]
            if op in ("$unset",):
                deleted[top] = False
            else:
                value = fields[path] if isinstance(fields, Mapping) else None
                updated[top] = value
    out = {}
    if updated:
        out["u"] = updated
    if deleted:
        out["d"] = deleted
    return out
