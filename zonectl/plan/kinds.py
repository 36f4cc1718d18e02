"""Every op class, and each by its stable `kind` (saved plans, JSON): the admin-action ops of
plan/ops.py and the two settings ops of plan/setting_ops.py."""

from __future__ import annotations

from zonectl.plan import ops
from zonectl.plan.setting_ops import SetClusterSetting, SetCollectionSetting

OP_CLASSES: tuple[type[ops.Op], ...] = (*ops.OP_CLASSES, SetClusterSetting, SetCollectionSetting)
OPS_BY_KIND: dict[str, type[ops.Op]] = {cls.kind: cls for cls in OP_CLASSES}
