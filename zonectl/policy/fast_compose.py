"""The policy's YAML composed by libyaml (ruamel.yaml.clib, ruamel's own C parser, a declared
dependency on CPython) into the nodes ruamel composes, tags resolved by ruamel's YAML 1.2
resolver: a 10,000-collection policy in a tenth of the time. A text without anchors, aliases,
tags or directives is composed by the C parser's own composer, any other from its events.
Anything beyond plain documents (a directive, an anchor or alias, an explicit tag, a folded
scalar, an empty value, a tab, deep nesting) or any error returns None: ruamel's Python
reader reads it (and says what is wrong). Without the C parser (another Python than
CPython) every text goes there."""

from __future__ import annotations

import importlib
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.events import (
    AliasEvent,
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.tag import Tag

# Deeper than this is left to ruamel, whose own limits (RecursionError) decide the message.
MAX_DEPTH = 100


def _c_loader() -> Any:
    try:
        return importlib.import_module("_ruamel_yaml").CParser
    except ImportError:
        return None


_LOADER = _c_loader()


class _Unsupported(Exception):
    """The text uses something this composer leaves to ruamel."""


def compose_fast(text: str) -> list[Node] | None:
    """The root node of each document, as `YAML(typ="rt").compose_all` gives them (tags,
    values, node kinds, flow styles, positions), or None: let ruamel read it."""
    composed = compose_counted(text)
    return None if composed is None else composed[0]


def compose_counted(text: str) -> tuple[list[Node], int] | None:
    """`compose_fast`'s roots, and the deepest level of a node under them (a root is at
    0). No node is shared: a text with an alias is left to ruamel."""
    if _LOADER is None or "\t" in text:  # ruamel refuses tabs where libyaml takes them
        return None
    resolver = YAML(typ="rt").resolver
    if not any(mark in text for mark in _EVENTS_ONLY):
        composed = _compose_in_c(text, resolver)
        if composed is not None:
            return composed
    return _compose_events(text, resolver)


def _compose_events(text: str, resolver: Any) -> tuple[list[Node], int] | None:
    """compose_counted's answer from libyaml's events, or None: let ruamel read it."""
    parser = _LOADER(text)
    try:
        composer = _Composer(parser, resolver, text)
        return composer.documents(), composer.deepest
    except Exception:  # libyaml's errors and ours alike: ruamel reads it and decides
        return None
    finally:
        parser.dispose()


# An anchor, an alias, a tag or a directive needs at least one of these: a text without
# any is composed by the C parser's own composer (no Python event objects), its nodes then
# checked by _finish; any other text by _Composer, from the events.
_EVENTS_ONLY = ("&", "*", "!", "%")


def _node_parser() -> Any:
    """The C parser, composing nodes itself, with tags answered as _Composer answers them
    (ruamel's rt resolver has no path resolvers: descending and ascending do nothing)."""
    if _LOADER is None:
        return None

    class NodeParser(_LOADER):  # type: ignore[misc,valid-type]
        composer: _Composer

        def resolve(self, kind: type[Node], value: str | None, implicit: Any) -> Any:
            return self.composer._tag(kind, value, implicit)

        def descend_resolver(self, parent: Any, index: Any) -> None:
            pass

        def ascend_resolver(self) -> None:
            pass

    return NodeParser


_NODE_PARSER = _node_parser()


def _compose_in_c(text: str, resolver: Any) -> tuple[list[Node], int] | None:
    """compose_counted's answer from the C parser's composer, or None: let _Composer (then
    ruamel) read it."""
    parser = _NODE_PARSER(text)
    parser.composer = _Composer(None, resolver, text)
    try:
        roots: list[Node] = []
        while parser.check_node():
            roots.append(parser.get_node())
        return roots, max((_finish(root, 0) for root in roots), default=0)
    except Exception:  # libyaml's errors and _finish's alike
        return None
    finally:
        parser.dispose()


def _finish(node: Node, depth: int) -> int:
    """What _Composer._node checks per node, on a composed node at `depth`: not too deep,
    no folded or empty plain scalar; a plain scalar's style is None, as ruamel gives it
    (the C composer says ''). Returns the deepest level of a node under it, as _Composer
    counts it."""
    if depth > MAX_DEPTH:
        raise _Unsupported("depth")
    if isinstance(node, ScalarNode):
        style = node.style
        if not style:
            if not node.value:
                raise _Unsupported("empty scalar")
            node.style = None
        elif style == ">":
            raise _Unsupported("folded scalar")
        return 0
    depth += 1
    deepest = depth
    if isinstance(node, MappingNode):
        for key, value in node.value:
            deepest = max(deepest, _finish(key, depth), _finish(value, depth))
    else:
        for item in node.value:
            deepest = max(deepest, _finish(item, depth))
    return deepest


class _Composer:
    def __init__(self, parser: Any, resolver: Any, text: str) -> None:
        self.parser, self.resolver, self.text = parser, resolver, text
        # ruamel's resolve is a function of (kind, value, implicit) for a resolver without
        # path resolvers (rt has none), and policies repeat their keys and zones: each
        # distinct question is asked once (half the composing time at 10,000 entries).
        self._tags: dict[tuple[type[Node], str | None, Any], Any] = {}
        # A new question (every namespace is one) is answered as ruamel's resolve answers
        # it, from the implicit resolvers of the value's first character, without asking
        # ruamel for the YAML version per scalar: it is fixed for the text (compose_fast
        # takes no %YAML directive). With path resolvers, ruamel itself answers.
        paths = getattr(resolver, "yaml_path_resolvers", True)
        self._implicit: Any = None if paths else getattr(resolver, "versioned_resolver", None)
        self._named: dict[str, Any] = {}
        self.deepest = 0  # the deepest level a collection's items may be at

    def _tag(self, kind: type[Node], value: str | None, implicit: Any) -> Any:
        key = (kind, value, implicit)
        tag = self._tags.get(key)
        if tag is None:
            tag = self._tags[key] = self._resolve(kind, value, implicit)
        return tag

    def _resolve(self, kind: type[Node], value: str | None, implicit: Any) -> Any:
        """ruamel's VersionedResolver.resolve, for a resolver without path resolvers."""
        table = self._implicit
        if table is None or kind is not ScalarNode or value is None:
            return self.resolver.resolve(kind, value, implicit)
        if implicit[0]:
            for name, regexp in (*table.get(value[:1], ()), *table.get(None, ())):
                if regexp.match(value):
                    tag = self._named.get(name)
                    if tag is None:
                        tag = self._named[name] = Tag(suffix=name)
                    return tag
        return self.resolver.DEFAULT_SCALAR_TAG

    def documents(self) -> list[Node]:
        roots: list[Node] = []
        event = self.parser.get_event()  # StreamStartEvent
        while True:
            event = self.parser.get_event()
            kind = type(event)
            if kind is StreamEndEvent:
                return roots
            if kind is not DocumentStartEvent or event.version or event.tags:
                raise _Unsupported("directive")
            roots.append(self._node(self.parser.get_event(), 0))
            if type(self.parser.get_event()) is not DocumentEndEvent:
                raise _Unsupported("document end")

    def _node(self, event: Any, depth: int) -> Node:
        # Positions are libyaml's marks as the C parser gives them (line, column, index):
        # zonectl reads only line and column of a node, the same numbers ruamel's
        # StringMark carries, so none is copied (160,000 marks at 10,000 entries).
        kind = type(event)
        if depth > MAX_DEPTH or kind is AliasEvent or event.anchor is not None:
            raise _Unsupported(kind.__name__)
        if event.tag is not None and event.tag != "!":
            raise _Unsupported("tag")
        if kind is ScalarEvent:
            value, style = event.value, event.style
            if style == ">":  # ruamel's rt scanner marks each fold with \a in the value
                raise _Unsupported("folded scalar")
            if not value and not style:  # an empty value: its position is
                raise _Unsupported("empty scalar")  # where ruamel's next token starts
            key = (ScalarNode, value, event.implicit)
            tag = self._tags.get(key)
            if tag is None:
                tag = self._tag(ScalarNode, value, event.implicit)
            return ScalarNode(tag, value, event.start_mark, event.end_mark, style=style or None)
        get_event, node = self.parser.get_event, self._node
        depth += 1
        if depth > self.deepest:
            self.deepest = depth
        if kind is SequenceStartEvent:
            tag = self._tag(SequenceNode, None, event.implicit)
            items: list[Node] = []
            seq = SequenceNode(tag, items, event.start_mark, None, flow_style=event.flow_style)
            while type(item := get_event()) is not SequenceEndEvent:
                items.append(node(item, depth))
            seq.end_mark = item.end_mark
            return seq
        if kind is MappingStartEvent:
            tag = self._tag(MappingNode, None, event.implicit)
            pairs: list[tuple[Node, Node]] = []
            mapping = MappingNode(tag, pairs, event.start_mark, None, flow_style=event.flow_style)
            while type(key_event := get_event()) is not MappingEndEvent:
                pairs.append((node(key_event, depth), node(get_event(), depth)))
            mapping.end_mark = key_event.end_mark
            return mapping
        raise _Unsupported(kind.__name__)
