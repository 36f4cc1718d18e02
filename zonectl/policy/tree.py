"""Turn one composed YAML node graph into plain Python values, and find any path's position.

Tags are resolved here rather than by ruamel's constructor so that nothing is guessed: a
date-like scalar stays a string (bounds use Extended JSON `$date`), and aliases and merge
keys are sized before they are expanded, which keeps alias bombs bounded in time and memory.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from zonectl.diagnostics import Diagnostic, Position, Severity

_CORE = "tag:yaml.org,2002:"
_MERGE = _CORE + "merge"
_SCALAR_TAGS = {_CORE + t for t in ("str", "null", "bool", "int", "float", "timestamp")}
_MAPPING_TAGS = (_CORE + "map", _CORE + "omap")
_SEQUENCE_TAG = _CORE + "seq"

Path = Sequence[str | int]


@dataclass(frozen=True)
class Limits:
    """Bounds on what one policy file may cost to read."""

    max_bytes: int = 16 * 1024 * 1024
    max_depth: int = 64
    # Nodes that aliases and merge keys may add on top of the nodes written in the file.
    max_alias_expansion: int = 100_000


class TreeError(Exception):
    """The document cannot be turned into values at all (bomb, recursion, depth)."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        super().__init__(diagnostic.message)
        self.diagnostic = diagnostic


class Document:
    """One YAML document of one file: its root node, with memoized mapping lookups."""

    def __init__(self, file: str, root: Node, *, depth: int | None = None) -> None:
        self.file = file
        self.root = root
        # No node of it is shared (no alias) and none is deeper than this (the root is at
        # 0), as its composer saw them; None: not known.
        self.depth = depth
        self.diagnostics: list[Diagnostic] = []
        self._pairs: dict[int, dict[str, tuple[Node, Node]]] = {}
        self._merging: set[int] = set()
        self._tags: dict[int, tuple[Any, str | None]] = {}

    def tag_of(self, node: Node) -> str | None:
        """`node.tag`, its tag object's text, worked out once per tag object: ruamel's
        property formats it on every read, and composed nodes share a few tag objects."""
        ctag = node.ctag
        known = self._tags.get(id(ctag))
        if known is not None:
            return known[1]
        text = node.tag
        self._tags[id(ctag)] = (ctag, text)  # kept alive here, so no other object has its id
        return text

    def position_of(self, node: Node) -> Position:
        mark = node.start_mark
        return Position(self.file, mark.line + 1, mark.column + 1)

    def node_at(self, path: Path, *, key: bool = False, start: Node | None = None) -> Node:
        """The deepest node along `path` (the key node of the last step when `key`), from
        the root or from `start`, a node the path leads through."""
        node = self.root if start is None else start
        for i, step in enumerate(path):
            if isinstance(node, MappingNode) and isinstance(step, str):
                pair = self.pairs(node).get(step)
                if pair is None:
                    break
                node = pair[0] if key and i == len(path) - 1 else pair[1]
            elif isinstance(node, SequenceNode) and isinstance(step, int):
                if not 0 <= step < len(node.value):
                    break
                node = node.value[step]
            else:
                break
        return node

    def position(self, path: Path, *, key: bool = False) -> Position:
        return self.position_of(self.node_at(path, key=key))

    def pairs(self, node: MappingNode) -> dict[str, tuple[Node, Node]]:
        """Key text -> (key node, value node), merge keys applied; explicit keys win."""
        cached = self._pairs.get(id(node))
        if cached is not None:
            return cached
        if id(node) in self._merging:
            self._error("ZP104", node, "recursive alias in a merge key")
            return {}
        self._merging.add(id(node))
        pairs: dict[str, tuple[Node, Node]] = {}
        merges: list[Node] = []
        for key_node, value_node in node.value:
            if self.tag_of(key_node) == _MERGE:
                merges.append(value_node)
                continue
            if not isinstance(key_node, ScalarNode):
                self._error("ZP107", key_node, "mapping keys must be plain strings")
                continue
            name = str(key_node.value)
            if name in pairs:
                first = self.position_of(pairs[name][0])
                self._error(
                    "ZP106", key_node, f'duplicate key "{name}" (first at line {first.line})'
                )
                continue
            pairs[name] = (key_node, value_node)
        for source in merges:
            for merged in self._merge_sources(source):
                for name, pair in self.pairs(merged).items():
                    pairs.setdefault(name, pair)
        self._merging.discard(id(node))
        self._pairs[id(node)] = pairs
        return pairs

    def _merge_sources(self, node: Node) -> list[MappingNode]:
        if isinstance(node, MappingNode):
            return [node]
        if isinstance(node, SequenceNode) and all(isinstance(n, MappingNode) for n in node.value):
            return list(node.value)
        self._error("ZP107", node, "a merge key (<<) takes a mapping or a list of mappings")
        return []

    def _error(self, code: str, node: Node, message: str) -> None:
        self.diagnostics.append(Diagnostic(code, Severity.ERROR, self.position_of(node), message))


