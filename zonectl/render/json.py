"""The machine view of a plan: the same versioned JSON document `plan --save-plan` saves."""

from __future__ import annotations

from zonectl.plan.plan import Plan
from zonectl.plan.serialize import plan_to_doc
from zonectl.render.inert import json_text
from zonectl.render.json_indent import dumps_indented


def render_json(plan: Plan) -> str:
    return json_text(dumps_indented(plan_to_doc(plan), ensure_ascii=False) + "\n")
