"""The cluster file's `documents:` and `views:` entries into doc_keys (called by seed/build.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from zonectl.sandbox.catalog.doc_keys import DocKeys, Inserts, set_doc_keys, set_kind
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


def record_view(sandbox: Sandbox, namespace: str, timeseries: bool) -> None:
    """A view (or time-series collection) appears in listCollections with its type; a
    time-series collection keeps its data in `system.buckets.<name>`."""
    sandbox.catalog.ensure(namespace)
    set_kind(sandbox.catalog, namespace, "timeseries" if timeseries else "view")
    if timeseries:
        db, _, coll = namespace.partition(".")
        sandbox.catalog.ensure(f"{db}.system.buckets.{coll}")
