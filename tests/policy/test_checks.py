"""Every semantic check, with the exact diagnostic an operator reads (file:line:col, code,
message, hint). The policy under test is HEAD (shard s0 carries zones hot and cold, five
lines) followed by the `collections:` entries given here, from line 6."""

from __future__ import annotations

from collections.abc import Callable

import pytest

Diagnose = Callable[..., list[str]]

DATE1 = '{$date: "2026-01-01T00:00:00Z"}'
DATE2 = '{$date: "2026-01-02T00:00:00Z"}'
DATE3 = '{$date: "2026-01-03T00:00:00Z"}'
FIREHOSE = 'field: ts, type: date, schedule: "0 0 * * *"'

CASES: dict[str, tuple[str, list[str]]] = {
    "min_not_below_max": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n      - {zone: hot, min: {x: 10}, max: {x: 0}}\n",
        [
            "p.yaml:9:9: error ZP201 min { x: 10 } is not less than max { x: 0 } in BSON order\n"
            "  hint: swap min and max, or widen the range"
        ],
    ),
    "min_equal_max_after_padding": (
        "  app.e:\n    key: {x: 1, y: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: 1}, max: {x: 1, y: {$minKey: 1}}}\n",
        [
            "p.yaml:9:9: error ZP201 min { x: 1, y: MinKey } is not less than max "
            "{ x: 1, y: MinKey } in BSON order\n  hint: swap min and max, or widen the range"
        ],
    ),
    "bound_not_a_key_prefix": (
        "  app.e:\n    key: {x: 1, y: 1}\n    ranges:\n"
        "      - {zone: hot, min: {y: 1}, max: {x: 5}}\n",
        [
            "p.yaml:9:26: error ZP202 min { y: 1 } is not a prefix of the shard key "
            "{ x: 1, y: 1 }\n"
            "  hint: bound fields must be the first fields of the shard key, in key order"
        ],
    ),
    "without_key_min_and_max_fields_differ": (
        "  app.e:\n    ranges:\n      - {zone: hot, min: {a: 1, b: 1}, max: {a: 5}}\n",
        [
            "p.yaml:8:9: error ZP202 min fields (a, b) differ from max fields (a)\n"
            "  hint: give the collection a key:, or use the same fields in the same order"
        ],
    ),
    "overlap_shows_both_ranges_and_the_other_line": (
        f"  app.e:\n    key: {{ts: 1}}\n    ranges:\n"
        f"      - {{zone: cold, min: {{ts: {DATE1}}}, max: {{ts: {DATE3}}}}}\n"
        f"      - {{zone: hot, min: {{ts: {DATE2}}}, max: {{ts: {{$maxKey: 1}}}}}}\n",
        [
            'p.yaml:10:9: error ZP203 range [{ ts: ISODate("2026-01-02T00:00:00.000Z") }, '
            "{ ts: MaxKey }) of zone hot overlaps "
            '[{ ts: ISODate("2026-01-01T00:00:00.000Z") }, '
            '{ ts: ISODate("2026-01-03T00:00:00.000Z") }) of zone cold (line 9)\n'
            "  hint: MongoDB refuses overlapping zone ranges (RangeOverlapConflict)"
        ],
    ),
    "overlap_of_prefix_bounds_shows_the_padded_form": (
        "  app.e:\n    key: {x: 1, y: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: 0}, max: {x: 10}}\n"
        "      - {zone: cold, min: {x: 5, y: 3}, max: {x: 20}}\n",
        [
            "p.yaml:10:9: error ZP203 range [{ x: 5, y: 3 }, { x: 20, y: MinKey }) of zone cold "
            "overlaps [{ x: 0, y: MinKey }, { x: 10, y: MinKey }) of zone hot (line 9)\n"
            "  hint: MongoDB refuses overlapping zone ranges (RangeOverlapConflict)"
        ],
    ),
    "same_bounds_other_zone_is_an_overlap": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: 0}, max: {x: 5}}\n"
        "      - {zone: cold, min: {x: 0}, max: {x: 5}}\n",
        [
            "p.yaml:10:9: error ZP203 range [{ x: 0 }, { x: 5 }) of zone cold overlaps "
            "[{ x: 0 }, { x: 5 }) of zone hot (line 9)\n"
            "  hint: MongoDB refuses overlapping zone ranges (RangeOverlapConflict)"
        ],
    ),
    "touching_ranges_do_not_overlap": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: 0}, max: {x: 5}}\n"
        "      - {zone: cold, min: {x: 5}, max: {x: 9}}\n",
        [],
    ),
    "identical_range_numerically_equal_is_a_duplicate_warning": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: 0}, max: {x: 5}}\n"
        '      - {zone: hot, min: {x: {$numberLong: "0"}}, max: {x: 5.0}}\n',
        [
            "p.yaml:10:9: warning ZP204 range [{ x: NumberLong(0) }, { x: 5.0 }) of zone hot "
            "is listed twice (line 9)"
        ],
    ),
    "hashed_field_takes_only_numberlong": (
        "  app.e:\n    key: {h: hashed}\n    ranges:\n"
        "      - {zone: hot, min: {h: 0}, max: {h: {$maxKey: 1}}}\n",
        [
            'p.yaml:9:30: error ZP205 min.h is 0, but hashed field "h" takes only NumberLong, '
            'MinKey or MaxKey\n  hint: write {$numberLong: "0"}'
        ],
    ),
    "array_cannot_be_a_bound_value": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: [1, 2]}, max: {x: 5}}\n",
        [
            "p.yaml:9:30: error ZP206 min.x: an array cannot be a shard-key value\n"
            "  hint: MongoDB rejects arrays in zone bounds"
        ],
    ),
    "regex_cannot_be_a_bound_value": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: {$regularExpression: {pattern: a, options: ''}}}, "
        "max: {x: 5}}\n",
        ["p.yaml:9:30: error ZP206 min.x: a regular expression cannot be a shard-key value"],
    ),
    "empty_bound": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n      - {zone: hot, min: {}, max: {x: 5}}\n",
        [
            "p.yaml:9:26: error ZP207 min is empty\n"
            "  hint: MongoDB rejects an empty bound; write e.g. {field: {$minKey: 1}}"
        ],
    ),
    "bad_extended_json_and_unknown_type_with_suggestion": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        '      - {zone: hot, min: {x: {$date: 2026-01-01}}, max: {x: {$numbrLong: "5"}}}\n',
        [
            'p.yaml:9:30: error ZP200 min.x: invalid Extended JSON {"$date": "2026-01-01"}: '
            "time data '2026-01' does not match format '%Y-%m-%dT%H:%M:%S'\n"
            '  hint: write {$date: "2026-01-01T00:00:00Z"} or '
            '{$date: {$numberLong: "1767225600000"}}',
            'p.yaml:9:61: error ZP200 max.x: unknown Extended JSON type "$numbrLong"\n'
            '  hint: did you mean "$numberLong"?',
        ],
    ),
    "integer_beyond_64_bits": (
        "  app.e:\n    key: {x: 1}\n    ranges:\n"
        "      - {zone: hot, min: {x: 0}, max: {x: 99999999999999999999}}\n",
        ["p.yaml:9:43: error ZP200 max.x: integer 99999999999999999999 does not fit in 64 bits"],
    ),
    "invalid_shard_key_pattern": (
        "  app.e:\n    key: {x: -1, y: hashed, z: hashed}\n",
        [
            "p.yaml:7:10: error ZP210 a shard key can have at most one hashed field",
            'p.yaml:7:14: error ZP210 key field "x": expected 1 (ascending) or "hashed", got -1\n'
            "  hint: MongoDB shard keys are ranged ascending (1) or hashed; -1 is not allowed",
        ],
    ),
    "zone_on_no_shard": (
        "  app.e:\n    pin: warm\n  app.f:\n    pin: warm\n",
        [
            "p.yaml:7:10: error ZP301 zone warm is not assigned to any shard in the policy "
            "(and 1 more use)\n"
            "  hint: add it under shards:, e.g. <shard>: [warm]; MongoDB answers ZoneNotFound"
        ],
    ),
    "firehose_field_not_first_in_key": (
        "  app.e:\n    key: {ts: 1, _id: 1}\n"
        '    firehose: {field: _id, type: objectId, schedule: "0 0 * * *", hot: hot}\n',
        [
            'p.yaml:8:23: error ZP401 firehose field "_id" is not the first shard-key field of '
            '{ ts: 1, _id: 1 } (that is "ts")\n'
            "  hint: a rolling window splits the key space on its first field"
        ],
    ),
    "firehose_field_hashed": (
        f"  app.e:\n    key: {{ts: hashed}}\n    firehose: {{{FIREHOSE}, hot: hot}}\n",
        [
            'p.yaml:8:23: error ZP402 firehose field "ts" is hashed in the shard key; '
            "a window needs a ranged field"
        ],
    ),
    "string_bound_on_a_date_firehose_field_warns": (
        f"  app.e:\n    key: {{ts: 1}}\n    firehose: {{{FIREHOSE}, hot: hot}}\n    ranges:\n"
        '      - {zone: cold, min: {ts: 2020-01-01}, max: {ts: {$date: "2021-01-01T00:00:00Z"}}}\n',
        [
            "p.yaml:10:32: warning ZP403 min.ts is a string, not a date value as the firehose "
            'of app.e says\n  hint: write {$date: "2026-01-01T00:00:00Z"}; BSON never orders '
            "a string among dates"
        ],
    ),
    "invalid_cron": (
        '  app.e:\n    key: {ts: 1}\n    firehose: {field: ts, type: date, schedule: "61 * * * *", '
        "hot: hot}\n",
        [
            "p.yaml:8:49: error ZP404 schedule: invalid cron expression '61 * * * *': "
            "[61 * * * *] is not acceptable, out of range"
        ],
    ),
    "cron_that_never_fires": (
        '  app.e:\n    key: {ts: 1}\n    firehose: {field: ts, type: date, schedule: "0 0 31 2 *", '
        "hot: hot}\n",
        [
            "p.yaml:8:49: error ZP405 schedule: cron expression '0 0 31 2 *' never fires "
            "(no matching date exists)"
        ],
    ),
    "unknown_time_zone_with_suggestion": (
        f"  app.e:\n    key: {{ts: 1}}\n    firehose: {{{FIREHOSE}, timezone: Europe/Berln, "
        "hot: hot}\n",
        [
            'p.yaml:8:72: error ZP406 timezone "Europe/Berln" is not a known IANA time zone\n'
            '  hint: did you mean "Europe/Berlin"?'
        ],
    ),
    "hot_equals_cold": (
        f"  app.e:\n    key: {{ts: 1}}\n    firehose: {{{FIREHOSE}, hot: hot, cold: hot}}\n",
        [
            'p.yaml:8:78: error ZP408 firehose hot and cold are both zone "hot"; '
            "the window would move nothing"
        ],
    ),
    "firehose_without_key_warns": (
        f"  app.e:\n    firehose: {{{FIREHOSE}, hot: hot}}\n",
        [
            'p.yaml:7:15: warning ZP409 firehose on app.e has no key:, so field "ts" is checked '
            "against the live shard key only at plan time"
        ],
    ),
    "pin_overlaps_ranges": (
        "  app.e:\n    key: {x: 1}\n    pin: hot\n    ranges:\n"
        "      - {zone: hot, min: {x: 0}, max: {x: 5}}\n",
        [
            "p.yaml:8:10: error ZP203 pin of app.e to zone hot covers the whole key space and "
            "overlaps its range (first at line 10)\n  hint: use either pin or ranges"
        ],
    ),
    "firehose_with_cold_overlaps_ranges": (
        "  app.e:\n    key: {x: 1}\n"
        '    firehose: {field: x, type: epochSeconds, schedule: "0 0 * * *", '
        "hot: hot, cold: cold}\n"
        "    ranges:\n      - {zone: hot, min: {x: 0}, max: {x: 5}}\n",
        [
            "p.yaml:8:15: error ZP203 firehose of app.e (hot hot, cold cold) covers the whole "
            "key space and overlaps its range (first at line 10)\n"
            "  hint: drop cold:, or drop the ranges"
        ],
    ),
    "range_reaching_maxkey_overlaps_the_hot_window": (
        "  app.e:\n    key: {x: 1}\n"
        '    firehose: {field: x, type: epochSeconds, schedule: "0 0 * * *", hot: hot}\n'
        "    ranges:\n      - {zone: cold, min: {x: 0}, max: {x: {$maxKey: 1}}}\n",
        [
            "p.yaml:10:9: error ZP203 range [{ x: 0 }, { x: MaxKey }) of zone cold reaches "
            "MaxKey on x, so it overlaps the firehose hot window [boundary, MaxKey) of zone hot "
            "(line 8)"
        ],
    ),
    "namespace_rules": (
        "  app:\n    pin: hot\n  admin.x:\n    pin: hot\n  a/b.c:\n    pin: hot\n",
        [
            "p.yaml:6:3: error ZP140 'app' is not a valid namespace: expected "
            '"database.collection"',
            "p.yaml:8:3: error ZP140 'admin.x' is not a valid namespace: collections of the "
            "admin database cannot be sharded",
            "p.yaml:10:3: error ZP140 'a/b.c' is not a valid namespace: database name 'a/b' "
            "contains '/'",
        ],
    ),
    "unknown_key_with_suggestion": (
        "  app.e:\n    kye: {x: 1}\n",
        [
            'p.yaml:7:5: error ZP110 unknown key "kye" in collections["app.e"]\n'
            '  hint: did you mean "key"? allowed: key, ranges, pin, firehose, slices, '
            "balancing, sampling, migrate, reshard, partition, chunkSizeMB, autoMerger, defragment"
        ],
    ),
    "missing_required_key": (
        "  app.e:\n    ranges:\n      - {min: {x: 1}, max: {x: 2}}\n",
        ['p.yaml:8:9: error ZP111 missing required key "zone" in collections["app.e"].ranges[0]'],
    ),
    "wrong_types_and_values": (
        f"  app.e:\n    balancing: yes\n    migrate: lazy\n"
        f"    firehose: {{{FIREHOSE}, hot: hot, keep: 0}}\n",
        [
            'p.yaml:7:16: error ZP112 collections["app.e"].balancing: expected true or false, '
            'got "yes"',
            "p.yaml:8:14: error ZP112 collections[\"app.e\"].migrate: expected 'eager', "
            "'balancer' or 'reshard', got \"lazy\"",
            'p.yaml:9:78: error ZP112 collections["app.e"].firehose.keep: must be at least 1, '
            "got 0",
        ],
    ),
}


