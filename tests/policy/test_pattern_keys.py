"""Namespace patterns and collection-per-period templates as the loader checks them (ZP141,
ZP142): the position is the key, and good ones load into `DesiredState.patterns`."""

from __future__ import annotations

from pathlib import Path

import pytest

from zonectl.errors import InvalidPolicyError
from zonectl.policy import load_policy

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  a: [hot]\ncollections:\n"


def _load(tmp_path: Path, body: str, **kwargs: str) -> object:
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + body)
    return load_policy([path], **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ('  "local.*": {pin: hot}\n', "ZP141"),
        ('  "x[.y": {pin: hot}\n', "ZP141"),
        ('  "db.c_%Y": {pin: hot}\n', "ZP142"),
        ('  "db.c_%Y": {slices: {schedule: "0 0 * * *", hot: hot}, ranges: []}\n', None),
        ('  "db.c_%Y": {slices: {schedule: "not cron", hot: hot}}\n', "ZP142"),
    ],
)
def test_bad_keys_name_their_code_at_the_key(tmp_path: Path, body: str, code: str | None) -> None:
    if code is None:
        _load(tmp_path, body)
        return
    with pytest.raises(InvalidPolicyError) as exc:
        _load(tmp_path, body)
    found = [(d.code, d.position.line) for d in exc.value.diagnostics]
    assert (code, 6) in found


def test_patterns_and_templates_load_apart_from_exact_names(tmp_path: Path) -> None:
    body = (
        '  "logs.*": {pin: hot}\n'
        '  "db.c_%Y%m%d": {slices: {schedule: "0 0 * * *", keep: 2, hot: hot}}\n'
        "  shop.orders: {pin: hot}\n"
    )
    desired = _load(tmp_path, body).desired  # type: ignore[attr-defined]
    assert set(desired.collections) == {"shop.orders"}
    assert set(desired.patterns) == {"logs.*", "db.c_%Y%m%d"}
    assert desired.patterns["db.c_%Y%m%d"].slices.keep == 2


def test_zonectls_own_database_is_the_one_passed_in(tmp_path: Path) -> None:
    with pytest.raises(InvalidPolicyError) as exc:
        _load(tmp_path, '  "ops.*": {pin: hot}\n', own_database="ops")
    assert [d.code for d in exc.value.diagnostics] == ["ZP141"]
