"""OpFailedError: the server refused an op; OutcomeUnknownError: the connection dropped
while one was in flight; MoveNotDoneError: zonectl found that one move did not happen. The
executor (`zonectl.mongo`) and apply raise them and apply catches them to react (MongoDB's
code; a move whose outcome must be looked up), so they live below both."""

from __future__ import annotations

from zonectl.errors import ClusterError, redact
from zonectl.plan.ops import Op


class OpFailedError(ClusterError):
    """The server refused an op; `code`/`code_name` let callers react (ChunkTooBig, ...)."""

    def __init__(self, op: Op, code: int | None, code_name: str, errmsg: str) -> None:
        where = f" of {op.namespace}" if op.namespace else ""
        name = next(iter(op.command()))
        shown = f"{code_name} ({code})" if code is not None else "error"
        super().__init__(f"{name}{where} failed ({op.describe()}): {shown}: {redact(errmsg)}")
        self.op = op
        self.code = code
        self.code_name = code_name
        self.errmsg = errmsg


class OutcomeUnknownError(ClusterError):
    """The connection dropped while an op was in flight: it may or may not have applied."""


class MoveNotDoneError(ClusterError):
    """One move did not happen, as zonectl found (a moveCollection that verification does
    not see, one another move still runs on): in a queue it fails alone, as a refusal does."""
