"""The seams between features (issue 37): every shipped policy through every command, on
the sandbox versions it supports and at dates where calendars bend.

Generated from the files on disk: each policies/examples/X.yaml with its cluster file
policies/examples/clusters/X.yaml, plus policies/demo on the shipped demo cluster. A new
example is picked up by adding the two files. Each cell runs the CLI in-process (typer's
CliRunner; every `sandbox:` URI starts a real server, spoken to by pymongo over TCP):

    validate -> plan (changes, exit 4) -> apply --migrate --yes -> state saved (the URI's
    ?state=FILE) -> reloaded -> plan empty (--detailed-exitcode 0) -> status -> export ->
    validate of the export -> twin -> the plan on the twin equals the plan on the source

and no step may answer "internal error". Before apply too, where plans have work, a
`twin --measure` of each example's cluster plans what the cluster plans, the moves of its
unsharded collections included. A blocked refineCollectionShardKey (no index
supports the new key) gets the index the plan names, as its operator would build it.

Versions: a cluster file that names a `version:` needs at least that one (moveCollection
and `migrate: reshard` need 8.0 here, the demo's query sampling 7.0); one that names none
runs on every version.
Dates (`sandbox:?now=`, the server's clock): a month end (already February in Berlin), the
night Berlin's clocks go back (the zone of the firehose and per-day examples), 29 February
2028, a Sunday. plan, apply and status still evaluate windows at the host's clock (the last
test here holds that bug), so the chain is consistent within a cell on any day.

Covering design, not the full product (the suite must stay under 10 min on 2 cores; this
file's budget is about 60-90 s of CPU): each policy's cells pair its versions with the dates
in turn, so every (policy, version) and every (policy, date) pair runs once, in
max(versions, dates) cells per policy instead of versions x dates. Measured: about 80 s of
CPU; the demo's cells wait out the sandbox's quiet period before each of its ~1000 moves
(balancer.VIRTUAL_QUIET_SECONDS), about 30 s of wall time each, mostly idle.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.sandbox.uri import start

if not app.registered_commands:
    register(app)

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "policies" / "examples"
VERSIONS = ("5.0", "6.0", "7.0", "8.0", "8.3")
DATES = (
    "2026-01-31T23:30:00Z",  # a month end: 00:30 on 1 February in Berlin
    "2026-10-25T00:30:00Z",  # Berlin's clocks go back at 01:00 UTC: 02:30 CEST, then CET
    "2028-02-29T12:00:00Z",  # a leap day
    "2026-06-07T09:00:00Z",  # a Sunday
)
_VERSION = re.compile(r"""^version:\s*["']?(\d+\.\d+)""", re.MULTILINE)
_FIREHOSE = re.compile(r"^\s*firehose:", re.MULTILINE)


@dataclass(frozen=True)
class Policy:
    name: str
    policy: Path
    cluster: Path | None  # None: the shipped demo cluster (`sandbox:`)

    def versions(self) -> tuple[str, ...]:
        text = self.cluster.read_text(encoding="utf-8") if self.cluster else _demo_text()
        named = _VERSION.search(text)
        oldest = named.group(1) if named else VERSIONS[0]
        return tuple(v for v in VERSIONS if _tuple(v) >= _tuple(oldest))

    def has_firehose(self) -> bool:
        """Whether a firehose window follows the clock: its boundary is a value of that
        instant, so plans at two different days always differ (per-day slices may not)."""
        files = sorted(self.policy.glob("*.yaml")) if self.policy.is_dir() else [self.policy]
        return any(_FIREHOSE.search(f.read_text(encoding="utf-8")) for f in files)


def _tuple(version: str) -> tuple[int, ...]:
    return tuple(int(p) for p in version.split("."))


def _demo_text() -> str:
    from zonectl.sandbox.seed.build import demo_path

    return demo_path().read_text(encoding="utf-8")


def policies() -> list[Policy]:
    found = [
        Policy(p.stem, p, EXAMPLES / "clusters" / p.name) for p in sorted(EXAMPLES.glob("*.yaml"))
    ]
    return [*found, Policy("demo", ROOT / "policies" / "demo", None)]


def cells() -> list[Any]:
    out = []
    for policy in policies():
        versions = policy.versions()
        for i in range(max(len(versions), len(DATES))):
            version, now = versions[i % len(versions)], DATES[i % len(DATES)]
            out.append(
                pytest.param(
                    policy,
                    version,
                    now,
                    id=f"{policy.name}-{version}-{now[:10]}",
                )
            )
    return out