@pytest.mark.parametrize("body,expected", CASES.values(), ids=CASES.keys())
def test_check_reports_the_exact_diagnostic(
    diagnose: Diagnose, body: str, expected: list[str]
) -> None:
    assert diagnose(body) == expected


def test_balancer_window_times_must_be_hh_mm(diagnose: Diagnose) -> None:
    head = (
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nbalancer:\n"
        '  activeWindow: {start: "25:00", stop: "6am"}\n'
    )
    assert diagnose("", head=head) == [
        'p.yaml:4:25: error ZP501 activeWindow.start "25:00" is not a time of day "HH:MM"\n'
        '  hint: e.g. "23:00"',
        'p.yaml:4:40: error ZP501 activeWindow.stop "6am" is not a time of day "HH:MM"\n'
        '  hint: e.g. "23:00"',
    ]


def test_balancer_window_start_equal_to_stop_is_empty(diagnose: Diagnose) -> None:
    head = (
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nbalancer:\n"
        '  activeWindow: {start: "01:00", stop: "1:00"}\n'
    )
    assert diagnose("", head=head) == [
        'p.yaml:4:17: error ZP502 activeWindow start and stop are both "01:00"; '
        "the window is empty\n  hint: to balance all day, set activeWindow: null"
    ]


def test_an_unknown_balancer_time_zone_is_an_error_with_a_suggestion(
    diagnose: Diagnose,
) -> None:
    head = (
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nbalancer:\n"
        '  timezone: Europe/Berln\n  activeWindow: {start: "01:00", stop: "03:00"}\n'
    )
    assert diagnose("", head=head) == [
        'p.yaml:4:13: error ZP503 balancer timezone "Europe/Berln" is not a known IANA '
        'time zone\n  hint: did you mean "Europe/Berlin"?'
    ]
    assert diagnose("", head=head.replace("Berln", "Berlin")) == []


