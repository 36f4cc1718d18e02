"""The policy language: load YAML policy files, merge and check them, build a DesiredState.

The only ruamel user. Entry point: `load_policy(paths) -> PolicyLoad`.
"""

from __future__ import annotations

from zonectl.policy.load import PolicyLoad, load_policy
from zonectl.policy.tree import Limits

__all__ = ["Limits", "PolicyLoad", "load_policy"]
