"""The malformed-policy corpus: every case, hand-written or generated, ends in diagnostics
and exit 3 through the real CLI, never a traceback or an internal error."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

Run = Callable[..., tuple[int, str, str]]

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
OK = HEAD + "shards: {s0: [hot, cold]}\ncollections:\n"
DIAGNOSTIC = re.compile(r"^\S.*?: (error|warning) ZP\d{3} ", re.MULTILINE)


def _bomb(width: int, depth: int) -> str:
    lines = [f"a0: &a0 [{', '.join(['x'] * width)}]"]
    for i in range(1, depth):
        lines.append(f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * width)}]")
    return HEAD + "\n".join(lines) + "\n"


def _merge_bomb(depth: int) -> str:
    lines = ["m0: &m0 {k0: 1, k1: 2, k2: 3}"]
    for i in range(1, depth):
        lines.append(f"m{i}: &m{i} {{<<: [*m{i - 1}], l{i}: [*m{i - 1}, *m{i - 1}, *m{i - 1}]}}")
    return HEAD + "\n".join(lines) + "\n"


TEXT_CASES: dict[str, str] = {
    # YAML itself
    "empty": "",
    "only_comment": "# nothing here\n",
    "scalar_document": "just a string\n",
    "list_document": "- apiVersion: zonectl/v1\n",
    "tab_indent": HEAD + "shards:\n\t s0: [a]\n",
    "unclosed_flow_map": HEAD + "shards: {s0: [a]\n",
    "unclosed_flow_seq": HEAD + "shards: {s0: [a, b}\n",
    "unclosed_quote": HEAD + 'shards: {"s0: [a]}\n',
    "bad_indent": HEAD + "shards:\n  s0: [a]\n s1: [b]\n",
    "undefined_alias": HEAD + "shards: {s0: *nope}\n",
    "recursive_alias": HEAD + "shards: &s {s0: *s}\n",
    "recursive_merge": HEAD + "x: &x {<<: *x}\n",
    "merge_of_scalar": HEAD + "shards:\n  <<: 5\n",
    "complex_key": HEAD + "? [a, b]\n: 1\n",
    "binary_tag": HEAD + "shards: !!binary aGVsbG8=\n",
    "custom_tag": HEAD + "shards: !zones {s0: [a]}\n",
    "set_tag": HEAD + "shards: !!set {a, b}\n",
    "duplicate_top_key": HEAD + "kind: ZonePolicy\n",
    "duplicate_shard": HEAD + "shards:\n  s0: [a]\n  s0: [a]\n",
    "duplicate_in_bound": OK
    + "  app.x:\n    ranges: [{zone: hot, min: {a: 1, a: 2}, max: {a: 3}}]\n",
    "control_character": HEAD + "shards: {s0: [a\x07]}\n",
    "bad_int": "%YAML 1.1\n---\n" + HEAD + "shards: {s0: [a]}\nx: 1:2:3\n",
    "document_end_garbage": HEAD + "...\n---\n- 1\n",
    "deep_flow": HEAD + "x: " + "[" * 3000 + "]" * 3000 + "\n",
    "deep_flow_unclosed": HEAD + "x: " + "{a: " * 2000 + "\n",
    "deep_block": HEAD + "".join("  " * i + f"k{i}:\n" for i in range(120)) + "  " * 120 + "v\n",
    "nesting_65": HEAD + "x: " + "[" * 66 + "]" * 66 + "\n",
    "alias_bomb_lists": _bomb(10, 9),
    "alias_bomb_wide": _bomb(1000, 3),
    "merge_bomb": _merge_bomb(40),
    # header
    "no_header": "shards: {s0: [a]}\n",
    "wrong_api_version": "apiVersion: zonectl/v2\nkind: ZonePolicy\n",
    "api_version_number": "apiVersion: 1\nkind: ZonePolicy\n",
    "kind_deployment": "apiVersion: zonectl/v1\nkind: Deployment\n",
    "kind_missing": "apiVersion: zonectl/v1\n",
    "kind_null": "apiVersion: zonectl/v1\nkind:\n",
    "kind_lowercase": "apiVersion: zonectl/v1\nkind: zonepolicy\n",
    # schema
    "unknown_top_key": HEAD + "shard: {s0: [a]}\n",
    "shards_list": HEAD + "shards: [s0, s1]\n",
    "shards_scalar": HEAD + "shards: s0\n",
    "shard_zones_string": HEAD + "shards: {s0: hot}\n",
    "shard_zones_null": HEAD + "shards: {s0: }\n",
    "shard_zone_number": HEAD + "shards: {s0: [1]}\n",
    "collections_list": HEAD + "collections: [app.x]\n",
    "collection_null": OK + "  app.x:\n",
    "collection_string": OK + "  app.x: pinned\n",
    "unknown_collection_key": OK + "  app.x: {pins: hot}\n",
    "key_list": OK + "  app.x: {key: [ts]}\n",
    "ranges_mapping": OK + "  app.x: {ranges: {zone: hot}}\n",
    "range_scalar": OK + "  app.x: {ranges: [hot]}\n",
    "range_missing_min": OK + "  app.x: {ranges: [{zone: hot, max: {a: 1}}]}\n",
    "range_min_scalar": OK + "  app.x: {ranges: [{zone: hot, min: 5, max: {a: 1}}]}\n",
    "range_zone_number": OK + "  app.x: {ranges: [{zone: 5, min: {a: 0}, max: {a: 1}}]}\n",
    "range_unknown_key": OK + "  app.x: {ranges: [{zone: hot, mn: {a: 0}, max: {a: 1}}]}\n",
    "pin_list": OK + "  app.x: {pin: [hot]}\n",
    "balancing_string": OK + "  app.x: {balancing: 'off'}\n",
    "balancing_int": OK + "  app.x: {balancing: 0}\n",
    "migrate_bad": OK + "  app.x: {migrate: now}\n",
    "firehose_scalar": OK + "  app.x: {firehose: daily}\n",
    "firehose_missing_fields": OK + "  app.x: {firehose: {field: ts}}\n",
    "firehose_bad_type": OK
    + "  app.x: {key: {ts: 1}, firehose: {field: ts, type: time, schedule: '@daily', hot: hot}}\n",
    "firehose_keep_zero": OK + "  app.x: {key: {ts: 1}, firehose: {field: ts, type: date, "
    "schedule: '@daily', hot: hot, keep: 0}}\n",
    "firehose_keep_string": OK + "  app.x: {key: {ts: 1}, firehose: {field: ts, type: date, "
    "schedule: '@daily', hot: hot, keep: '1'}}\n",
    "balancer_list": HEAD + "balancer: [on]\n",
    "balancer_enabled_string": HEAD + "balancer: {enabled: 'true'}\n",
    "balancer_unknown_key": HEAD + "balancer: {activeWindw: null}\n",
    "window_missing_stop": HEAD + "balancer: {activeWindow: {start: '23:00'}}\n",
    "window_number": HEAD + "balancer: {activeWindow: {start: 2300, stop: 600}}\n",
    # semantics
    "window_bad_time": HEAD + "balancer: {activeWindow: {start: '24:00', stop: '06:00'}}\n",
    "window_empty": HEAD + "balancer: {activeWindow: {start: '06:00', stop: '06:00'}}\n",
    "namespace_no_dot": OK + "  events: {pin: hot}\n",
    "namespace_empty_db": OK + "  .events: {pin: hot}\n",
    "namespace_dollar": OK + "  app.ev$nts: {pin: hot}\n",
    "namespace_local": OK + "  local.oplog: {pin: hot}\n",
    "namespace_system": OK + "  app.system.views: {pin: hot}\n",
    "namespace_too_long": OK + f"  app.{'x' * 300}: {{pin: hot}}\n",
    "empty_zone_name": HEAD + "shards: {s0: ['']}\n",
    "empty_shard_name": HEAD + "shards: {'': [a]}\n",
    "key_empty": OK + "  app.x: {key: {}}\n",
    "key_descending": OK + "  app.x: {key: {a: -1}}\n",
    "key_two_hashed": OK + "  app.x: {key: {a: hashed, b: hashed}}\n",
    "key_true": OK + "  app.x: {key: {a: true}}\n",
    "zone_not_on_shard": OK + "  app.x: {pin: warm}\n",
    "range_zone_not_on_shard": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: warm, min: {a: 0}, max: {a: 1}}]}\n",
    "min_above_max": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: 2}, max: {a: 1}}]}\n",
    "min_equals_max": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: 1}, max: {a: 1}}]}\n",
    "min_string_max_number": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: x}, max: {a: 1}}]}\n",
    "bound_not_prefix": OK
    + "  app.x: {key: {a: 1, b: 1}, ranges: [{zone: hot, min: {b: 0}, max: {a: 1}}]}\n",
    "bound_wrong_order": OK
    + "  app.x: {key: {a: 1, b: 1}, ranges: [{zone: hot, min: {b: 0, a: 0}, max: {a: 1}}]}\n",
    "bound_extra_field": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: 0, z: 0}, max: {a: 1}}]}\n",
    "bound_empty": OK + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {}, max: {a: 1}}]}\n",
    "bound_array": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: []}, max: {a: 1}}]}\n",
    "hashed_int32": OK
    + "  app.x: {key: {a: hashed}, ranges: [{zone: hot, min: {a: 0}, max: {a: 10}}]}\n",
    "hashed_double": OK + "  app.x: {key: {a: hashed}, ranges: [{zone: hot, min: {a: 0.5}, "
    "max: {a: {$maxKey: 1}}}]}\n",
    "bad_date": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: {$date: yesterday}}, max: {a: 1}}]}\n",
    "bad_oid": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: {$oid: xyz}}, max: {a: 1}}]}\n",
    "bad_minkey": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: {$minKey: 2}}, max: {a: 1}}]}\n",
    "bad_numberlong": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: {$numberLong: x}}, max: {a: 1}}]}\n",
    "unknown_dollar": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: {$minkey: 1}}, max: {a: 1}}]}\n",
    "date_extra_field": OK + "  app.x: {key: {a: 1}, ranges: [{zone: hot, "
    "min: {a: {$date: '2026-01-01T00:00:00Z', x: 1}}, max: {a: {$maxKey: 1}}}]}\n",
    "huge_int": OK
    + "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: 0}, max: {a: 1"
    + "0" * 30
    + "}}]}\n",
    "overlap": OK + "  app.x:\n    key: {a: 1}\n    ranges:\n"
    "      - {zone: hot, min: {a: 0}, max: {a: 10}}\n"
    "      - {zone: cold, min: {a: 5}, max: {a: 20}}\n",
    "contained": OK + "  app.x:\n    key: {a: 1}\n    ranges:\n"
    "      - {zone: hot, min: {a: 0}, max: {a: 10}}\n"
    "      - {zone: hot, min: {a: 2}, max: {a: 3}}\n",
    "pin_and_range": OK + "  app.x:\n    key: {a: 1}\n    pin: hot\n"
    "    ranges: [{zone: cold, min: {a: 0}, max: {a: 1}}]\n",
    "pin_and_firehose": OK + "  app.x:\n    key: {a: 1}\n    pin: hot\n"
    "    firehose: {field: a, type: epochSeconds, schedule: '@daily', hot: hot}\n",
    "firehose_not_first": OK + "  app.x:\n    key: {a: 1, b: 1}\n"
    "    firehose: {field: b, type: date, schedule: '@daily', hot: hot}\n",
    "firehose_field_missing_from_key": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: ts, type: date, schedule: '@daily', hot: hot}\n",
    "firehose_hashed": OK + "  app.x:\n    key: {a: hashed}\n"
    "    firehose: {field: a, type: date, schedule: '@daily', hot: hot}\n",
    "firehose_bad_cron": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: 'every day', hot: hot}\n",
    "firehose_cron_six_fields": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: '0 0 0 * * *', hot: hot}\n",
    "firehose_never_fires": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: '0 0 30 2 *', hot: hot}\n",
    "firehose_bad_zone": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: '@daily', timezone: Mars/Base, hot: hot}\n",
    "firehose_hot_is_cold": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: '@daily', hot: hot, cold: hot}\n",
    "firehose_cold_with_ranges": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: '@daily', hot: hot, cold: cold}\n"
    "    ranges: [{zone: cold, min: {a: 0}, max: {a: 1}}]\n",
    "firehose_zone_unknown": OK + "  app.x:\n    key: {a: 1}\n"
    "    firehose: {field: a, type: date, schedule: '@daily', hot: warm}\n",
}

BYTE_CASES: dict[str, bytes] = {
    "latin1": (HEAD + "# café\n").encode("latin-1"),
    "utf16": (HEAD + "shards: {s0: [a]}\n").encode("utf-16"),
    "nul_in_middle": HEAD.encode() + b"shards: {s0: [a\x00]}\n",
    "all_bytes": bytes(range(256)),
    "invalid_continuation": HEAD.encode() + b"x: \xc3\x28\n",
    "truncated_multibyte": HEAD.encode() + b"x: \xe2\x82\n",
    "lone_surrogate": HEAD.encode() + b"x: \xed\xa0\x80\n",
    "png_header": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "gzip": b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03",
}

VALID = (
    HEAD + "shards: {s0: [hot, cold]}\ncollections:\n"
    "  app.x: {key: {a: 1}, ranges: [{zone: hot, min: {a: 0}, max: {a: 10}}, "
    "{zone: cold, min: {a: 10}, max: {a: {$maxKey: 1}}}]}\n"
)
# Cut inside the last flow collection: always an unterminated flow mapping.
TRUNCATED = {
    f"truncated_at_{n}": VALID[:n]
    for n in range(len(VALID) - 100, len(VALID) - 1, 6)
    if VALID[n - 1] != "\n"
}

ALL_TEXT = {**TEXT_CASES, **TRUNCATED}


def test_the_corpus_has_at_least_100_cases() -> None:
    assert len(ALL_TEXT) + len(BYTE_CASES) >= 100


def _assert_rejected(result: tuple[int, str, str]) -> None:
    code, out, err = result
    assert code == 3, err
    assert DIAGNOSTIC.search(err), err
    assert "Traceback" not in out + err
    assert "internal error" not in err


@pytest.mark.parametrize("text", ALL_TEXT.values(), ids=ALL_TEXT.keys())
def test_malformed_text_policy_is_rejected_with_diagnostics(
    workdir: Path, zonectl: Run, text: str
) -> None:
    (workdir / "p.yaml").write_text(text, encoding="utf-8")
    _assert_rejected(zonectl("validate", "p.yaml"))


@pytest.mark.parametrize("data", BYTE_CASES.values(), ids=BYTE_CASES.keys())
def test_malformed_bytes_are_rejected_with_diagnostics(
    workdir: Path, zonectl: Run, data: bytes
) -> None:
    (workdir / "p.yaml").write_bytes(data)
    _assert_rejected(zonectl("validate", "p.yaml"))


def test_oversized_file_is_refused_without_parsing(workdir: Path, zonectl: Run) -> None:
    (workdir / "p.yaml").write_text(HEAD + "#" * (17 * 1024 * 1024) + "\n")
    code, _, err = zonectl("validate", "p.yaml")
    assert code == 3
    assert "error ZP103 file is 17,825,833 bytes, over the 16,777,216-byte limit" in err


_SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

_scalars = st.one_of(
    st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=8)
)
_garbage = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
)
_not_a_list = st.one_of(_scalars, st.dictionaries(st.text(max_size=6), _garbage, max_size=3))
_not_a_mapping = st.one_of(_scalars, st.lists(_garbage, max_size=3))


@_SETTINGS
@given(data=st.binary(max_size=300))
def test_random_bytes_are_rejected(workdir: Path, zonectl: Run, data: bytes) -> None:
    (workdir / "p.yaml").write_bytes(data)
    _assert_rejected(zonectl("validate", "p.yaml"))


@_SETTINGS
@given(text=st.text(max_size=300))
def test_random_text_is_rejected(workdir: Path, zonectl: Run, text: str) -> None:
    (workdir / "p.yaml").write_text(text, encoding="utf-8")
    _assert_rejected(zonectl("validate", "p.yaml"))


@_SETTINGS
@example(section="shards", garbage=None, wrong_list={}, wrong_map=None)
@given(
    section=st.sampled_from(["shards", "collections", "balancer", "ranges", "bound", "firehose"]),
    garbage=_garbage,
    wrong_list=_not_a_list,
    wrong_map=_not_a_mapping,
)
def test_policies_with_wrongly_typed_sections_are_rejected(
    workdir: Path,
    zonectl: Run,
    section: str,
    garbage: object,
    wrong_list: object,
    wrong_map: object,
) -> None:
    policy: dict[str, object] = {"apiVersion": "zonectl/v1", "kind": "ZonePolicy"}
    if section == "shards":
        # A mapping is a shard's long form ({} is an active shard with no zones): one with
        # a key the long form lacks stays wrong.
        wrong = {**wrong_list, "junk": 1} if isinstance(wrong_list, dict) else wrong_list
        policy["shards"] = {"s0": wrong}
    elif section == "collections":
        policy["collections"] = {"app.x": {"key": {"a": 1}, "pin": "z", "junk": garbage}}
    elif section == "balancer":
        # null is a valid activeWindow (no window): use a wrong top-level value then.
        window = {"enabled": True, "activeWindow": wrong_map}
        policy["balancer"] = window if wrong_map is not None else "on"
    elif section == "ranges":
        policy["collections"] = {"app.x": {"ranges": [{"zone": "z", "min": wrong_map}]}}
    elif section == "bound":
        bound = {"a": {"$date": garbage}}
        policy["collections"] = {"app.x": {"ranges": [{"zone": "z", "min": bound, "max": {}}]}}
    else:
        policy["collections"] = {
            "app.x": {"firehose": {"field": "a", "type": "date", "x": garbage}}
        }
    # JSON is YAML: the generated policy goes through the same loader.
    (workdir / "p.yaml").write_text(json.dumps(policy))
    _assert_rejected(zonectl("validate", "p.yaml"))
