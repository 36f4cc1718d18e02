"""The catalog: every collection the sandbox serves, by full namespace (config.* and users')."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from zonectl.sandbox.catalog.store import Collection, MemoryCollection


class Catalog:
    """Every collection the sandbox knows, by full namespace."""

    def __init__(self) -> None:
        self._collections: dict[str, Collection] = {}
        # Called with each namespace `ensure` creates (implicit database creation).
        self.on_create: Callable[[str], None] | None = None

    def get(self, namespace: str) -> Collection | None:
        return self._collections.get(namespace)

    def ensure(self, namespace: str) -> Collection:
        """The collection, created empty on first write (MongoDB creates on insert)."""
        coll = self._collections.get(namespace)
        if coll is None:
            coll = MemoryCollection(namespace)
            self._collections[namespace] = coll
            if self.on_create is not None:
                self.on_create(namespace)
        return coll

    def mount(self, namespace: str, collection: Collection) -> None:
        """Serve a special collection (a view such as config.chunks) at `namespace`."""
        self._collections[namespace] = collection

    def drop(self, namespace: str) -> bool:
        return self._collections.pop(namespace, None) is not None

    def namespaces(self) -> Iterator[str]:
        return iter(sorted(self._collections))

    def databases(self) -> list[str]:
        return sorted({ns.split(".", 1)[0] for ns in self._collections})