def build_values(doc: Document, limits: Limits) -> Any:
    """Plain values of the document, after checking its expanded size and depth."""
    if doc.depth is not None and doc.depth <= limits.max_depth:
        # Every node written once, none too deep: it expands to itself, so there is
        # nothing to count first (merge keys only pick among written nodes).
        return _build(doc, doc.root)
    distinct: set[int] = set()
    sizes: dict[int, int] = {}
    total = _logical_size(doc, doc.root, sizes, set(), distinct, 0, limits)
    if total - len(distinct) > limits.max_alias_expansion:
        raise TreeError(
            Diagnostic(
                "ZP104",
                Severity.ERROR,
                doc.position_of(doc.root),
                f"aliases and merge keys expand this document to {total:,} nodes from "
                f"{len(distinct):,} written; the limit is {limits.max_alias_expansion:,} more",
                hint="write the repeated parts out, or use fewer nested aliases",
            )
        )
    return _build(doc, doc.root)


def _logical_size(
    doc: Document,
    node: Node,
    sizes: dict[int, int],
    active: set[int],
    distinct: set[int],
    depth: int,
    limits: Limits,
) -> int:
    """Node count once aliases are expanded, memoized per node so a bomb costs its text."""
    ident = id(node)
    distinct.add(ident)
    if ident in sizes:
        return sizes[ident]
    if depth > limits.max_depth:
        raise TreeError(
            Diagnostic(
                "ZP105",
                Severity.ERROR,
                doc.position_of(node),
                f"nesting is deeper than {limits.max_depth} levels",
            )
        )
    if ident in active:
        raise TreeError(
            Diagnostic("ZP104", Severity.ERROR, doc.position_of(node), "recursive alias")
        )
    active.add(ident)
    size = 1
    if isinstance(node, MappingNode):
        for _key, value in doc.pairs(node).values():
            size += _logical_size(doc, value, sizes, active, distinct, depth + 1, limits)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            size += _logical_size(doc, item, sizes, active, distinct, depth + 1, limits)
    active.discard(ident)
    sizes[ident] = size
    return size


def _build(doc: Document, node: Node) -> Any:
    if isinstance(node, MappingNode):
        if doc.tag_of(node) not in _MAPPING_TAGS:
            doc._error("ZP107", node, f"unsupported YAML tag {_short(node.tag)}")
        return {name: _build(doc, value) for name, (_key, value) in doc.pairs(node).items()}
    if isinstance(node, SequenceNode):
        if doc.tag_of(node) != _SEQUENCE_TAG:
            doc._error("ZP107", node, f"unsupported YAML tag {_short(node.tag)}")
        return [_build(doc, item) for item in node.value]
    return _scalar(doc, node)


def _scalar(doc: Document, node: Node) -> Any:
    tag, text = doc.tag_of(node), str(node.value)
    if tag not in _SCALAR_TAGS:
        doc._error(
            "ZP107",
            node,
            f"unsupported YAML tag {_short(tag)}; write BSON values as Extended JSON, e.g. "
            '{$binary: {base64: "...", subType: "00"}}',
        )
        return text
    kind = tag[len(_CORE) :]
    try:
        if kind == "null":
            return None
        if kind == "bool":
            # YAML 1.1 (a %YAML 1.1 directive) also resolves yes/on/y as true.
            return text.lower() in ("true", "yes", "on", "y")
        if kind == "int":
            return _to_int(text)
        if kind == "float":
            return _to_float(text)
    except ValueError:
        doc._error("ZP101", node, f"cannot read {kind} {text!r}")
    # str, and timestamp: YAML dates stay the text the operator wrote (no guessing).
    return text


def _short(tag: str | None) -> str:
    text = str(tag)
    return "!!" + text[len(_CORE) :] if text.startswith(_CORE) else text


def _to_int(text: str) -> int:
    digits = text.replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    for prefix, base in (("0x", 16), ("0o", 8), ("0b", 2)):
        if digits.lower().startswith(prefix):
            return sign * int(digits[2:], base)
    return sign * int(digits, 10)


def _to_float(text: str) -> float:
    lowered = text.replace("_", "").lower()
    if lowered.lstrip("+-") in (".inf", "inf"):
        return -math.inf if lowered.startswith("-") else math.inf
    if lowered in (".nan", "nan"):
        return math.nan
    return float(lowered)
