"""zonectl.policy.fast_compose (libyaml's events, from ruamel.yaml.clib, into ruamel's nodes)
composes exactly what ruamel composes, or leaves the text to ruamel: every YAML file of the
repository and every example policy, a large generated policy, and through the CLI the same
diagnostics (line and column) as ruamel's reading gives."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from zonectl.policy import fast_compose, source
from zonectl.policy.fast_compose import compose_fast

ROOT = Path(__file__).resolve().parents[2]
Run = Callable[..., tuple[int, str, str]]


def test_the_c_parser_is_there_on_cpython() -> None:
    """ruamel.yaml.clib is a declared dependency on CPython: the fast path must not quietly
    be missing (every other test here would then compare ruamel with itself)."""
    import platform

    if platform.python_implementation() == "CPython":
        assert fast_compose._LOADER is not None


def _shape(node: Node) -> tuple[Any, ...]:
    """Everything zonectl reads of a node: kind, tag, position, value, styles."""
    base = (type(node).__name__, str(node.tag), node.start_mark.line, node.start_mark.column)
    if isinstance(node, ScalarNode):
        return (*base, node.value, node.style)
    if isinstance(node, SequenceNode):
        return (*base, node.flow_style, tuple(_shape(n) for n in node.value))
    assert isinstance(node, MappingNode)
    pairs = tuple((_shape(k), _shape(v)) for k, v in node.value)
    return (*base, node.flow_style, pairs)


def _ruamel(text: str) -> list[tuple[Any, ...]]:
    return [_shape(n) for n in YAML(typ="rt").compose_all(text)]


def _many(n: int) -> str:
    text = "apiVersion: zonectl/v1\nkind: ZonePolicy\nshards:\n  s0: [hot]\n  s1: [cold]\n"
    text += "collections:\n"
    for i in range(n):
        text += f"  app.t{i:04d}:\n    key: {{x: 1}}\n    pin: {'hot' if i % 2 else 'cold'}\n"
    return text + '  app.r:\n    ranges:\n      - {zone: hot, min: {x: "a"}, max: {x: 5.5}}\n'


def test_every_yaml_file_of_the_repository_composes_as_ruamel_composes_it() -> None:
    files = sorted(p for s in ("*.yaml", "*.yml") for p in ROOT.rglob(s) if ".git" not in p.parts)
    taken = 0
    for path in files:
        text = path.read_text(encoding="utf-8-sig")
        fast = compose_fast(text)
        if fast is not None:
            taken += 1
            assert [_shape(n) for n in fast] == _ruamel(text), path
    assert taken >= len(files) // 2  # the fast path is the usual one, not the exception


def test_a_large_policy_takes_the_fast_path_and_composes_the_same() -> None:
    text = _many(500)
    fast = compose_fast(text)
    assert fast is not None
    assert [_shape(n) for n in fast] == _ruamel(text)


@pytest.mark.parametrize(
    "text",
    [
        "a: &x {b: 1}\nc: *x\n",  # anchors and aliases
        "a: !!str 1\n",  # an explicit tag
        "%YAML 1.1\n---\na: yes\n",  # a directive (YAML 1.1 booleans)
        "a: >\n  folded\n  text\n",  # ruamel keeps \a where it folds
        "a:\nb: 1\n",  # an empty value: ruamel places it at the next token
        "a:\t1\n",  # a tab
        "a: [1, 2\n",  # a syntax error: ruamel says where
        "[" * 150 + "]" * 150 + "\n",  # deeper than MAX_DEPTH
    ],
)
def test_what_it_does_not_take_is_left_to_ruamel(text: str) -> None:
    assert compose_fast(text) is None


def test_the_cli_says_the_same_with_and_without_it(
    workdir: Path, zonectl: Run, monkeypatch: pytest.MonkeyPatch
) -> None:
    policy = _many(300).replace("pin: hot", "pin: warm", 1)  # an unknown zone, line 12
    policy = policy.replace("app.t0200:\n    key: {x: 1}", "app.t0200:\n    key: {x: 2}")
    (workdir / "p.yaml").write_text(policy + "  app.t0007:\n    pin: cold\n")  # duplicate
    assert compose_fast((workdir / "p.yaml").read_text()) is not None
    fast = zonectl("validate", "p.yaml", "--format", "json")
    monkeypatch.setattr(source, "compose_counted", lambda _text: None)
    slow = zonectl("validate", "p.yaml", "--format", "json")
    assert fast == slow
    assert fast[0] == 3
    for code, line, col in (("ZP301", 12, 10), ("ZP210", 608, 14), ("ZP201", 909, 9)):
        assert f'"line": {line},\n      "col": {col},' in fast[1] and code in fast[1]
    assert '"line": 910' in fast[1] and "(first at line 28)" in fast[1]


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=False),
    st.text(st.characters(blacklist_categories=("Cs", "Cc")), max_size=12),
    st.sampled_from(["yes", "no", "on", "~", "null", "0x1F", "0o17", "1e3", "1_000", ".inf"]),
    st.sampled_from(["2026-11-27", "12:30", "a: b", "- x", "#c", "'q'", '"d"', "MinKey"]),
)
_DATA = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text(st.characters(categories=("L", "N")), min_size=1), inner, max_size=4
        )
    ),
    max_leaves=20,
)


@given(data=_DATA, flow=st.sampled_from([None, True, False]))
@settings(max_examples=150, deadline=None)
def test_generated_documents_compose_as_ruamel_composes_them(data: Any, flow: bool | None) -> None:
    """Any document ruamel writes (block, flow or mixed, every scalar style it picks), when
    the fast path takes it, composes to the same nodes ruamel's own reader gives."""
    yaml = YAML(typ="rt")
    yaml.default_flow_style = flow
    stream = io.StringIO()
    yaml.dump({"doc": data}, stream)
    text = stream.getvalue()
    fast = compose_fast(text)
    if fast is not None:
        assert [_shape(n) for n in fast] == _ruamel(text), text


