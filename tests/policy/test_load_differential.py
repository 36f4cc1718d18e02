"""Loading a policy the fast way (zonectl's composer from libyaml's events, no counting walk
for a document without aliases, each entry's positions found from its own nodes) says
exactly what the reference way says (ruamel's own composer, the counting walk, every
position looked up from the root): `zonectl validate`'s output and exit code, and the
loaded DesiredState with every position, over generated policies good and bad."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from zonectl.errors import InvalidPolicyError
from zonectl.policy import fragment, load_policy, source
from zonectl.policy.fast_compose import compose_fast

Run = Callable[..., tuple[int, str, str]]

ZONES = ("hot", "cold", "warm", "gone")  # warm: a removed shard's only; gone: on no shard
HEAD = "apiVersion: zonectl/v1\nkind: ZonePolicy\n"
SHARDS = (
    "shards:\n  s0: [hot, cold]\n  s1: {zones: [warm], state: removed}\n"
    "  s2: {zones: [hot], host: 'rs2/h:1'}\n"
)


def _bound(value: int | None) -> str:
    return "{$minKey: 1}" if value is None else str(value)


@st.composite
def _entry(draw: st.DrawFn) -> str:
    """One `collections:` entry: its key line and body, block or flow."""
    ns = draw(
        st.sampled_from(
            ["app.a", "app.b", "app.c", "logs.*", "m.e_%Y%m%d", "nodot", "admin.x", "app.a"]
        )
    )
    items: list[str] = []
    if draw(st.booleans()):
        items.append(f"key: {draw(st.sampled_from(['{x: 1}', '{x: -1}', '{x: hashed}', '{}']))}")
    if draw(st.booleans()):
        items.append(f"pin: {draw(st.sampled_from(ZONES))}")
    if draw(st.booleans()):
        ranges = []
        for _ in range(draw(st.integers(0, 3))):
            low = draw(st.none() | st.integers(0, 9))
            high = draw(st.integers(0, 9))
            zone = draw(st.sampled_from(ZONES))
            ranges.append(f"{{zone: {zone}, min: {{x: {_bound(low)}}}, max: {{x: {high}}}}}")
        items.append(f"ranges: [{', '.join(ranges)}]")
    if draw(st.booleans()):
        cold = draw(st.sampled_from(["", ", cold: cold", ", cold: hot"]))
        kind = draw(st.sampled_from(["date", "objectId"]))
        items.append(f"firehose: {{field: x, type: {kind}, schedule: '0 0 * * *', hot: hot{cold}}}")
    if draw(st.booleans()):
        items.append("slices: {schedule: '0 0 * * *', keep: 2, hot: hot}")
    extra = ["sampling: off", "sampling: {samplesPerSecond: 5}", "balancing: true", "bogus: 1"]
    extra += ["migrate: eager", "<<: {balancing: false, pin: cold}", "pin: hot"]  # duplicate
    items += draw(st.lists(st.sampled_from(extra), max_size=3))
    if draw(st.booleans()) and all(":" in i and "\n" not in i for i in items):
        return f"  {ns}: {{{', '.join(items)}}}\n"
    return f"  {ns}:\n" + "".join(f"    {item}\n" for item in items) if items else f"  {ns}: {{}}\n"


def _deep(depth: int = 70) -> str:
    """An `extra:` block mapping `depth` levels deep: past the 64 a policy may nest, not past
    the 100 zonectl's composer takes (so it composes, and the tree walk must refuse it)."""
    lines = [f"{'  ' * i}n{i}:" for i in range(1, depth)] + [f"{'  ' * depth}leaf: 1"]
    return "extra:\n" + "".join(f"{line}\n" for line in lines)


@st.composite
def _policy(draw: st.DrawFn) -> str:
    text = HEAD + (SHARDS if draw(st.booleans()) else "")
    if draw(st.booleans()):
        text += "balancer: {enabled: true, activeWindow: {start: '23:00', stop: '6:00'}}\n"
    text += "collections:\n" + "".join(draw(st.lists(_entry(), max_size=5)))
    if draw(st.integers(0, 9)) == 0:
        text += _deep(draw(st.sampled_from([63, 64, 70])))
    return text


def _outcome(workdir: Path, zonectl: Run, text: str) -> tuple[Any, ...]:
    (workdir / "p.yaml").write_text(text)
    try:
        loaded: Any = repr(load_policy(["p.yaml"]))  # dataclass reprs: positions too
    except InvalidPolicyError as exc:
        loaded = [repr(d) for d in exc.diagnostics]
    return zonectl("validate", "p.yaml", "--format", "json"), loaded


def _reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(source, "compose_counted", lambda _text: None)
    monkeypatch.setattr(fragment, "_entry_nodes", lambda _doc: {})


@given(text=_policy())
@example(text=HEAD + "collections:\n  app.a: {key: {x: 1}, pin: hot}\n")
@example(text=HEAD + SHARDS + "collections:\n  app.a:\n    pin: hot\n    pin: cold\n")
@example(text=HEAD + "collections:\n  app.a: {pin: hot}\n" + _deep())
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
def test_the_fast_way_says_what_the_reference_way_says(
    workdir: Path, zonectl: Run, text: str
) -> None:
    fast = _outcome(workdir, zonectl, text)
    with pytest.MonkeyPatch.context() as patch:
        _reference(patch)
        reference = _outcome(workdir, zonectl, text)
    assert fast == reference, text


def test_the_generated_policies_take_the_fast_path_and_fail_in_many_ways(tmp_path: Path) -> None:
    """The comparison means something: the fast composer takes these texts (the deep one
    too), and they give errors and warnings of many kinds."""
    deep = HEAD + "collections:\n  app.a: {pin: hot}\n" + _deep()
    assert compose_fast(deep) is not None
    codes: set[str] = set()
    duplicate = HEAD + SHARDS + "collections:\n  app.a:\n    pin: warm\n    pin: gone\n"
    for text in (deep, duplicate):
        assert compose_fast(text) is not None
        (tmp_path / "p.yaml").write_text(text)
        with pytest.raises(InvalidPolicyError) as caught:
            load_policy([tmp_path / "p.yaml"])
        codes |= {d.code for d in caught.value.diagnostics}
    assert {"ZP105", "ZP106", "ZP305"} <= codes
