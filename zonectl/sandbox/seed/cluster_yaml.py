"""Writing a cluster file (`zonectl sandbox --cluster`'s format, read by schema.py): the YAML
a twin is saved as. Whatever is written is first checked against the schema the reader uses,
so a file this module writes is one the sandbox can load."""

from __future__ import annotations

import io
from collections.abc import Mapping
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML

from zonectl.sandbox.seed.schema import ClusterFile

_HEADER = (
    "# A twin written by `zonectl twin` (docs/twin.md); serve it with\n"
    "# `zonectl sandbox --cluster THIS_FILE`. The chunks are in the file twin.chunks names.\n"
)


def render(doc: Mapping[str, Any]) -> str:
    """The cluster file `doc` as YAML (plain values: relaxed Extended JSON for BSON types).
    Raises ValueError when `doc` is not a valid cluster file (a bug of its writer)."""
    try:
        ClusterFile.model_validate(dict(doc))
    except ValidationError as exc:
        raise ValueError(f"not a valid cluster file: {exc}") from None
    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = None
    yaml.width = 120
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    buf = io.StringIO()
    buf.write(_HEADER)
    yaml.dump(dict(doc), buf)
    return buf.getvalue()