def test_day_windows_beside_an_active_window_or_repeated_warn(diagnose: Diagnose) -> None:
    """MongoDB accepts both (8.3 validator, balancer_configuration.cpp): ZP504 says it
    ignores activeWindow, ZP505 names the repeated entry; neither is an error."""
    head = (
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nbalancer:\n"
        '  activeWindow: {start: "23:00", stop: "06:00"}\n  activeWindowDOW:\n'
        '    - {day: Friday, start: "01:00", stop: "02:00"}\n'
        '    - {day: Friday, start: "01:00", stop: "02:00"}\n'
    )
    assert diagnose("", head=head) == [
        "p.yaml:4:17: warning ZP504 activeWindow is set beside activeWindowDOW: MongoDB 8.3+ "
        "balances only in the day-of-week windows and ignores activeWindow\n  hint: drop "
        "activeWindow (or set it to null), or add its hours as day-of-week windows",
        "p.yaml:7:7: warning ZP505 activeWindowDOW[1] repeats activeWindowDOW[0] (Friday "
        "01:00-02:00): MongoDB accepts it and it changes nothing\n  hint: drop it",
    ]


def test_zone_listed_twice_for_a_shard_warns(diagnose: Diagnose) -> None:
    head = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [hot, hot]\n"
    assert diagnose("", head=head) == [
        'p.yaml:4:13: warning ZP302 zone "hot" is listed twice for shard s0'
    ]


