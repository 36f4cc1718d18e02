"""Resharding features that a feature compatibility version below their release turns off
(catalog/fcv.py), with the errors MongoDB gives:

- resharding itself (5.0; a 5.0 cluster at FCV 4.4): CommandNotSupported "<command> command
  not enabled" (`gFeatureFlagResharding` checks in mongo:src/mongo/db/s/config/
  configsvr_reshard_collection_cmd.cpp, configsvr_abort_reshard_collection_command.cpp,
  configsvr_commit_reshard_collection_command.cpp, 5.0);
- the 7.2 resharding improvements (`gFeatureFlagReshardingImprovements`; an 8.0 cluster at
  FCV 7.0): InvalidOptions "Resharding improvements is not enabled, reject <field> parameter"
  for `forceRedistribution` (any value: the check is `has_value()`) and `shardDistribution`
  (which moveCollection always sends), in mongo:src/mongo/db/s/reshard_collection_coordinator
  .cpp and configsvr_reshard_collection_cmd.cpp.
Guess: a mongos before 7.2 drops `forceRedistribution` unread (its IDL is not strict), so the
check only bites on an 8.0 binary at a lower FCV.
"""

from __future__ import annotations

from zonectl.sandbox.catalog import fcv
from zonectl.sandbox.commands.registry import Request
from zonectl.sandbox.errors import CommandError

RESHARDING = (5, 0)
IMPROVEMENTS = (7, 2)


def require_resharding(request: Request, name: str) -> None:
    if fcv.below(request.sandbox.catalog, request.sandbox.version, RESHARDING):
        raise CommandError.of("CommandNotSupported", f"{name} command not enabled")


def reject_without_improvements(request: Request, field: str) -> None:
    """`field` is sent and the binary knows it (7.2+), but the FCV keeps it off."""
    sandbox = request.sandbox
    if sandbox.version.version_array[:2] < list(IMPROVEMENTS):
        return
    if fcv.below(sandbox.catalog, sandbox.version, IMPROVEMENTS):
        raise CommandError.of(
            "InvalidOptions", f"Resharding improvements is not enabled, reject {field} parameter"
        )
