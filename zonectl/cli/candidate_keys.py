"""`analyze --candidate` values: YAML flow mappings of a shard key, parsed and checked here
so the analyze rules take plain keys. A bad value is a usage error (exit 2) that says what
was expected and shows an example."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from zonectl.errors import UsageError
from zonectl.policy.flow_value import load_flow_value

EXPECTED = (
    "expected a shard key as a YAML flow mapping of fields to 1 (ascending) or hashed, at "
    "most one hashed, e.g. --candidate '{sessionId: 1}', '{userId: 1, ts: 1}' or "
    "'{_id: hashed}'"
)


def parse_candidates(
    texts: Sequence[str], namespaces: Sequence[str] | None
) -> list[dict[str, Any]]:
    """The `--candidate` keys in order; UsageError for a bad one, or for candidates without
    --namespace (the collection to try them on)."""
    if texts and not namespaces:
        raise UsageError("--candidate needs --namespace/-n: the collection to try the key on")
    return [parse_candidate(text) for text in texts]


def parse_candidate(text: str) -> dict[str, Any]:
    try:
        value = load_flow_value(text)
    except ValueError:
        raise UsageError(f"--candidate {text!r}: not valid YAML; {EXPECTED}") from None
    if not isinstance(value, dict) or not value:
        raise UsageError(f"--candidate {text!r}: not a mapping; {EXPECTED}")
    key: dict[str, Any] = {}
    for name, direction in value.items():
        ascending = type(direction) is int and direction == 1
        if not isinstance(name, str) or not name or not (ascending or direction == "hashed"):
            raise UsageError(f"--candidate {text!r}: field {name!r} has {direction!r}; {EXPECTED}")
        key[name] = direction
    if sum(v == "hashed" for v in key.values()) > 1:
        raise UsageError(f"--candidate {text!r}: more than one hashed field; {EXPECTED}")
    return key
