"""The sticky comment against GitHub's and GitLab's APIs, replayed from the exchanges in
fixtures/ (no network): the first run creates, the next updates the same comment, other
comments are never touched, and every page of comments is read."""

from __future__ import annotations

import pytest
from fakes import FakeGitHub, Replay, load_exchange

from zonectl.prbot.body import MARKER
from zonectl.prbot.sticky import BotError, GitHubThread, GitLabThread, upsert_sticky

BODY = f"{MARKER}\n### zonectl plan\n\n**Plan:** 2 to add; ~3 chunks (~12 MiB) will migrate.\n"


def _github(transport: object, per_page: int = 100) -> GitHubThread:
    return GitHubThread(
        transport,  # type: ignore[arg-type]
        api_url="https://api.github.com",
        repository="acme/policies",
        number=42,
        token="ghs_secret",
        per_page=per_page,
    )


def test_the_first_run_creates_the_comment_and_leaves_the_others_alone() -> None:
    replay = Replay(load_exchange("github-pr-42.json", "first_run"))
    outcome = upsert_sticky(_github(replay), BODY)
    assert (outcome.action, outcome.comment_id) == ("created", 2001)
    assert replay.done()
    assert [s.method for s in replay.sent] == ["GET", "POST"]
    assert replay.sent[1].payload == {"body": BODY}


def test_the_second_run_updates_the_same_comment_instead_of_adding_one() -> None:
    replay = Replay(load_exchange("github-pr-42.json", "second_run"))
    outcome = upsert_sticky(_github(replay), BODY)
    assert (outcome.action, outcome.comment_id) == ("updated", 2001)
    assert replay.done()
    assert [(s.method, s.url.rsplit("/", 1)[-1]) for s in replay.sent][1] == ("PATCH", "2001")


def test_a_comment_that_only_quotes_the_marker_is_not_taken_for_ours() -> None:
    # first_run's page holds a human comment quoting the marker ("> <!-- zonectl-plan -->")
    replay = Replay(load_exchange("github-pr-42.json", "first_run"))
    assert upsert_sticky(_github(replay), BODY).action == "created"


def test_every_page_is_read_following_the_link_header() -> None:
    replay = Replay(load_exchange("github-pr-42.json", "paginated"))
    outcome = upsert_sticky(_github(replay, per_page=2), BODY)
    assert (outcome.action, outcome.comment_id) == ("updated", 2001)
    assert replay.done()
    # pages 2 and 3 come from the Link header verbatim (/repositories/7001/...)
    assert [s.url.split("?")[0].split("/")[3] for s in replay.sent[:3]] == [
        "repos",
        "repositories",
        "repositories",
    ]


def test_an_api_refusal_names_the_call_and_never_the_token() -> None:
    replay = Replay(load_exchange("github-pr-42.json", "forbidden"))
    with pytest.raises(BotError) as err:
        upsert_sticky(_github(replay), BODY)
    assert "POST https://api.github.com/repos/acme/policies/issues/42/comments" in str(err.value)
    assert "403" in str(err.value) and "Resource not accessible" in str(err.value)
    assert "ghs_secret" not in str(err.value)
    assert replay.sent[0].headers["Authorization"] == "Bearer ghs_secret"


def test_runs_against_a_live_like_thread_create_once_then_update_then_stay_quiet() -> None:
    gh = FakeGitHub()
    for i in range(7):  # more than a page of other comments before the bot's
        gh.add(f"review comment {i}")
    first = upsert_sticky(_github(gh, per_page=3), BODY)
    second = upsert_sticky(_github(gh, per_page=3), BODY.replace("2 to add", "3 to add"))
    third = upsert_sticky(_github(gh, per_page=3), BODY.replace("2 to add", "3 to add"))
    assert first.action == "created" and second.action == "updated"
    assert third.action == "unchanged"  # same body: nothing sent
    assert first.comment_id == second.comment_id == third.comment_id
    assert gh.writes == [("create", first.comment_id), ("update", first.comment_id)]
    assert sum(c["body"].startswith(MARKER) for c in gh.comments) == 1
    assert [c["body"] for c in gh.comments[:7]] == [f"review comment {i}" for i in range(7)]


def test_an_older_duplicate_is_reported_and_the_oldest_is_updated() -> None:
    gh = FakeGitHub()
    a, b = gh.add(f"{MARKER}\nold one"), gh.add(f"{MARKER}\nrace")
    outcome = upsert_sticky(_github(gh), BODY)
    assert (outcome.action, outcome.comment_id, outcome.duplicates) == ("updated", a, (b,))


def _gitlab(transport: object, per_page: int = 100) -> GitLabThread:
    return GitLabThread(
        transport,  # type: ignore[arg-type]
        api_url="https://gitlab.example.com/api/v4",
        project="5",
        mr_iid=7,
        token="glpat-secret",
        per_page=per_page,
    )


def test_gitlab_creates_the_note_when_there_is_none() -> None:
    replay = Replay(load_exchange("gitlab-mr-7.json", "first_run"))
    outcome = upsert_sticky(_gitlab(replay), BODY)
    assert (outcome.action, outcome.comment_id) == ("created", 78)
    assert replay.done()
    assert replay.sent[0].headers["PRIVATE-TOKEN"] == "glpat-secret"


def test_gitlab_follows_x_next_page_and_updates_the_note_found_on_page_two() -> None:
    replay = Replay(load_exchange("gitlab-mr-7.json", "paginated"))
    outcome = upsert_sticky(_gitlab(replay, per_page=2), BODY)
    assert (outcome.action, outcome.comment_id) == ("updated", 77)
    assert replay.done()
    assert replay.sent[-1].method == "PUT"
