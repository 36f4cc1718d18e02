"""Every op class is complete: it declares what the views, the summary, the serializer, the
executor and `apply`'s phases read from it, so adding an op kind touches one class and its
tests, never a table keyed by type in the renderers, the summary, the planner's -n
restriction, the saved-plan loader or apply. The proof: a kind declared in this module only
is planned, rendered, counted, restricted, saved, loaded and sent to a sandbox."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any, get_args

import pytest
from op_samples import ONE_OF_EACH
from test_render_and_serialize import a_plan
from typer.testing import CliRunner

from zonectl.cli.app import app
from zonectl.cli.commands import register
from zonectl.plan import op_base, planner
from zonectl.plan.kinds import OP_CLASSES, OPS_BY_KIND
from zonectl.plan.op_base import Counts, Format, Moves, Op, Phase, Sign
from zonectl.plan.ops import ZoneMembershipOp, ZoneRangeOp
from zonectl.plan.serialize import plan_to_doc
from zonectl.render import render_markdown, render_text
from zonectl.render.markdown import callout
from zonectl.sandbox.uri import build_sandbox, parse

CLUSTER = Path(__file__).resolve().parent / "fixtures" / "cluster.yaml"

if not app.registered_commands:
    register(app)

ALLOWED: dict[str, tuple[Any, ...]] = {
    "sign": get_args(Sign),
    "counts_as": get_args(Counts),
    "phase": get_args(Phase),
    "moves": get_args(Moves),
    "destructive": (True, False),
    "apply_only": (True, False),
}


@pytest.mark.parametrize("cls", OP_CLASSES, ids=lambda cls: cls.__name__)
def test_every_op_class_declares_each_attribute_the_views_and_apply_read(cls: type[Op]) -> None:
    for name in op_base.DECLARED:
        assert hasattr(cls, name), f"{cls.__name__} does not declare {name}"
    for name, allowed in ALLOWED.items():
        assert getattr(cls, name) in allowed, f"{cls.__name__}.{name}"
    assert OPS_BY_KIND[cls.kind] is cls  # a kind names one class only
    for method in ("describe", "line", "command"):
        assert getattr(cls, method) is not getattr(Op, method), f"{cls.__name__}.{method}"


@pytest.mark.parametrize("cls", OP_CLASSES, ids=lambda cls: cls.__name__)
def test_an_op_whose_impact_is_counted_can_carry_one(cls: type[Op]) -> None:
    """Plan.with_impacts sets the `impact` field of the ops whose `moves` the summary sums."""
    fields = {f.name for f in dataclasses.fields(cls)}
    assert (cls.moves != "") <= ("impact" in fields)


@pytest.mark.parametrize("op", ONE_OF_EACH, ids=lambda op: type(op).__name__)
def test_every_op_words_its_line_and_calls_out_what_it_takes_away(op: Op) -> None:
    assert op.line().strip()
    note = callout(op)
    assert isinstance(note, str)
    if op.destructive:
        assert note, f"{type(op).__name__} removes something: a reviewer must see it"


def test_the_range_and_membership_families_agree_with_their_declarations() -> None:
    """apply runs phase "range" per namespace (what `range_change` says), the views group
    memberships apart, the summary counts key changes and moved collections by bucket."""
    for op in ONE_OF_EACH:
        assert (op.phase == "range") == isinstance(op, ZoneRangeOp)
        assert (op.phase == "range") == (op.range_change() is not None)
        assert (op.counts_as == "membership") == isinstance(op, ZoneMembershipOp)
        assert (op.counts_as == "membership") == (op.membership_change() is not None)
        assert (op.counts_as == "key_change") == (op.key_change() is not None)
        # An unsharded collection moved runs in phase "relocate"; so does a database's
        # primary moved off a shard being removed, which moves no one collection.
        assert op.relocation() is None or op.phase == "relocate"
        change = op.range_change()
        if change is not None:
            assert change.adds == (op.sign == "+") and change.ns == op.namespace
        if op.phase == "range" or op.placed_in is not None:
            assert op.namespace is not None


def test_a_kind_names_one_class_only() -> None:
    with pytest.raises(TypeError, match="op kind 'assign_zone_range' is declared twice"):

        @dataclasses.dataclass(frozen=True)
        class _Again(Op, kind="assign_zone_range", counts_as="", phase="last"):
            pass

    assert OPS_BY_KIND["assign_zone_range"].__name__ == "AssignZoneRange"


def test_the_summary_counts_what_each_op_declares() -> None:
    s = a_plan(ONE_OF_EACH).summary()
    declared = [op.counts_as for op in ONE_OF_EACH]
    assert s.to_add == declared.count("range_added") == 2
    assert s.to_remove == declared.count("range_removed") == 1
    assert s.settings == declared.count("setting") == 8
    assert s.collections == declared.count("collection_moved") == 1  # moveCollection
    assert s.primaries == declared.count("primary_moved") == 1  # movePrimary
    assert s.key_changes == declared.count("key_change") == 2
    assert s.shards_rezoned == 2


@dataclasses.dataclass(frozen=True)
class _FlushRouterConfig(
    Op, kind="flush_router_config", counts_as="setting", phase="last", destructive=True
):
    """A kind the views have never heard of, declared the way a new one would be."""

    ns: str

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"flush the routing table of {self.ns}"

    def line(self) -> str:
        return "routing table flushed"

    def callout(self, code: Format, prose: Format) -> str:
        return f"{code(self.ns)}: every router reloads its routing table"

    def command(self) -> dict[str, Any]:
        return {"flushRouterConfig": self.ns}


def test_a_new_op_kind_renders_summarises_and_saves_without_touching_the_views() -> None:
    plan = a_plan([_FlushRouterConfig("app.<b>")])
    text = render_text(plan)
    assert "  ~ routing table flushed" in text.splitlines()
    assert "1 setting to change" in text
    md = render_markdown(plan)
    assert "> **1 destructive change(s)**" in md
    assert "`app.<b>`: every router reloads its routing table" in md  # the name as code
    doc = json.loads(json.dumps(plan_to_doc(plan)))
    assert doc["ops"][0]["kind"] == "flush_router_config"
    assert doc["ops"][0]["destructive"] is True


@dataclasses.dataclass(frozen=True)
class _SetAllowMigrations(Op, kind="set_allow_migrations", counts_as="setting", phase="last"):
    """setAllowMigrations (5.0+), a command no zonectl op sends: a new kind, declared here
    only, as it would be in its family module. Nothing else in zonectl names it."""

    ns: str
    allowed: bool

    @property
    def namespace(self) -> str:
        return self.ns

    def describe(self) -> str:
        return f"{'allow' if self.allowed else 'forbid'} migrations of {self.ns}"

    def line(self) -> str:
        return f"migrations {'allowed' if self.allowed else 'forbidden'}"

    def callout(self, code: Format, prose: Format) -> str:
        return "" if self.allowed else f"{code(self.ns)}: no chunk of it migrates any more"

    def command(self) -> dict[str, Any]:
        return {"setAllowMigrations": self.ns, "allowMigrations": self.allowed}


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def test_a_new_op_kind_is_planned_shown_restricted_saved_and_applied_from_its_module_alone(
    sandbox_server: Any, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The planner rule that would emit the kind is the only thing patched in; the views,
    the summary, -n, the saved-plan loader, dry run and apply find it through what it
    declares, and the sandbox receives its command over TCP."""
    sb = sandbox_server(sandbox=build_sandbox(parse(f"sandbox:{CLUSTER}")))
    rule = planner.sampling_ops

    def with_new_kind(desired: Any, actual: Any, ns: str, problems: Any) -> list[Op]:
        return [*rule(desired, actual, ns, problems), _SetAllowMigrations(ns, allowed=False)]

    monkeypatch.setattr(planner, "sampling_ops", with_new_kind)
    policy = tmp_path / "policy.yaml"
    policy.write_text(
        "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  shard-std-0: [archive]\n"
        "collections:\n  app.audit:\n    key: {_id: 1}\n    pin: archive\n"
        "  app.users:\n    balancing: true\n"
    )  # matches the cluster: the new kind's ops are the only changes
    base = ("plan", str(policy), "--uri", sb.uri)

    code, out, err = _cli(*base)
    assert code == 0, err
    assert out.splitlines().count("  ~ migrations forbidden") == 2  # one per namespace
    assert "2 settings to change" in out  # counted as it declares
    code, out, _ = _cli(*base, "--format", "markdown")
    assert "> **2 destructive change(s)**" in out  # its callout, for the reviewer
    assert "> - `app.audit`: no chunk of it migrates any more" in out
    code, out, _ = _cli(*base, "-n", "app.audit", "--format", "json")
    doc = json.loads(out)
    assert [(op["kind"], op["namespace"]) for op in doc["ops"]] == [
        ("set_allow_migrations", "app.audit")
    ]  # -n keeps the namespace's ops, by what `namespace` says

    saved = tmp_path / "plan.json"
    assert _cli(*base, "-n", "app.audit", "--save-plan", str(saved))[0] == 0
    apply = ("apply", str(policy), "--uri", sb.uri, "--plan", str(saved))
    code, out, err = _cli(*apply, "--dry-run")
    assert code == 0, err
    assert 'admin: {"setAllowMigrations": "app.audit", "allowMigrations": false}' in out
    audit = sb.client.config.collections.find_one({"_id": "app.audit"})
    assert "permitMigrations" not in audit  # a dry run sends nothing

    code, out, err = _cli(*apply, "--yes")
    assert code == 0, err
    assert "1/1 op(s)" in err
    collections = {d["_id"]: d for d in sb.client.config.collections.find()}
    assert collections["app.audit"]["permitMigrations"] is False  # sent and run
    assert "permitMigrations" not in collections["app.users"]  # restricted away by -n
