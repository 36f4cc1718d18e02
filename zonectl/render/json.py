"""The machine view of a plan: the same versioned JSON document `plan -o` saves."""

from __future__ import annotations

from zonectl.plan.serialize import dump_plan
from zonectl.plan.value import Plan


def render_json(plan: Plan) -> str:
    return dump_plan(plan)
