"""Read a page the way a browser's parser does (html.parser): every element with its
attributes and text, so tests ask for `rect.outside` instead of matching strings."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"meta", "br", "img", "input", "link", "hr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    text: str = ""
    parent: Element | None = None
    children: list[Element] = field(default_factory=list)

    def classes(self) -> set[str]:
        return set(self.attrs.get("class", "").split())

    def all_text(self) -> str:
        return self.text + "".join(c.all_text() for c in self.children)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]
        self.elements: list[Element] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(el)
        self.elements.append(el)
        if tag not in VOID:
            self.stack.append(el)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        el = Element(tag, {k: v or "" for k, v in attrs}, parent=self.stack[-1])
        self.stack[-1].children.append(el)
        self.elements.append(el)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].text += data


class Page:
    def __init__(self, text: str) -> None:
        reader = _Reader()
        reader.feed(text)
        reader.close()
        self.elements = reader.elements
        self.unclosed = [e.tag for e in reader.stack[1:]]

    def find(self, tag: str, cls: str | None = None, **attrs: str) -> list[Element]:
        return [
            e
            for e in self.elements
            if e.tag == tag
            and (cls is None or cls in e.classes())
            and all(e.attrs.get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]

    def inside(self, outer: Element, tag: str, cls: str | None = None) -> list[Element]:
        out = []
        for e in self.elements:
            p = e.parent
            while p is not None and p is not outer:
                p = p.parent
            if p is outer and e.tag == tag and (cls is None or cls in e.classes()):
                out.append(e)
        return out

    def table(self, role: str, nth: int | None = None) -> list[list[str]]:
        """The data rows of the table labelled `role` (the only one, or the nth)."""
        found = self.find("table", data_role=role)
        assert nth is not None or len(found) == 1, f"{len(found)} tables {role!r}"
        t = found[nth or 0]
        return [[c.all_text() for c in self.inside(r, "td")] for r in self.inside(t, "tr")][1:]
