"""The cluster file's `documents:` entries into doc_keys (called by seed/build.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zonectl.sandbox.catalog.doc_keys import DocKeys, Inserts, set_doc_keys
from zonectl.sandbox.seed.schema import CollectionSpec

if TYPE_CHECKING:
    from zonectl.sandbox.state import Sandbox


def record_documents(sandbox: Sandbox, spec: CollectionSpec) -> None:
    """Store the collection's document-key figures. Inserts default from the key
    generator: dates and ObjectIds are written in time order (ascending), other
    generated keys arrive in no particular order."""
    docs = spec.documents
    first = next(iter(spec.key))
    generator = spec.keys.type if spec.keys is not None else None
    default: Inserts
    if spec.key[first] == "hashed":
        default = "random"
    elif generator in ("date", "objectId"):
        default = "ascending"
    else:
        default = "random"
    if docs is None:
        set_doc_keys(sandbox.catalog, spec.ns, DocKeys(inserts=default))
        return
    set_doc_keys(
        sandbox.catalog,
        spec.ns,
        DocKeys(
            distinct=docs.distinct,
            top_frequency=docs.topFrequency,
            inserts=docs.inserts or default,
            prefix_distinct=dict(docs.prefixDistinct),
        ),
    )
