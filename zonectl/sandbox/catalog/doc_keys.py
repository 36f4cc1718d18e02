"""What the sandbox knows about the documents behind each collection's chunks: how many
distinct shard-key values they hold, how skewed they are, whether inserts arrive in key
order (cluster file, seed/doc_keys.py). Which namespaces are views or time-series
collections is in each collection's catalog `meta` (catalog/unsharded.py).

Chunks carry only counts and sizes (chunks.py); `analyzeShardKey` needs these few figures
too. Kept beside the catalog in a weak map, like the secondary indexes in commands/indexes.py,
so a dropped sandbox takes them with it. Persisted state does not carry them: a restarted
sandbox answers from the defaults below.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from zonectl.sandbox.catalog.namespaces import Catalog

Inserts = Literal["ascending", "descending", "random"]


@dataclass(frozen=True)
class DocKeys:
    """Per collection. None means "derive it": one value per document, the most common
    value no more frequent than the average, insert order from the key generator."""

    distinct: int | None = None  # distinct values of the whole shard key
    top_frequency: int | None = None  # documents sharing the most common value
    inserts: Inserts | None = None  # insert order against the key's order
    # distinct values of leading key fields, e.g. {"country": 9} or {"a,b": 40}
    prefix_distinct: dict[str, int] = field(default_factory=dict)


_KEYS: weakref.WeakKeyDictionary[Catalog, dict[str, DocKeys]] = weakref.WeakKeyDictionary()


def set_doc_keys(catalog: Catalog, namespace: str, keys: DocKeys) -> None:
    _KEYS.setdefault(catalog, {})[namespace] = keys


def doc_keys(catalog: Catalog, namespace: str) -> DocKeys:
    return _KEYS.get(catalog, {}).get(namespace, DocKeys())
