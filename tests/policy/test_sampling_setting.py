"""`sampling:` of a collection: its schema and checks, with the diagnostic an operator reads."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [hot, cold]\ncollections:\n"

Diagnose = Callable[..., list[str]]


def test_samples_per_second_beyond_the_servers_limit_is_an_error_at_its_line(
    diagnose: Diagnose,
) -> None:
    found = diagnose("  app.e:\n    sampling: {samplesPerSecond: 51}\n")
    assert len(found) == 1 and found[0].startswith("p.yaml:7:")
    assert "must be at most 50, got 51" in found[0]


def test_zero_samples_per_second_is_an_error(diagnose: Diagnose) -> None:
    found = diagnose("  app.e:\n    sampling: {samplesPerSecond: 0}\n")
    assert len(found) == 1 and "greater than 0" in found[0]


def test_sampling_an_internal_database_is_refused(diagnose: Diagnose) -> None:
    found = diagnose("  config.system.sessions:\n    sampling: {samplesPerSecond: 1}\n")
    assert found == [
        "p.yaml:7:5: error ZP601 config.system.sessions: queries of the config database "
        "cannot be sampled\n  hint: remove `sampling` from this collection"
    ]


def test_off_and_a_rate_are_both_valid(diagnose: Diagnose) -> None:
    assert (
        diagnose("  app.e:\n    sampling: off\n  app.f:\n    sampling: {samplesPerSecond: 2.5}\n")
        == []
    )


def test_anything_else_is_refused(diagnose: Diagnose) -> None:
    assert diagnose("  app.e:\n    sampling: on\n")


FORMS = '{samplesPerSecond: ...} or "off"'


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    value=st.one_of(
        st.sampled_from(["on", "ON", "Off", "yes", "true", "false", "5", "2.5", "[off]", '"off "']),
        st.from_regex(r"[a-z]{1,8}", fullmatch=True).filter(lambda w: w not in ("off", "null")),
    )
)
def test_a_value_fitting_no_form_is_answered_with_the_accepted_forms(
    zonectl: Callable[..., tuple[int, str, str]], workdir: Path, value: str
) -> None:
    """`sampling: on` once read `sampling.off: expected 'off'`: a branch name of the
    schema's union. The operator reads the forms the key accepts, at the value."""
    (workdir / "p.yaml").write_text(HEAD + f"  app.e:\n    sampling: {value}\n")
    code, _, err = zonectl("validate", "p.yaml")
    assert code == 3
    assert f'p.yaml:7:15: error ZP112 collections["app.e"].sampling: expected {FORMS}, got' in err
    assert ".off" not in err and ".rate" not in err


def test_a_mistake_inside_the_rate_form_is_named_without_the_branch(diagnose: Diagnose) -> None:
    found = diagnose("  app.e:\n    sampling: {rate: 5}\n")
    assert any('unknown key "rate" in collections["app.e"].sampling' in d for d in found), found
    assert any("allowed: samplesPerSecond" in d for d in found), found
    assert not any(".rate:" in d or "sampling.rate" in d for d in found), found
