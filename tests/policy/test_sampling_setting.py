"""`sampling:` of a collection: its schema and checks, with the diagnostic an operator reads."""

from __future__ import annotations

from collections.abc import Callable

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
