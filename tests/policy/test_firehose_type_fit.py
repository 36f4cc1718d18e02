"""ZP410: a firehose window type that cannot match its field's values (docs/analyze.md)."""

from __future__ import annotations

from collections.abc import Callable

Diagnose = Callable[..., list[str]]
SCHEDULE = 'schedule: "0 0 * * *", hot: hot'


def test_an_objectid_window_on_a_field_other_than_id_warns(diagnose: Diagnose) -> None:
    found = diagnose(
        f"  app.e:\n    key: {{ts: 1}}\n    firehose: {{field: ts, type: objectId, {SCHEDULE}}}\n"
    )
    assert [d for d in found if "ZP410" in d] == [
        'p.yaml:8:33: warning ZP410 firehose type objectId on field "ts": ObjectIds are '
        "normally only in _id; if the field holds dates or numbers the window never moves "
        "any data\n  hint: use type: date (or epochSeconds/epochMillis) to match what the "
        "field holds"
    ]


def test_a_date_window_on_id_warns(diagnose: Diagnose) -> None:
    found = diagnose(
        f"  app.e:\n    key: {{_id: 1}}\n    firehose: {{field: _id, type: date, {SCHEDULE}}}\n"
    )
    assert any("warning ZP410 firehose type date on _id" in d for d in found)


def test_windows_whose_type_fits_the_field_raise_no_zp410(diagnose: Diagnose) -> None:
    found = diagnose(
        f"  app.e:\n    key: {{_id: 1}}\n    firehose: {{field: _id, type: objectId, {SCHEDULE}}}\n"
        f"  app.f:\n    key: {{ts: 1}}\n    firehose: {{field: ts, type: date, {SCHEDULE}}}\n"
        f"  app.g:\n    key: {{t: 1}}\n    firehose: {{field: t, type: epochMillis, {SCHEDULE}}}\n"
    )
    assert not [d for d in found if "ZP410" in d]
