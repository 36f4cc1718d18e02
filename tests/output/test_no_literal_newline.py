"""No zonectl message shows a literal `\\n`: its own line breaks print as line breaks, and
only a name's line break is shown escaped. tests/conftest.py scans every in-process CLI
run of the suite (tests/cli_output_scan.py); here, that the scan finds what it should,
that it really runs, and a broad run of every command in every format against the demo
cluster with a blocked key change and a hostile collection and zone name."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pymongo
import pytest
from bson import MaxKey, MinKey
from cli_output_scan import Stats, allow_foreign_line_break, literal_newlines
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.launch import serve
from zonectl.sandbox.seed import build as seed
from zonectl.sandbox.state import Sandbox

if not app.registered_commands:
    register(app)

DEMO = Path(__file__).resolve().parents[2] / "policies" / "demo"
TAIL = "::error::pwned"
HOSTILE_NS = f"app.ev\x1b[2J\n{TAIL}"
HOSTILE_ZONE = f"z\u202e\n{TAIL}"
allow_foreign_line_break(TAIL)  # these names' line breaks are theirs: shown escaped


def zonectl(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_the_scan_flags_a_literal_newline_and_only_that() -> None:
    assert literal_newlines("nothing was changed:\\n  reshard app.x") != []
    assert literal_newlines("nothing was changed:\n  reshard app.x") == []
    assert literal_newlines(json.dumps({"message": "a\nb"})) == []  # JSON's own escape
    assert literal_newlines(json.dumps({"message": "a\\nb"})) != []  # a literal in a string
    assert literal_newlines('x{ns="a\\nb"} 1\n# EOF\n') == []  # OpenMetrics' own escape
    assert literal_newlines('x{ns="a\\\\nb"} 1\n# EOF\n') != []
    assert literal_newlines(f"ns app.ev\\n{TAIL} is out of zone") == []  # a name's
    assert literal_newlines("ns app.ev\\n\\:\\:error\\:\\:pwned") == []  # markdown-escaped
    assert literal_newlines("BLOCKED:\\n::warning::no") != []


def test_every_in_process_cli_run_is_scanned(tmp_path: Path) -> None:
    """The hook is installed on the runner every test kit uses: it counts each run, and
    a run printing a literal `\\n` (here a policy key that holds one, not registered as a
    name's) fails the test that made it."""
    before = Stats.scanned
    assert zonectl("--version")[0] == 0
    assert Stats.scanned == before + 1
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        'apiVersion: zonectl/v1\nkind: ZonePolicy\nshards: {"a\\\\nb": 3}\n', encoding="utf-8"
    )
    with pytest.raises(AssertionError, match=r"printed a literal \\n"):
        zonectl("validate", str(policy))


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The demo cluster over TCP with a hostile collection (in the hostile zone on one
    shard), and the demo policy plus a key change that lacks its opt-in (blocked)."""
    sandbox = Sandbox("7.0")
    seed.seed(sandbox, seed.load(None), str(seed.demo_path()))
    server = serve(sandbox)
    client: pymongo.MongoClient[dict[str, Any]] = pymongo.MongoClient(
        server.uri, serverSelectionTimeoutMS=5000
    )
    try:
        client.admin.command({"shardCollection": HOSTILE_NS, "key": {"k": 1}})
        client.admin.command({"addShardToZone": "shard-std-1", "zone": HOSTILE_ZONE})
        client.admin.command(
            {
                "updateZoneKeyRange": HOSTILE_NS,
                "min": {"k": MinKey()},
                "max": {"k": MaxKey()},
                "zone": HOSTILE_ZONE,
            }
        )
        policy = tmp_path_factory.mktemp("policy") / "policies"
        shutil.copytree(DEMO, policy)
        (policy / "sessions.yaml").write_text(
            "apiVersion: zonectl/v1\nkind: ZonePolicy\ncollections:\n"
            '  app.sessions:\n    key: {_id: "hashed"}\n',
            encoding="utf-8",
        )
        yield str(server.uri), policy
    finally:
        client.close()
        server.close()


def test_zonectl_line_breaks_print_as_line_breaks(demo: tuple[str, Path]) -> None:
    uri, policy = demo
    code, out, _ = zonectl("plan", str(policy), "--uri", uri)
    assert code == 0
    assert "\n      BLOCKED: resharding needs the opt-in: add `reshard: true`" in out
    code, _, err = zonectl("apply", str(policy), "--uri", uri, "--yes")
    assert code == 1
    assert "nothing was changed:\n  reshard app.sessions from { userId: 1 }" in err


def _runs(uri: str, policy: Path, tmp: Path) -> Iterator[tuple[list[str], set[int]]]:
    p = str(policy)
    for fmt in ("text", "json", "github"):
        yield ["validate", p, "--format", fmt], {0}
    for fmt in ("text", "json", "markdown", "github", "html"):
        yield ["plan", p, "--uri", uri, "--format", fmt], {0}
    for fmt in ("text", "json", "openmetrics", "html"):
        yield ["status", "--uri", uri, "--format", fmt], {0}
        yield ["status", p, "--uri", uri, "--format", fmt], {0}
    for fmt in ("text", "json", "markdown"):
        yield ["analyze", p, "--uri", uri, "--format", fmt], {0}
    for fmt in ("text", "json"):
        yield ["doctor", p, "--uri", uri, "--format", fmt], {0, 1}
    for fmt in ("text", "json", "markdown"):
        yield ["explain", "--uri", uri, "--format", fmt], {0}
    yield ["export", "--uri", uri], {0}
    yield ["export", "--uri", uri, "-o", str(tmp / "exported.yaml")], {0}
    yield ["apply", p, "--uri", uri, "--dry-run"], {0, 1}
    yield ["apply", p, "--uri", uri, "--yes"], {1}  # the blocked key change: refused whole
    yield ["recover", "--uri", uri], {0}
    yield ["rotate", p, "--uri", uri, "--yes"], {0}


def test_no_command_prints_a_literal_newline_in_any_format(
    demo: tuple[str, Path], tmp_path: Path
) -> None:
    """Each run is also scanned by the suite-wide hook; here the outputs are checked
    explicitly, and the hostile names are seen escaped where they are shown."""
    uri, policy = demo
    seen = []
    for args, codes in _runs(uri, policy, tmp_path):
        code, out, err = zonectl(*args)
        assert code in codes, (args, err)
        assert "Traceback" not in err and "internal error" not in err, (args, err)
        assert literal_newlines(out) == [] and literal_newlines(err) == [], args
        assert "\x1b" not in out + err, args
        seen.append(out + err)
    everything = "".join(seen)
    assert f"app.ev\\x1b[2J\\n{TAIL}" in everything  # the name, escaped, in the text views
    assert f"z\\u202e\\n{TAIL}" in everything