def test_empty_zone_name_is_an_error(diagnose: Diagnose) -> None:
    head = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: ['']\n"
    assert diagnose("", head=head) == ["p.yaml:4:8: error ZP303 empty zone name for shard s0"]


def test_wrong_api_version_and_kind(diagnose: Diagnose) -> None:
    head = "apiVersion: zonectl/v2\nkind: Deployment\n"
    assert diagnose("", head=head) == [
        'p.yaml:1:13: error ZP113 apiVersion "zonectl/v2" is not supported; this zonectl '
        "reads zonectl/v1",
        'p.yaml:2:7: error ZP114 kind "Deployment" is not ZonePolicy; zonectl reads only '
        "ZonePolicy documents",
    ]


def test_missing_api_version(diagnose: Diagnose) -> None:
    assert diagnose("", head="kind: ZonePolicy\n") == [
        "p.yaml:1:1: error ZP113 missing apiVersion: zonectl/v1"
    ]


def test_checks_still_run_on_collections_next_to_a_schema_error(diagnose: Diagnose) -> None:
    body = (
        "  app.bad:\n    balancing: maybe\n"
        "  app.good:\n    key: {x: 1}\n    ranges:\n      - {zone: hot, min: {x: 3}, max: {x: 1}}\n"
    )
    assert [line.split(" ")[2] for line in diagnose(body)] == ["ZP112", "ZP201"]