def zonectl(*args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of one in-process run, which may not break."""
    result = CliRunner().invoke(app, list(args))
    output = result.stdout + result.stderr
    step = " ".join(args[:2])
    assert "internal error" not in output, f"{step}: {output[-2000:]}"
    assert "Traceback" not in output, f"{step}: {output[-2000:]}"
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{step}: {result.exception!r}")
    return result.exit_code, result.stdout, result.stderr


def _blocked_refines(plan: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(namespace, new key) of each refine the plan blocks for want of an index."""
    return [
        (op["namespace"], op["args"]["key"])
        for op in plan["ops"]
        if op["kind"] == "refine_shard_key" and "no index supports" in op["args"].get("blocked", "")
    ]


def _apply_with_indexes(
    path: str, uri: str, refines: list[tuple[str, dict[str, Any]]]
) -> tuple[int, str, str]:
    """Build each index a blocked refine names on a sandbox served from `uri`, and apply
    there (the sandbox's saved state holds no indexes); closing it saves the state."""
    from bson import json_util
    from pymongo import MongoClient

    with start(uri) as handle, MongoClient(handle.uri) as client:
        for ns, key in refines:
            db, coll = ns.split(".", 1)
            spec = json_util.loads(json.dumps(key))
            client[db][coll].create_index(list(spec.items()))
        return zonectl("apply", path, *_apply_args(handle.uri))


def _apply_args(uri: str) -> list[str]:
    return ["--uri", uri, "--migrate", "--yes"]


def _ops(plan_json: str) -> list[Any]:
    """The plan's ops without collection UUIDs (each seeding draws new ones)."""

    def strip(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: strip(v) for k, v in value.items() if k != "uuid"}
        if isinstance(value, list):
            return [strip(v) for v in value]
        return value

    return [strip(op) for op in json.loads(plan_json)["ops"]]


@pytest.mark.parametrize(("policy", "version", "now"), cells())
def test_every_policy_goes_through_every_command(
    policy: Policy, version: str, now: str, tmp_path: Path
) -> None:
    cluster = str(policy.cluster or "")
    state = tmp_path / "state.json"
    uri = f"sandbox:{cluster}?version={version}&now={now}&state={state}"
    path = str(policy.policy)

    code, _, err = zonectl("validate", path)
    assert code == 0, err
    code, out, err = zonectl("plan", path, "--uri", uri, "-f", "json", "--detailed-exitcode")
    assert code == 4, err
    refines = _blocked_refines(json.loads(out))
    if refines:
        apply = _apply_with_indexes(path, uri, refines)
    else:
        apply = zonectl("apply", path, *_apply_args(uri))
    assert apply[0] == 0, apply[1] + apply[2]
    assert state.is_file()
    code, out, err = zonectl("plan", path, "--uri", uri, "--detailed-exitcode")
    assert code == 0, out + err  # reloaded from the state apply saved: nothing left to do
    code, out, err = zonectl("status", path, "--uri", uri)
    assert code == 0, out + err
    exported = tmp_path / "export.yaml"
    code, _, err = zonectl("export", "--uri", uri, "-o", str(exported))
    assert code == 0, err
    code, _, err = zonectl("validate", str(exported))
    assert code == 0, err
    on_source, on_twin = _plans_on_a_twin(path, uri, tmp_path / "twin.yaml", version, now)
    assert on_twin == on_source


def _plans_on_a_twin(
    path: str, uri: str, twin: Path, version: str, now: str, *more: str
) -> tuple[list[Any], list[Any]]:
    """The ops of the plan on the source `uri`, and on a `twin` of it (`more`: twin's
    options), served at the same version and instant."""
    code, _, err = zonectl("twin", "--uri", uri, "-o", str(twin), *more)
    assert code == 0, err
    code, on_source, err = zonectl("plan", path, "--uri", uri, "-f", "json")
    assert code == 0, err
    twin_uri = f"sandbox:{twin}?version={version}&now={now}"
    code, on_twin, err = zonectl("plan", path, "--uri", twin_uri, "-f", "json")
    assert code == 0, err
    return _ops(on_source), _ops(on_twin)


def test_every_example_ships_its_cluster_file_and_every_cluster_file_its_example() -> None:
    examples = {p.name for p in EXAMPLES.glob("*.yaml")}
    clusters = {p.name for p in (EXAMPLES / "clusters").glob("*.yaml")}
    assert examples == clusters


@pytest.mark.parametrize(
    ("policy", "now"),
    [
        pytest.param(policy, now, id=f"{policy.name}-{now[:10]}")
        for policy in policies()
        if policy.has_firehose()
        for now in DATES
    ],
)
def test_a_pinned_sandbox_plans_its_windows_at_its_own_clock(policy: Policy, now: str) -> None:
    """`sandbox:?now=` promises a run that prints the same every day (zonectl/sandbox/uri.py):
    a policy whose windows follow the clock plans at the sandbox's instant, as `--at` it.
    Dates only, on the policy's oldest version (windows are computed alike on all)."""
    uri = f"sandbox:{policy.cluster or ''}?version={policy.versions()[0]}&now={now}"
    path = str(policy.policy)
    code, pinned, err = zonectl("plan", path, "--uri", uri, "-f", "json")
    assert code == 0, err
    code, at_now, err = zonectl("plan", path, "--uri", uri, "-f", "json", "--at", now)
    assert code == 0, err
    assert _ops(pinned) == _ops(at_now)


@pytest.mark.parametrize(
    "policy", [pytest.param(p, id=p.name) for p in policies() if p.cluster is not None]
)
def test_a_twin_of_each_fresh_example_cluster_plans_what_the_cluster_plans(
    policy: Policy, tmp_path: Path
) -> None:
    """Before apply, where the plan has work (the chain above twins after it, when both
    plans are empty): on the newest version, a `twin --measure` plans the same ops as its
    source, the moveCollection of each unsharded collection included (a twin holds them,
    where they live: docs/twin.md)."""
    version, now = policy.versions()[-1], DATES[0]
    uri = f"sandbox:{policy.cluster}?version={version}&now={now}"
    path = str(policy.policy)
    twin = tmp_path / "twin.yaml"
    source_ops, twin_ops = _plans_on_a_twin(path, uri, twin, version, now, "--measure")
    assert twin_ops == source_ops
    assert not [n for n in _twin_notes(twin) if "unsharded" in n]


def _twin_notes(path: Path) -> list[str]:
    from ruamel.yaml import YAML

    doc = YAML(typ="safe", pure=True).load(path.read_text(encoding="utf-8"))
    return [str(n) for n in doc["twin"]["notes"]]
