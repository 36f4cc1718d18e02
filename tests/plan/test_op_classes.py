"""Every op class is complete: it declares what the views, the summary, the serializer, the
executor and `apply`'s phases read from it, so adding an op kind touches one class and its
tests, never a table keyed by type in the renderers or the summary."""

from __future__ import annotations

import dataclasses
import json
from typing import Any, ClassVar, get_args

import pytest
from op_samples import ONE_OF_EACH
from test_render_and_serialize import a_plan

from zonectl.plan import op_base
from zonectl.plan.kinds import OP_CLASSES, OPS_BY_KIND
from zonectl.plan.op_base import Counts, Format, Moves, Op, Phase, Sign
from zonectl.plan.ops import ZoneMembershipOp, ZoneRangeOp
from zonectl.plan.serialize import plan_to_doc
from zonectl.render import render_markdown, render_text
from zonectl.render.markdown import callout

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
    """apply runs phase "range" per namespace, and the views group memberships apart."""
    for op in ONE_OF_EACH:
        assert (op.phase == "range") == isinstance(op, ZoneRangeOp)
        assert (op.counts_as == "membership") == isinstance(op, ZoneMembershipOp)
        if op.phase == "range" or op.placed_in is not None:
            assert op.namespace is not None


def test_the_summary_counts_what_each_op_declares() -> None:
    s = a_plan(ONE_OF_EACH).summary()
    declared = [op.counts_as for op in ONE_OF_EACH]
    assert s.to_add == declared.count("range_added") == 2
    assert s.to_remove == declared.count("range_removed") == 1
    assert s.settings == declared.count("setting") == 8
    assert s.collections == declared.count("collection_moved") == 1
    assert s.key_changes == declared.count("key_change") == 2
    assert s.shards_rezoned == 2


@dataclasses.dataclass(frozen=True)
class _FlushRouterConfig(Op):
    """A kind the views have never heard of, declared the way a new one would be."""

    kind: ClassVar[str] = "flush_router_config"
    sign: ClassVar[Sign] = "~"
    counts_as: ClassVar[Counts] = "setting"
    phase: ClassVar[Phase] = "last"
    moves: ClassVar[Moves] = ""
    destructive: ClassVar[bool] = True
    apply_only: ClassVar[bool] = False
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
