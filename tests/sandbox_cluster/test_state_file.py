"""The sandbox's state file (sandbox/seed/persist.py): whatever a run left behind, a
defragmentation's bookkeeping included, is saved and read back unchanged, and a save that
fails keeps the previous file."""

from __future__ import annotations

import datetime as dt
import os
import resource
import signal
import socket
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import child_procs
import pytest
from bson import Binary, Code, Decimal128, Int64, ObjectId, Regex, Timestamp
from bson.codec_options import CodecOptions, DatetimeConversion
from bson.datetime_ms import DatetimeMS
from bson.max_key import MaxKey
from bson.min_key import MinKey
from bson.raw_bson import RawBSONDocument
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from pymongo import MongoClient
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import persist
from zonectl.sandbox.state import Sandbox

DEFRAGMENT = """\
apiVersion: zonectl/v1
kind: ZonePolicy
collections: {app.events: {defragment: true}}
"""
NOW = "2026-03-02T10:00:00Z"

if not app.registered_commands:
    register(app)


def _zonectl(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def test_apply_of_a_defragmentation_saves_the_state_and_the_next_plan_is_empty(
    tmp_path: Path,
) -> None:
    policy, state = tmp_path / "p.yaml", tmp_path / "s.state"
    policy.write_text(DEFRAGMENT)
    uri = f"sandbox:?version=7.0&now={NOW}&state={state}"
    applied = _zonectl("apply", str(policy), "--uri", uri, "--yes")
    assert applied.exit_code == 0, applied.output
    assert "done   start defragment of app.events" in applied.output
    assert "internal error" not in applied.output
    assert persist.read_version(state) == "7.0"
    again = _zonectl("plan", str(policy), "--uri", uri, "--detailed-exitcode")
    assert again.exit_code == 0, again.output
    assert "No changes" in again.output


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _serve_sandbox(port: int, state: Path) -> subprocess.Popen[str]:
    proc = child_procs.popen(
        [sys.executable, "-m", "zonectl", "sandbox", "--port", str(port), "--state", str(state),
         "--balancer-interval", "0"],
        stderr=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )  # fmt: skip
    assert proc.stderr is not None
    assert f"mongodb://127.0.0.1:{port}/" in proc.stderr.readline()
    return proc


def test_zonectl_sandbox_keeps_a_started_defragmentation_across_ctrl_c(tmp_path: Path) -> None:
    port, state, policy = _free_port(), tmp_path / "s.state", tmp_path / "p.yaml"
    policy.write_text(DEFRAGMENT)
    uri = f"mongodb://127.0.0.1:{port}/"
    proc = _serve_sandbox(port, state)
    try:
        applied = _zonectl("apply", str(policy), "--uri", uri, "--yes")
        assert applied.exit_code == 0, applied.output
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=60) == 0
        assert proc.stderr is not None
        err = proc.stderr.read()
        assert f"state saved to {state}" in err and "error" not in err
    finally:
        if proc.poll() is None:
            proc.kill()
    proc = _serve_sandbox(port, state)
    try:
        client: MongoClient[dict[str, Any]] = MongoClient(uri, serverSelectionTimeoutMS=5000)
        doc = client.config.collections.find_one({"_id": "app.events"})
        client.close()
        assert doc is not None and doc["defragmentCollection"] is True
        again = _zonectl("plan", str(policy), "--uri", uri, "--detailed-exitcode")
        assert again.exit_code == 0, again.output
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=60)


def test_a_save_that_fails_keeps_the_previous_state_file(tmp_path: Path) -> None:
    """The second run's save hits the file-size limit (EFBIG: Python ignores SIGXFSZ): one
    line naming the file, exit 1, and the first run's file still loads."""
    state, policy = tmp_path / "s.state", tmp_path / "p.yaml"
    policy.write_text(DEFRAGMENT)
    first = _zonectl("plan", str(policy), "--uri", f"sandbox:?version=6.0&now={NOW}&state={state}")
    assert first.exit_code == 0, first.output
    before = state.read_bytes()
    limit = len(before) // 2

    def small_files() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    out = child_procs.run(
        [sys.executable, "-m", "zonectl", "apply", str(policy), "--yes",
         "--uri", f"sandbox:?now={NOW}&state={state}"],
        capture_output=True, text=True, timeout=120, preexec_fn=small_files,
    )  # fmt: skip
    assert out.returncode == 1, out.stderr
    assert "done   start defragment of app.events" in out.stderr
    assert (
        f"{state}: could not save the sandbox state (File too large); its previous content is kept"
        in out.stderr
    )
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
    assert state.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


