"""The cluster file's `configServer:` section (schema.py holds it): the config server's
startup parameters, a `setParameter:` block as its mongod config file carries them, for the
ones that change what the sandbox seeds."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

# minNumChunksForSessionsCollection: default 1024, validator {gte: 1, lte: 1000000}
# (mongo:src/mongo/db/s/sharding_config_server_parameters.idl; 4.4 had it in
# sharding_runtime_d_params.idl with the same bounds). A config server parameter: the
# balancer splits config.system.sessions until it has this many chunks, rounded up to a
# power of two (catalog/sessions.py).
SESSIONS_MIN_CHUNKS_DEFAULT = 1024
SESSIONS_MIN_CHUNKS_MAX = 1_000_000


class ConfigServerParameters(BaseModel):
    """The parameters the sandbox knows; any other name is refused, as mongod refuses an
    unknown `--setParameter` at startup."""

    model_config = ConfigDict(extra="forbid")

    minNumChunksForSessionsCollection: int = Field(
        default=SESSIONS_MIN_CHUNKS_DEFAULT, ge=1, le=SESSIONS_MIN_CHUNKS_MAX, strict=True
    )


class ConfigServerSpec(BaseModel):
    """`configServer: {setParameter: {minNumChunksForSessionsCollection: 8}}`."""

    model_config = ConfigDict(extra="forbid")

    setParameter: ConfigServerParameters = ConfigServerParameters()
