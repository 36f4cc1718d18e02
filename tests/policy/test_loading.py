"""Reading policy files: directories, merging across files, YAML details (dates stay
strings, duplicate keys, aliases), Extended JSON values, and the DesiredState built."""

from __future__ import annotations

import datetime as dt
import uuid
from pathlib import Path

import pytest
from bson import Decimal128, Int64, ObjectId, Timestamp
from bson.max_key import MaxKey
from bson.min_key import MinKey

from zonectl.errors import InvalidPolicyError
from zonectl.policy import Limits, load_policy

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"


def write(root: Path, name: str, text: str) -> Path:
    path = root / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def errors_of(paths: list[str], **kwargs: object) -> list[str]:
    with pytest.raises(InvalidPolicyError) as caught:
        load_policy(paths, **kwargs)  # type: ignore[arg-type]
    return [str(d).split("\n")[0] for d in caught.value.diagnostics]


def test_directory_is_read_recursively_sorted_and_merged(workdir: Path) -> None:
    write(workdir, "pol/b/users.yml", HEAD + "collections:\n  app.users: {pin: eu}\n")
    write(workdir, "pol/a.yaml", HEAD + "shards:\n  s0: [eu]\n")
    write(workdir, "pol/notes.txt", "not a policy")
    desired = load_policy(["pol"]).desired
    assert desired.sources == ("pol/a.yaml", "pol/b/users.yml")
    assert desired.shards == {"s0": frozenset({"eu"})}
    assert desired.collections["app.users"].pin == "eu"


def test_same_namespace_in_two_files_names_both_places(workdir: Path) -> None:
    write(workdir, "a.yaml", HEAD + "shards: {s0: [z]}\ncollections:\n  app.x: {pin: z}\n")
    write(workdir, "b.yaml", HEAD + "collections:\n  app.x: {pin: z}\n")
    assert errors_of(["a.yaml", "b.yaml"]) == [
        "b.yaml:4:3: error ZP131 namespace app.x is also defined at a.yaml:5:3"
    ]


def test_same_shard_and_balancer_in_two_files_are_conflicts(workdir: Path) -> None:
    text = HEAD + "balancer: {enabled: true}\nshards: {s0: [z]}\n"
    write(workdir, "a.yaml", text)
    write(workdir, "b.yaml", text)
    assert errors_of(["."]) == [
        "b.yaml:3:1: error ZP132 the balancer section is also defined at a.yaml:3:1",
        "b.yaml:4:10: error ZP130 shard s0 is also defined at a.yaml:4:10",
    ]


def test_a_file_named_twice_is_read_once(workdir: Path) -> None:
    write(workdir, "a.yaml", HEAD + "shards: {s0: [z]}\n")
    assert load_policy(["a.yaml", ".", "./a.yaml"]).desired.sources == ("a.yaml",)


def test_missing_path_and_empty_directory(workdir: Path) -> None:
    (workdir / "empty").mkdir()
    assert errors_of(["nope.yaml", "empty"]) == [
        "empty: error ZP120 no *.yaml or *.yml files",
        "nope.yaml: error ZP100 no such file or directory",
    ]


def test_duplicate_key_points_at_both_lines(workdir: Path) -> None:
    write(workdir, "p.yaml", HEAD + "shards:\n  s0: [a]\n  s0: [b]\n")
    assert errors_of(["p.yaml"]) == ['p.yaml:5:3: error ZP106 duplicate key "s0" (first at line 4)']


def test_unquoted_yaml_date_stays_a_string(workdir: Path) -> None:
    write(
        workdir,
        "p.yaml",
        HEAD + "shards: {s0: [z]}\ncollections:\n  app.x:\n    key: {d: 1}\n"
        "    ranges: [{zone: z, min: {d: 2026-01-01}, max: {d: 2026-01-02T10:00:00Z}}]\n",
    )
    (r,) = load_policy(["p.yaml"]).desired.collections["app.x"].ranges
    assert r.min == {"d": "2026-01-01"}
    assert r.max == {"d": "2026-01-02T10:00:00Z"}