_PLAIN = st.one_of(
    st.text(max_size=12),
    st.sampled_from(["", "~", "null", "Null", "true", "False", "yes", "0x1F", "0o17", "-.inf"]),
    st.sampled_from([".NaN", "1e3", "1_000", "+12", "2026-11-27", "2026-11-27T10:00:00Z"]),
    st.sampled_from(["<<", "=", "12:30:00", "0b101", "07", "-0", "3.", "!x", "&a", "*b"]),
)


@given(value=_PLAIN, implicit=st.tuples(st.booleans(), st.booleans()))
@settings(max_examples=300, deadline=None)
def test_a_scalar_s_tag_is_the_one_ruamel_resolves(value: str, implicit: tuple[bool, bool]) -> None:
    """The composer answers a scalar's tag from ruamel's implicit resolvers itself (not
    asking for the YAML version per scalar): the very tag ruamel's resolve gives."""
    resolver = YAML(typ="rt").resolver
    composer = fast_compose._Composer(None, resolver, "")
    for kind, text in ((ScalarNode, value), (MappingNode, None), (SequenceNode, None)):
        ours = composer._tag(kind, text, implicit)
        assert str(ours) == str(resolver.resolve(kind, text, implicit)), (kind, text)


def _both(text: str) -> tuple[Any, Any]:
    """What the C parser's own composer and the event composer make of a text: (roots'
    shapes, deepest level) each, or None."""
    resolver = YAML(typ="rt").resolver
    answers = []
    for compose in (fast_compose._compose_in_c, fast_compose._compose_events):
        composed = compose(text, resolver)
        answers.append(
            None if composed is None else ([_shape(n) for n in composed[0]], composed[1])
        )
    return answers[0], answers[1]


def test_a_large_policy_is_composed_by_the_c_composer_as_by_events() -> None:
    text = _many(500)
    in_c, events = _both(text)
    assert in_c is not None
    assert in_c == events
    assert in_c[0] == _ruamel(text)


@given(data=_DATA, flow=st.sampled_from([None, True, False]), nest=st.integers(0, 120))
@settings(max_examples=150, deadline=None)
def test_the_c_composer_gives_the_nodes_and_depth_events_give(
    data: Any, flow: bool | None, nest: int
) -> None:
    """The C parser's composer (texts without anchors, aliases, tags or directives) gives
    the same nodes and the same deepest level as the event composer, and takes the texts
    it takes: nested up to MAX_DEPTH and beyond (both then leave it to ruamel)."""
    for _ in range(nest):
        data = {"n": data} if nest % 2 else [data]
    yaml = YAML(typ="rt")
    yaml.default_flow_style = flow
    stream = io.StringIO()
    yaml.dump({"doc": data}, stream)
    text = stream.getvalue()
    if any(mark in text for mark in "&*!%"):
        return
    in_c, events = _both(text)
    assert in_c == events, text


@pytest.mark.parametrize(
    "text",
    [
        "a: >\n  folded\n  text\n",
        "a:\nb: 1\n",
        "a: [1, 2\n",
        "[" * 150 + "]" * 150 + "\n",
        "a: |\n  kept\n",
        "---\na: 1\n---\nb: [x, {c: ''}]\n",
    ],
)
def test_the_c_composer_takes_what_events_take(text: str) -> None:
    assert _both(text)[0] == _both(text)[1]
