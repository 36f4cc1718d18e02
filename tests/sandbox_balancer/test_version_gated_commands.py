"""Commands a server version does not have are unknown there: CommandNotFound comes before
any other check (admin-only, writeConcern, fields), as on a real mongos of that version."""

from __future__ import annotations

from typing import Any

import pytest
from pymongo.errors import OperationFailure

ABSENT_ON_5_0 = [
    {"moveRange": "app.x", "toShard": "shard-a", "min": {"x": 0}},
    {"configureCollectionBalancing": "app.x", "chunkSize": 4},
]


@pytest.mark.parametrize("cmd", ABSENT_ON_5_0, ids=lambda c: next(iter(c)))
@pytest.mark.parametrize(
    ("database", "extra"),
    [("admin", {}), ("app", {}), ("admin", {"writeConcern": {"w": 1}}), ("admin", {"bogus": 1})],
    ids=["admin", "non-admin-db", "writeConcern", "unknown-field"],
)
def test_a_command_the_version_lacks_is_not_found_before_any_other_check(
    sandbox_server: Any, cmd: dict[str, Any], database: str, extra: dict[str, Any]
) -> None:
    client = sandbox_server(version="5.0").client
    name = next(iter(cmd))
    with pytest.raises(OperationFailure) as failure:
        client[database].command({**cmd, **extra})
    assert failure.value.code == 59
    assert failure.value.details is not None
    assert failure.value.details["codeName"] == "CommandNotFound"
    assert failure.value.details["errmsg"] == f"no such command: '{name}'"
