"""`zonectl schema`: print the JSON Schema of policy files, for editors and CI.

Point yaml-language-server at it with `# yaml-language-server: $schema=zonectl.schema.json`.
"""

from __future__ import annotations

import json

import typer

from zonectl.cli.error_boundary import guarded
from zonectl.errors import ExitCode


@guarded
def command() -> int:
    """Print the JSON Schema (2020-12) of the policy format on stdout."""
    from zonectl.policy.schema import policy_json_schema

    typer.echo(json.dumps(policy_json_schema(), indent=2))
    return int(ExitCode.OK)
