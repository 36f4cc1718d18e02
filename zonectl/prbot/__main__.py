"""`python -m zonectl.prbot github|gitlab ...`: build the comment from the CI step outputs
and post or update the one sticky comment. Settings come from the CI's own variables."""

from __future__ import annotations

import argparse
import json
import os
import sys
import urllib.parse
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from zonectl.prbot.body import Report, build_comment
from zonectl.prbot.sticky import (
    BotError,
    GitHubThread,
    GitLabThread,
    Thread,
    Transport,
    upsert_sticky,
)
from zonectl.redaction import redact


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m zonectl.prbot",
        description="Post or update the one zonectl plan comment on a pull/merge request. "
        "The comment starts with <!-- zonectl-plan -->; a later run edits it in place.",
    )
    p.add_argument("forge", choices=["github", "gitlab"])
    p.add_argument("--validate-exit", type=int, required=True, help="validate's exit code")
    p.add_argument("--validate-output", type=Path, required=True,
                   help="validate --format github stdout")  # fmt: skip
    p.add_argument("--plan", type=Path, help="plan --format markdown stdout")
    p.add_argument("--plan-exit", type=int, help="plan's exit code (absent: plan did not run)")
    p.add_argument("--plan-error", type=Path, help="plan's stderr, shown when it failed")
    p.add_argument("--warnings", type=Path,
                   help="analyzer warnings in markdown; the section appears only when this "
                   "file exists and is not empty")  # fmt: skip
    p.add_argument("--explain", type=Path,
                   help="`zonectl explain -n NS... --format markdown` of the namespaces the "
                   "plan changes; the section appears only when this file exists and is not "
                   "empty")  # fmt: skip
    p.add_argument("--number", type=int, help="PR / MR number (default: from the CI event)")
    p.add_argument("--body-out", type=Path, help="also write the comment body here")
    p.add_argument("--dry-run", action="store_true", help="print the body, post nothing")
    return p


def main(
    argv: Sequence[str] | None = None,
    environ: Mapping[str, str] | None = None,
    transport: Transport | None = None,
) -> int:
    args = _parser().parse_args(argv)
    env = os.environ if environ is None else environ
    try:
        report = _report(args, env)
        body = build_comment(report)
        if args.body_out:
            args.body_out.write_text(body, encoding="utf-8")
        if args.dry_run:
            sys.stdout.write(body)
            return 0
        if transport is None:
            from zonectl.prbot.http import urllib_transport

            transport = urllib_transport
        thread = _thread(args, env, transport)
        outcome = upsert_sticky(thread, body)
    except BotError as exc:  # URLs in it may carry credentials: never shown
        print(f"zonectl-prbot: error: {redact(str(exc))}", file=sys.stderr)
        return 1
    except Exception as exc:  # a bug: one line, not a traceback that may quote a secret
        print(f"zonectl-prbot: internal error: {type(exc).__name__}: {redact(str(exc))}",
              file=sys.stderr)  # fmt: skip
        return 1
    extra = f" ({len(outcome.duplicates)} older duplicate(s) left)" if outcome.duplicates else ""
    print(f"zonectl-prbot: {outcome.action} comment {outcome.comment_id}{extra}", file=sys.stderr)
    return 0


def _read(path: Path | None) -> str | None:
    if path is None or not path.is_file():
        return None
    return path.read_text(encoding="utf-8", errors="replace")


def _report(args: argparse.Namespace, env: Mapping[str, str]) -> Report:
    github = args.forge == "github"
    run_url = (
        f"{env.get('GITHUB_SERVER_URL', 'https://github.com')}/{env['GITHUB_REPOSITORY']}"
        f"/actions/runs/{env['GITHUB_RUN_ID']}"
        if github and env.get("GITHUB_REPOSITORY") and env.get("GITHUB_RUN_ID")
        else env.get("CI_JOB_URL")
    )
    commit = _event(env).get("pull_request", {}).get("head", {}).get("sha") if github else None
    return Report(
        validate_exit=args.validate_exit,
        validate_output=_read(args.validate_output) or "",
        plan_markdown=_read(args.plan),
        plan_exit=args.plan_exit,
        plan_error=_read(args.plan_error),
        warnings_markdown=_read(args.warnings),
        explain_markdown=_read(args.explain),
        commit=commit or env.get("GITHUB_SHA") or env.get("CI_COMMIT_SHA"),
        run_url=run_url,
    )


def _event(env: Mapping[str, str]) -> dict[str, Any]:
    path = env.get("GITHUB_EVENT_PATH")
    if not path or not Path(path).is_file():
        return {}
    doc = json.loads(Path(path).read_text(encoding="utf-8"))
    return doc if isinstance(doc, dict) else {}


def _need(env: Mapping[str, str], name: str, why: str) -> str:
    value = env.get(name)
    if not value:
        raise BotError(f"${name} is not set: {why}")
    return value


def _api_url(env: Mapping[str, str], name: str, default: str | None) -> str:
    """The forge's API base URL: http(s) with a host and no credentials (the token has its
    own variable and goes in a header); said, never quoted with a password, when not."""
    value = env.get(name) or default
    if value is None:
        raise BotError(f"${name} is not set: run inside GitLab CI")
    try:
        parts = urllib.parse.urlsplit(value)
        has_credentials = "@" in parts.netloc
        _ = parts.port  # a port that is no number raises ValueError
        valid = parts.scheme in ("http", "https") and bool(parts.hostname)
    except ValueError:
        valid, has_credentials = False, "@" in value
    if has_credentials:
        raise BotError(
            f"${name} holds credentials ({redact(value)}): put the token in "
            f"${'GITHUB_TOKEN' if name.startswith('GITHUB') else 'ZONECTL_GITLAB_TOKEN'}, "
            "not in the URL"
        )
    if not valid:
        example = default or "https://gitlab.example.com/api/v4"
        raise BotError(
            f"${name} is not an http(s) URL with a host: {redact(value)}; e.g. {example}"
        )
    return value


def _thread(args: argparse.Namespace, env: Mapping[str, str], transport: Transport) -> Thread:
    if args.forge == "github":
        number = args.number or _event(env).get("pull_request", {}).get("number")
        if not number:
            raise BotError("no pull request number: pass --number or run on pull_request")
        return GitHubThread(
            transport,
            api_url=_api_url(env, "GITHUB_API_URL", "https://api.github.com"),
            repository=_need(env, "GITHUB_REPOSITORY", "owner/name of the repository"),
            number=int(number),
            token=_need(env, "GITHUB_TOKEN", "give the job `pull-requests: write`"),
        )
    iid = args.number or env.get("CI_MERGE_REQUEST_IID")
    if not iid:
        raise BotError("no merge request: pass --number or run in a merge request pipeline")
    return GitLabThread(
        transport,
        api_url=_api_url(env, "CI_API_V4_URL", None),
        project=_need(env, "CI_PROJECT_ID", "run inside GitLab CI"),
        mr_iid=int(iid),
        token=_need(env, "ZONECTL_GITLAB_TOKEN", "a project access token with the api scope"),
    )


if __name__ == "__main__":
    sys.exit(main())
