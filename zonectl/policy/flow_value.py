"""One YAML value written on the command line (`--candidate '{sessionId: 1}'`), parsed with
the policy's YAML rules, so the policy package stays the only ruamel user."""

from __future__ import annotations

from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import YAMLError


def load_flow_value(text: str) -> Any:
    """The value of `text` as YAML 1.2 (safe types only); ValueError when it is not YAML,
    without the parser's own text (it names line and column of a one-line string)."""
    try:
        # pure: with ruamel.yaml.clib installed (a dependency, for the policy's composer),
        # typ="safe" alone reads with libyaml, whose scanner refuses what ruamel's takes
        # (`[host:27019]`, a ':' inside a flow scalar); a value reads as the policy reads it
        return YAML(typ="safe", pure=True).load(text)
    except YAMLError:
        raise ValueError("not valid YAML") from None
