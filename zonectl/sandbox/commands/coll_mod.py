"""collMod, as far as the sandbox keeps collection options: the mongos refuses to change
config.settings' validator (7.0+); anything else is not simulated and says so.

mongo:src/mongo/s/commands/cluster_collection_mod_cmd.cpp (6.2+ routers, with the
config.settings schema): a `validator`, `validationLevel` or `validationAction` on
config.settings is InvalidOptions (72) "Document validators not allowed on system
collection config.settings", before the command is routed
(jstests/sharding/config_settings_schema.js asserts the code for all three). A 5.0/6.0
router routes it to the config server, whose answer the sandbox does not model.
"""

from __future__ import annotations

from typing import Any

from zonectl.sandbox.catalog.settings_schema import SETTINGS_NS
from zonectl.sandbox.commands.nsutil import namespace_of
from zonectl.sandbox.commands.registry import Request, command
from zonectl.sandbox.errors import CommandError

_VALIDATION = ("validator", "validationLevel", "validationAction")


@command("collMod")
def coll_mod(request: Request) -> dict[str, Any]:
    ns = namespace_of(request)
    version = request.sandbox.version
    if (
        ns == SETTINGS_NS
        and version.version_array[:2] >= [7, 0]
        and any(name in request.body for name in _VALIDATION)
    ):
        raise CommandError.of(
            "InvalidOptions", f"Document validators not allowed on system collection {ns}"
        )
    raise CommandError.of(
        "NotImplemented",
        f"collMod of {ns} is not simulated by the zonectl sandbox "
        "(docs/sandbox-fidelity.md, config.settings)",
    )