# What a client may store: every BSON type, UUIDs (subtype 4, 16 bytes) as pymongo sends them,
# legacy UUIDs (subtype 3), dates
# outside Python's datetime range, documents and arrays of them.
_CLIENT: dict[str, Any] = {
    "tz_aware": True,
    "uuidRepresentation": "standard",
    "datetime_conversion": DatetimeConversion.DATETIME_AUTO,
    "serverSelectionTimeoutMS": 5000,
}
_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**31), 2**31 - 1),
    st.integers(-(2**63), 2**63 - 1).map(Int64),
    st.floats(allow_nan=False),
    st.text(max_size=6),
    st.uuids(),
    st.builds(Binary, st.binary(max_size=20), st.sampled_from([0, 2, 5, 6, 0x80])),
    st.uuids().map(lambda u: Binary(u.bytes, 3)),
    st.datetimes(timezones=st.just(dt.UTC)).map(
        lambda d: d.replace(microsecond=d.microsecond // 1000 * 1000)
    ),
    st.integers(2**53, 2**62).map(DatetimeMS),  # beyond datetime's year 9999
    st.integers(-(2**62), -(2**53)).map(DatetimeMS),
    st.builds(ObjectId),
    st.integers(-(10**9), 10**9).map(lambda n: Decimal128(f"{n}E-3")),
    st.builds(Regex, st.text("abc.*", max_size=4), st.sampled_from(["", "i", "ms"])),
    st.builds(Timestamp, st.integers(0, 2**31), st.integers(0, 2**31)),
    st.builds(MinKey),
    st.builds(MaxKey),
    st.builds(Code, st.text("xyz();", max_size=6)),
)
_keys = st.text("abcdefgh_", min_size=1, max_size=4)
_values = st.recursive(
    _scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_keys, inner, max_size=3),
    max_leaves=8,
)
_documents = st.dictionaries(_keys, _values, max_size=4)


def _raw_docs(client: MongoClient[Any], ns: str) -> list[bytes]:
    db, coll = ns.split(".", 1)
    raw = client[db].get_collection(coll, codec_options=CodecOptions(RawBSONDocument))
    return [bytes(doc.raw) for doc in raw.find({}).sort("_id", 1)]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@example(
    docs=[
        {
            "u": uuid.UUID(int=7),
            "far": DatetimeMS(2**62),
            "at": dt.datetime(2026, 3, 2, tzinfo=dt.UTC),
        }
    ],
    ns="zonectl.once",
)
@given(docs=st.lists(_documents, min_size=1, max_size=4), ns=st.sampled_from(["a.b", "zonectl.x"]))
def test_every_value_a_client_stored_is_read_back_unchanged_after_a_save(
    tmp_path_factory: pytest.TempPathFactory, docs: list[dict[str, Any]], ns: str
) -> None:
    path = tmp_path_factory.mktemp("state") / "s.state"
    sandbox = Sandbox("7.0")
    with serve(sandbox) as server:
        client: MongoClient[Any] = MongoClient(server.uri, **_CLIENT)
        db, coll = ns.split(".", 1)
        client[db][coll].insert_many([{"_id": i, **doc} for i, doc in enumerate(docs)])
        stored = _raw_docs(client, ns)
        client.close()
    persist.save(sandbox, path)
    again = Sandbox("7.0")
    persist.load(again, path)
    with serve(again) as server:
        client = MongoClient(server.uri, **_CLIENT)
        assert _raw_docs(client, ns) == stored
        # A stored UUID still matches the same UUID in a query after the reload.
        for i, doc in enumerate(docs):
            for key, value in doc.items():
                if isinstance(value, uuid.UUID):
                    assert client[db][coll].count_documents({"_id": i, key: value}) == 1
        client.close()


def test_a_collection_keeps_its_uuid_for_query_analyzers_after_a_reload(tmp_path: Path) -> None:
    """config.queryAnalyzers' _id is the collection's UUID (configure_query_analyzer_cmd.cpp),
    also when the analyzer is configured after the state was saved and loaded."""
    from zonectl.sandbox.uri import start

    uri = f"sandbox:?now={NOW}&state={tmp_path / 's.state'}"
    for _ in range(2):
        with start(uri) as handle:
            client: MongoClient[Any] = MongoClient(handle.uri, **_CLIENT)
            client.admin.command(
                "configureQueryAnalyzer", "app.audit", mode="full", samplesPerSecond=1
            )
            coll = client.config.collections.find_one({"_id": "app.audit"})
            analyzer = client.config.queryAnalyzers.find_one({"ns": "app.audit"})
            client.close()
            assert coll is not None and analyzer is not None
            assert analyzer["_id"] == coll["uuid"]
