"""Kept for the commands that still import it from here: the policy planned against a live
cluster lives in zonectl.session.policy_plan (the application layer)."""

from __future__ import annotations

from zonectl.session.namespaces import policy_namespaces as policy_namespaces
from zonectl.session.policy_plan import PolicyPlan as PolicyPlan
from zonectl.session.policy_plan import read_policy_plan as read_policy_plan
