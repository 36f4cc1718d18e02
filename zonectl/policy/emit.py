"""Plain values as a YAML stream (for generated manifests), kept here so that the policy
package stays the only ruamel user."""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import Any

from ruamel.yaml import YAML


def dump_yaml_stream(documents: Sequence[Any], header: str = "") -> str:
    """Block style, keys in the order given, each document after `---`, no anchors."""
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = False
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    yaml.explicit_start = True
    out = io.StringIO()
    out.write(header)
    yaml.dump_all(list(documents), out)
    return out.getvalue()
