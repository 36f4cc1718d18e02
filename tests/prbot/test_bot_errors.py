"""The PR bot's own failures end in one clear line and exit 1: a forge API URL that is
not one, or that carries credentials (never printed), never a traceback."""

from __future__ import annotations

import sys
from pathlib import Path

import child_procs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from zonectl.prbot.__main__ import main

SECRET = "hunter2Zq7"


def _argv(tmp: Path, forge: str = "github") -> list[str]:
    (tmp / "v.txt").write_text("", encoding="utf-8")
    return [forge, "--validate-exit", "0", "--validate-output", str(tmp / "v.txt"), "--number", "1"]


def test_an_api_url_that_is_no_url_is_said_without_a_traceback(tmp_path: Path) -> None:
    env = {"GITHUB_API_URL": "notaurl", "GITHUB_TOKEN": "t", "GITHUB_REPOSITORY": "a/b"}
    done = child_procs.run(
        [sys.executable, "-m", "zonectl.prbot", *_argv(tmp_path)],
        capture_output=True,
        text=True,
        env={**env, "PATH": "/usr/bin:/bin"},
        timeout=60,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        "zonectl-prbot: error: $GITHUB_API_URL is not an http(s) URL with a host: notaurl; "
        "e.g. https://api.github.com"
    ]


userinfo = st.sampled_from(["user:", "user%3A", ":", "u:x@"]).map(lambda u: f"{u}{SECRET}@")
urls = st.builds(
    lambda scheme, who, host, port, path: f"{scheme}{who}{host}{port}{path}",
    st.sampled_from(["http://", "https://", "", "http:/", "ftp://", "http:///"]),
    userinfo,
    st.sampled_from(["localhost", "api.example", "[::1]", "[::1", ""]),
    st.sampled_from(["", ":1", ":notaport", ":99999"]),
    st.sampled_from(["", "/api/v3", "/api/v4?x=1"]),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(url=urls, forge=st.sampled_from(["github", "gitlab"]))
def test_credentials_in_the_api_url_are_refused_and_never_printed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], url: str, forge: str
) -> None:
    name = "GITHUB_API_URL" if forge == "github" else "CI_API_V4_URL"
    env = {
        name: url,
        "GITHUB_TOKEN": "t",
        "GITHUB_REPOSITORY": "a/b",
        "ZONECTL_GITLAB_TOKEN": "t",
        "CI_PROJECT_ID": "7",
    }
    assert main(_argv(tmp_path, forge), env) == 1  # the real transport: nothing is sent
    err = capsys.readouterr().err
    assert SECRET not in err
    assert err.startswith("zonectl-prbot: error: ") and err.count("\n") == 1, err
    assert f"${name}" in err