def test_extended_json_values_decode_as_bson_json_util_does(workdir: Path) -> None:
    values = {
        "a": ('{$date: "2026-01-01T00:00:00Z"}', dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
        "b": ('{$date: {$numberLong: "1767225600000"}}', dt.datetime(2026, 1, 1, tzinfo=dt.UTC)),
        "c": ('{$oid: "6955b9000000000000000000"}', ObjectId("6955b9000000000000000000")),
        "d": ('{$numberLong: "42"}', Int64(42)),
        "e": ('{$numberDecimal: "1.5"}', Decimal128("1.5")),
        "f": ('{$numberInt: "7"}', 7),
        "g": ('{$numberDouble: "2.5"}', 2.5),
        "h": (
            '{$uuid: "00112233-4455-6677-8899-aabbccddeeff"}',
            uuid.UUID("00112233-4455-6677-8899-aabbccddeeff"),
        ),
        "i": ('{$binary: {base64: "AAE=", subType: "00"}}', b"\x00\x01"),
        "j": ("{$timestamp: {t: 1, i: 2}}", Timestamp(1, 2)),
        "k": ("3000000000", Int64(3000000000)),
        "l": ("12", 12),
        "m": ("{nested: 1}", {"nested": 1}),
        "n": ("null", None),
    }
    key = ", ".join(f"{name}: 1" for name in values)
    low = ", ".join(f"{name}: {text}" for name, (text, _) in values.items())
    write(
        workdir,
        "p.yaml",
        HEAD + f"shards: {{s0: [z]}}\ncollections:\n  app.x:\n    key: {{{key}}}\n"
        f"    ranges: [{{zone: z, min: {{{low}}}, max: {{a: {{$maxKey: 1}}}}}}]\n",
    )
    (r,) = load_policy(["p.yaml"]).desired.collections["app.x"].ranges
    for name, (_, expected) in values.items():
        assert r.min[name] == expected, name
        assert type(r.min[name]) is type(expected), name
    assert isinstance(r.max["a"], MaxKey)
    assert all(isinstance(r.max[name], MinKey) for name in list(values)[1:])


def test_desired_state_pads_bounds_and_keeps_firehose_symbolic(workdir: Path) -> None:
    write(
        workdir,
        "p.yaml",
        HEAD + "balancer:\n  enabled: false\n  activeWindow: null\n"
        "shards: {s0: [hot, old], s1: []}\ncollections:\n"
        "  app.e:\n    key: {ts: 1, _id: 1}\n"
        '    firehose: {field: ts, type: date, schedule: "0 0 * * *", keep: 2, hot: hot, '
        "cold: old}\n    migrate: eager\n"
        "  app.u:\n    key: {c: 1, u: 1}\n    balancing: false\n"
        "    ranges:\n      - {zone: old, min: {c: 5}, max: {c: 9}}\n"
        "      - {zone: hot, min: {c: 1}, max: {c: 2}}\n",
    )
    desired = load_policy(["p.yaml"]).desired
    assert desired.shards == {"s0": frozenset({"hot", "old"}), "s1": frozenset()}
    assert desired.balancer is not None
    assert (desired.balancer.enabled, desired.balancer.manage_window) == (False, True)
    assert desired.balancer.active_window is None
    events = desired.collections["app.e"]
    assert events.firehose is not None and events.ranges == ()
    assert (events.firehose.field, events.firehose.keep, events.firehose.cold) == ("ts", 2, "old")
    assert events.migrate == "eager" and events.key == {"ts": 1, "_id": 1}
    users = desired.collections["app.u"]
    assert users.balancing is False
    assert [r.zone for r in users.ranges] == ["hot", "old"]  # BSON order of min
    assert list(users.ranges[0].min) == ["c", "u"] and isinstance(users.ranges[0].min["u"], MinKey)
    assert users.ranges[0].position is not None and users.ranges[0].position.line == 17


def test_absent_active_window_is_not_managed(workdir: Path) -> None:
    write(workdir, "p.yaml", HEAD + "balancer: {enabled: true}\n")
    balancer = load_policy(["p.yaml"]).desired.balancer
    assert balancer is not None and balancer.manage_window is False


def test_digest_ignores_file_layout_and_comments(workdir: Path) -> None:
    write(workdir, "one/p.yaml", HEAD + "shards: {s0: [z, y]}\ncollections:\n  app.x: {pin: z}\n")
    write(workdir, "two/a.yaml", HEAD + "# shards\nshards:\n  s0: [y, z]\n")
    write(workdir, "two/b.yaml", HEAD + "collections:\n  app.x:\n    pin: z\n")
    one, two = load_policy(["one"]).desired, load_policy(["two"]).desired
    assert one.digest == two.digest and len(one.digest) == 64
    write(workdir, "two/b.yaml", HEAD + "collections:\n  app.x:\n    pin: y\n")
    assert load_policy(["two"]).desired.digest != one.digest


def test_aliases_and_merge_keys_work_within_limits(workdir: Path) -> None:
    write(
        workdir,
        "p.yaml",
        HEAD + "shards: {s0: &zones [a, b], s1: *zones}\ncollections:\n"
        "  app.x: &base {key: {k: 1}, pin: a}\n  app.y:\n    <<: *base\n    pin: b\n",
    )
    desired = load_policy(["p.yaml"]).desired
    assert desired.shards["s1"] == frozenset({"a", "b"})
    assert desired.collections["app.y"].pin == "b"
    assert desired.collections["app.y"].key == {"k": 1}


def test_alias_bomb_is_refused_before_expansion(workdir: Path) -> None:
    lines = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 10):
        refs = ", ".join([f"*{chr(96 + i)}"] * 10)
        lines.append(f"{chr(97 + i)}: &{chr(97 + i)} [{refs}]")
    write(workdir, "p.yaml", HEAD + "\n".join(lines) + "\n")
    assert errors_of(["p.yaml"]) == [
        "p.yaml:1:1: error ZP104 aliases and merge keys expand this document to "
        "12,345,679,013 nodes from 23 written; the limit is 100,000 more"
    ]


