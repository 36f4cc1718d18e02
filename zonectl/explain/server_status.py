"""What `balancerCollectionStatus` answers for a collection, derived from its explanation
instead of asked once per collection. The server's `Balancer::getBalancerStatusForNs`
(balancer.cpp) reports a running defragmentation first, else the first migration
`BalancerPolicy::balance` would choose (draining, zoneViolation, chunksImbalance: the
pending reasons of zonectl/explain/findings.py, first one first; tests/explain/
test_differential.py checks them against the sandbox), and from 6.0 the chunk size in MB
(reference balancer-settings.md §5.3: a long through 7.0, a double rounded up to 1/100 MB
in 8.x). Pure."""

from __future__ import annotations

import math
from typing import Any

from zonectl.explain.facts import CollectionFacts
from zonectl.explain.reasons import Explanation

MB = 1024 * 1024
# explain's code -> the server's firstComplianceViolation
VIOLATIONS = {
    "draining": "draining",
    "zone-violation": "zoneViolation",
    "chunks-imbalance": "chunksImbalance",
}
DEFRAGMENTING = "defragmentingChunks"


def derived_status(
    explained: Explanation, facts: CollectionFacts, release: tuple[int, ...]
) -> dict[str, Any]:
    """The reply's fields (no `details`: a defragmentation's progress is the server's own,
    status asks it of those collections alone). `release`: the server's (major, minor)."""
    reply: dict[str, Any] = {}
    if release >= (6, 0):  # configureCollectionBalancing's chunkSize (5.3/6.0+)
        nbytes = facts.max_chunk_bytes
        reply["chunkSize"] = (
            math.ceil(nbytes / MB * 100) / 100 if release >= (8, 0) else (nbytes // MB)
        )
    if release >= (6, 0) and facts.defragmenting:
        reply["balancerCompliant"] = False
        reply["firstComplianceViolation"] = DEFRAGMENTING
        return reply
    violation = next((VIOLATIONS[r.code] for r in explained.reasons if r.code in VIOLATIONS), None)
    reply["balancerCompliant"] = violation is None
    if violation is not None:
        reply["firstComplianceViolation"] = violation
    return reply
