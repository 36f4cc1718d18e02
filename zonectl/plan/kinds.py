"""Every op kind by its stable `kind` (saved plans, JSON): the family modules register their
kinds as their classes are defined (plan/op_base.py `KINDS`); importing them here makes the
registry complete, so a new kind in one of them needs no line elsewhere."""

from __future__ import annotations

from zonectl.plan import data_ops, ops, setting_ops, shard_ops, switch_ops
from zonectl.plan.op_base import KINDS, Op

# The modules that define zonectl's own kinds (anything else registered was defined
# elsewhere, e.g. by a test).
FAMILIES = (ops, switch_ops, data_ops, setting_ops, shard_ops)
OPS_BY_KIND: dict[str, type[Op]] = KINDS
OP_CLASSES: tuple[type[Op], ...] = tuple(
    cls for cls in KINDS.values() if cls.__module__ in {m.__name__ for m in FAMILIES}
)