def test_size_limit_is_checked_before_reading(workdir: Path) -> None:
    write(workdir, "p.yaml", HEAD + "#" * 2000 + "\n")
    assert errors_of(["p.yaml"], limits=Limits(max_bytes=1000)) == [
        "p.yaml: error ZP103 file is 2,041 bytes, over the 1,000-byte limit for a policy file"
    ]


def test_nesting_limit(workdir: Path) -> None:
    write(workdir, "p.yaml", HEAD + "x: " + "[" * 70 + "]" * 70 + "\n")
    (message,) = errors_of(["p.yaml"])
    assert message.startswith("p.yaml:") and "ZP105 nesting is deeper than 64 levels" in message


def test_multi_document_file_is_merged_like_separate_files(workdir: Path) -> None:
    write(
        workdir,
        "p.yaml",
        HEAD + "shards: {s0: [z]}\n---\n" + HEAD + "collections:\n  app.x: {pin: z}\n",
    )
    assert load_policy(["p.yaml"]).desired.collections["app.x"].pin == "z"


def test_yaml_1_1_directive_booleans(workdir: Path) -> None:
    write(workdir, "p.yaml", "%YAML 1.1\n---\n" + HEAD + "balancer: {enabled: yes}\n")
    balancer = load_policy(["p.yaml"]).desired.balancer
    assert balancer is not None and balancer.enabled is True


READING_CASES: dict[str, tuple[bytes, str]] = {
    "syntax_error": (
        (HEAD + "shards: {s0: [a]\n").encode(),
        "p.yaml:4:1: error ZP101 YAML syntax error: while parsing a flow mapping expected "
        "',' or '}', but got '<stream end>'",
    ),
    "not_utf8": (
        (HEAD + "# caf\xe9\n").encode("latin-1"),
        "p.yaml:3:6: error ZP102 not UTF-8: byte 0xe9 cannot be decoded",
    ),
    "binary": (
        b"\x89PNG\r\n\x1a\n\x00\x00",
        "p.yaml:3:1: error ZP102 binary data (NUL byte): not a YAML text file",
    ),
    "utf16": (
        HEAD.encode("utf-16"),
        "p.yaml:1:1: error ZP102 UTF-16 text: policy files must be UTF-8",
    ),
    "control_character": (
        (HEAD + "x: a\x07\n").encode(),
        "p.yaml:3:5: error ZP102 character '\\x07' is not allowed in YAML",
    ),
    "unsupported_tag": (
        (HEAD + "shards: !!set {a: null}\n").encode(),
        "p.yaml:3:9: error ZP107 unsupported YAML tag !!set",
    ),
    "non_string_key": (
        (HEAD + "? [a]\n: 1\n").encode(),
        "p.yaml:3:3: error ZP107 mapping keys must be plain strings",
    ),
    "empty_file": (b"# only a comment\n", "p.yaml:1:1: error ZP108 empty file: no YAML document"),
    "list_document": (
        b"- 1\n",
        "p.yaml:1:1: error ZP108 a policy document must be a mapping (apiVersion, kind, ...), "
        "got a list",
    ),
    "wall_of_brackets": (
        (HEAD + "x: " + "[" * 5000).encode(),
        "p.yaml:3:68: error ZP105 nesting is deeper than 64 levels",
    ),
    "recursive_alias": (
        (HEAD + "x: &a [*a]\n").encode(),
        "p.yaml:3:4: error ZP104 recursive alias",
    ),
}


@pytest.mark.parametrize("data,expected", READING_CASES.values(), ids=READING_CASES.keys())
def test_reading_problem_has_an_exact_diagnostic(workdir: Path, data: bytes, expected: str) -> None:
    (workdir / "p.yaml").write_bytes(data)
    assert errors_of(["p.yaml"])[0] == expected


def test_every_diagnostic_code_is_exercised_by_a_test() -> None:
    from zonectl.policy.codes import CODES

    text = "".join(p.read_text() for p in Path(__file__).parent.glob("*.py"))
    assert [code for code in CODES if code not in text] == []
