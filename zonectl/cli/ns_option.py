"""`--namespace/-n` of plan, apply, status, rotate and analyze: each name checked and each
pattern expanded, so that a typo is a usage error (exit 2) naming it, never an empty
selection that reports "no changes" or "compliant". The option's help is here; the
selection itself is zonectl.session.namespaces (re-exported for the commands)."""

from __future__ import annotations

from zonectl.session.namespaces import check_syntax as check_syntax
from zonectl.session.namespaces import keep_only as keep_only
from zonectl.session.namespaces import select_namespaces as select_namespaces

# Appended to each command's --namespace help: what "unknown" means (one rule for all).
UNKNOWN_HELP = (
    " A name that neither the policy names (its patterns expanded) nor the cluster has "
    "(a collection, view or zone ranges of that name) is refused with exit 2. A pattern "
    "('app.*', fnmatch in each part) selects among the namespaces {scope} (else the cluster's); "
    "one that selects none is refused too."
)
