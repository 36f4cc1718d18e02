"""The machine view of a plan: the same versioned JSON document `plan --save-plan` saves."""

from __future__ import annotations

from zonectl.plan.plan import Plan
from zonectl.plan.serialize import dump_plan
from zonectl.render.inert import json_text


def render_json(plan: Plan) -> str:
    return json_text(dump_plan(plan))
