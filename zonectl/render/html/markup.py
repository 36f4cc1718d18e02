"""The HTML page's building blocks: escaping of every name, the self-contained page shell
(inline CSS, no script, nothing fetched), tables as the pictures' text alternatives."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

from zonectl.render.inert import terminal

# Inline only: the page must open from a CI artifact or a mail attachment with the network
# off and JavaScript off, so no fonts, images or scripts are referenced.
CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:24px;color:#222;
max-width:1100px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:18px;margin:28px 0 6px;
border-bottom:1px solid #ccc}h3{font-size:15px;margin:18px 0 4px}
p.meta,p.note{color:#555;margin:2px 0}p.note{font-style:italic}
figure{margin:8px 0 4px}figcaption{color:#444;font-size:13px}
svg{display:block;max-width:100%;height:auto}svg text{font:11px system-ui,sans-serif;fill:#222}
table{border-collapse:collapse;margin:6px 0 10px;font-size:13px}
th,td{border:1px solid #ccc;padding:2px 8px;text-align:left}
td.n,th.n{text-align:right;font-variant-numeric:tabular-nums}
details{margin:4px 0 12px}summary{cursor:pointer;color:#333}
.legend span{display:inline-block;margin-right:14px;font-size:12px}
.legend i{display:inline-block;width:12px;height:12px;margin-right:4px;vertical-align:-2px;
border:1px solid #555}
.bad{color:#a33;font-weight:600}.ok{color:#276;font-weight:600}
code{font:12px ui-monospace,monospace;background:#f3f3f3;padding:0 3px}
pre{font:12px/1.4 ui-monospace,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
"""


def esc(text: object) -> str:
    """Text from the cluster or the policy (names, bounds) made inert in HTML and SVG:
    `<`, `>`, `&` and both quotes, so it is safe in text and in attribute values, and
    control characters shown as visible escapes (`\\x1b`, `\\n`, `\\u202e`): they are a
    parse error in HTML, and a terminal that shows the page would obey an ESC."""
    return html.escape(terminal(str(text)), quote=True)


def esc_lines(text: str) -> str:
    """`esc` for a text zonectl laid out in lines itself (a <pre> block), each line
    already made inert by its renderer: its own line breaks stay line breaks."""
    return html.escape(terminal(text, keep_newlines=True), quote=True)


def page(title: str, body: Iterable[str]) -> str:
    return "".join(
        [
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            '<meta name="viewport" content="width=device-width,initial-scale=1">',
            # No request leaves the page, whatever a name inside it says.
            '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
            "style-src 'unsafe-inline'; img-src data:\">",
            f"<title>{esc(title)}</title><style>{CSS}</style></head><body>\n",
            *body,
            "</body></html>\n",
        ]
    )


def table(
    headers: Sequence[str],
    rows: Iterable[Sequence[object]],
    *,
    numeric: Sequence[int] = (),
    caption: str = "",
    label: str = "",
) -> str:
    """A plain table; `numeric` columns are right-aligned. Cells are escaped."""
    cls = [' class="n"' if i in numeric else "" for i in range(len(headers))]
    out = [f'<table data-role="{esc(label)}">' if label else "<table>"]
    if caption:
        out.append(f"<caption>{esc(caption)}</caption>")
    out.append(
        "<tr>"
        + "".join(f"<th{c}>{esc(h)}</th>" for c, h in zip(cls, headers, strict=True))
        + "</tr>"
    )
    for row in rows:
        out.append(
            "<tr>"
            + "".join(f"<td{c}>{esc(v)}</td>" for c, v in zip(cls, row, strict=True))
            + "</tr>"
        )
    out.append("</table>\n")
    return "".join(out)


def alternative(summary: str, content: str) -> str:
    """A picture's text alternative: the same figures, folded under the picture (open in
    print and for screen readers alike: <details> content stays in the accessibility tree)."""
    return f"<details><summary>{esc(summary)}</summary>{content}</details>\n"


def legend(items: Iterable[tuple[str, str]]) -> str:
    """Swatches with their names: colour is never the only carrier of meaning."""
    spans = (f'<span><i style="background:{fill}"></i>{esc(name)}</span>' for name, fill in items)
    return '<p class="legend">' + "".join(spans) + "</p>\n"
