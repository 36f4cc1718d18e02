"""zonectl.render.inert.json_text escapes exactly the characters a terminal or viewer acts on
that json.dumps(ensure_ascii=False) leaves raw: DEL and C1, the line and paragraph
separators and the bidirectional controls; ASCII text (which it returns without a regex
pass) keeps everything but DEL."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zonectl.render.inert import json_text

BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
ACTIVE = {chr(c) for c in range(0x7F, 0xA0)} | {"\u2028", "\u2029"} | set(BIDI)


def expected(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" if c in ACTIVE else c for c in text)


ascii_text = st.text(st.characters(max_codepoint=0x7F), max_size=30)
any_text = st.text(
    st.one_of(
        st.characters(codec="utf-8"),
        st.sampled_from(sorted(ACTIVE)),
        st.sampled_from(["\x7f", "a", '"', "\\", "é", "\xa0", "\u2027", "\u202f"]),
    ),
    max_size=30,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(ascii_text, any_text))
def test_json_text_escapes_the_active_characters_only(text: str) -> None:
    assert json_text(text) == expected(text)


def test_ascii_with_del() -> None:
    assert json_text('{"a\x7fb": 1}') == '{"a\\u007fb": 1}'
    assert json_text('{"ab": 1}') == '{"ab": 1}'
