"""The pure side of metrics: exposition syntax, label escaping, the balancer window, the
cluster label, the forecast extension point, and reading a sample back."""

from __future__ import annotations

import datetime as dt

import pytest
from metrics_kit import names, value

from zonectl.render.exposition import (
    Family,
    Sample,
    find_sample,
    make_labels,
    render_openmetrics,
    render_textfile,
)
from zonectl.render.metrics import (
    ClusterMetrics,
    RunMetrics,
    cluster_label,
    in_active_window,
    make_families,
)

NOW = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.UTC)


def test_openmetrics_ends_with_eof_and_the_textfile_has_none() -> None:
    fams = [Family("zonectl_x", "An x.", (Sample(make_labels(cluster="a"), 1),))]
    assert render_openmetrics(fams) == (
        '# HELP zonectl_x An x.\n# TYPE zonectl_x gauge\nzonectl_x{cluster="a"} 1\n# EOF\n'
    )
    assert render_textfile(fams) == render_openmetrics(fams).removesuffix("# EOF\n")


def test_a_family_without_samples_is_left_out() -> None:
    assert render_textfile([Family("zonectl_x", "An x.", ())]) == ""


def test_label_values_are_escaped_and_read_back_unchanged() -> None:
    odd = 'we"ird\\name\nx'
    text = render_textfile([Family("zonectl_x", "h", (Sample(make_labels(cluster=odd), 2.5),))])
    assert 'cluster="we\\"ird\\\\name\\nx"' in text
    assert find_sample(text, "zonectl_x", {"cluster": odd}) == 2.5
    assert find_sample(text, "zonectl_x", {"cluster": "other"}) is None


@pytest.mark.parametrize(
    ("start", "stop", "hhmm", "inside"),
    [
        ("23:00", "06:00", "23:00", True),  # both ends inclusive, minute granularity
        ("23:00", "06:00", "06:00", True),
        ("23:00", "06:00", "06:01", False),
        ("23:00", "06:00", "02:30", True),  # wraps past midnight
        ("01:00", "05:00", "12:00", False),
        ("01:00", "05:00", "03:00", True),
        ("01:00", "01:00", "01:00", False),  # start == stop is a BadValue: no rounds
        ("1:00", "25:00", "03:00", False),  # malformed
    ],
)
def test_the_balancer_window_matches_the_servers_rule(
    start: str, stop: str, hhmm: str, inside: bool
) -> None:
    h, m = map(int, hhmm.split(":"))
    assert in_active_window({"start": start, "stop": stop}, NOW.replace(hour=h, minute=m)) is inside


def test_no_balancer_window_means_always_inside() -> None:
    assert in_active_window(None, NOW) is True


@pytest.mark.parametrize(
    ("uri", "label"),
    [
        (
            "mongodb://admin:s3cret@a.example:27017,b.example/db?tls=true",
            "a.example:27017,b.example",
        ),
        ("mongodb+srv://u:p%40ss@cluster0.example.net/?retryWrites=true", "cluster0.example.net"),
        ("mongodb://h1", "h1"),
        ("sandbox:?state=x.json", "sandbox"),
    ],
)
def test_the_cluster_label_is_the_host_list_never_credentials(uri: str, label: str) -> None:
    assert cluster_label(uri) == label
    assert "s3cret" not in cluster_label(uri) and "admin" not in cluster_label(uri)


def test_the_forecast_appears_only_once_something_forecasts() -> None:
    name = "zonectl_namespace_compliance_forecast_timestamp_seconds"
    bare = ClusterMetrics(cluster="c", now=NOW)
    assert name not in names(render_openmetrics(make_families(bare)))
    when = NOW + dt.timedelta(hours=5)
    given = ClusterMetrics(cluster="c", now=NOW, forecast={"app.events": when})
    text = render_openmetrics(make_families(given))
    assert value(text, name, cluster="c", namespace="app.events") == when.timestamp()


def test_a_run_without_a_success_yet_has_no_last_success_sample() -> None:
    run = RunMetrics("rotate", NOW, 1, None)
    text = render_textfile(make_families(ClusterMetrics(cluster="c", now=NOW, run=run)))
    assert value(text, "zonectl_run_exit_code", cluster="c", command="rotate") == 1
    assert "zonectl_run_last_success_timestamp_seconds" not in names(text)
