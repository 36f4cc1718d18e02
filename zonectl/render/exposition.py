"""The Prometheus text exposition (node-exporter textfile, format 0.0.4) and OpenMetrics
1.0 of a list of metric families, and reading one sample back out of such a text. Pure."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from zonectl.render.inert import metrics_label

Labels = tuple[tuple[str, str], ...]


@dataclass(frozen=True)
class Sample:
    labels: Labels
    value: float


@dataclass(frozen=True)
class Family:
    """One metric family. Every family zonectl emits is a gauge (a count or an instant
    that can go down or be re-read), so sample names equal the family name."""

    name: str
    help: str
    samples: tuple[Sample, ...]
    type: str = "gauge"


def make_labels(**labels: str) -> Labels:
    return tuple(labels.items())


def render_openmetrics(families: Sequence[Family]) -> str:
    """OpenMetrics 1.0 text: `# HELP`, `# TYPE`, samples, and the final `# EOF`."""
    return _render(families) + "# EOF\n"


def render_textfile(families: Sequence[Family]) -> str:
    """The Prometheus text format node-exporter's textfile collector reads (no `# EOF`:
    format 0.0.4 has none)."""
    return _render(families)


def _render(families: Sequence[Family]) -> str:
    lines: list[str] = []
    for family in families:
        if not family.samples:
            continue
        lines.append(f"# HELP {family.name} {_escape_help(family.help)}")
        lines.append(f"# TYPE {family.name} {family.type}")
        for sample in sorted(family.samples, key=lambda s: s.labels):
            lines.append(f"{family.name}{_labels(sample.labels)} {_number(sample.value)}")
    return "".join(f"{line}\n" for line in lines)


def _labels(labels: Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{metrics_label(v)}"' for k, v in labels) + "}"


def _escape_help(text: str) -> str:
    return text.replace("\\", "\\\\").replace("\n", "\\n")


def _number(value: float) -> str:
    if math.isnan(value):
        return "NaN"
    if math.isinf(value):
        return "+Inf" if value > 0 else "-Inf"
    if float(value).is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(float(value))


_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)")
_LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def find_sample(text: str, name: str, labels: Mapping[str, str]) -> float | None:
    """The value of the sample `name{labels}` (exact label set) in an exposition text that
    zonectl wrote, or None. Used to carry a previous run's figures into the next file."""
    want = dict(labels)
    for line in text.splitlines():
        m = _SAMPLE.match(line)
        if m is None or m.group(1) != name:
            continue
        got = {k: _unescape(v) for k, v in _LABEL.findall(m.group(2) or "")}
        if got != want:
            continue
        try:
            return float(m.group(3))
        except ValueError:
            return None
    return None


def _unescape(value: str) -> str:
    return re.sub(r"\\(.)", lambda m: "\n" if m.group(1) == "n" else m.group(1), value)
