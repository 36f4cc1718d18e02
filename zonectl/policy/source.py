"""Find policy files and read each into YAML documents, turning every reading failure
(size, encoding, syntax, nesting) into a diagnostic instead of an exception."""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.reader import ReaderError

from zonectl.diagnostics import Diagnostic, Position, Severity
from zonectl.policy.fast_compose import compose_counted
from zonectl.policy.tree import Document, Limits

SUFFIXES = (".yaml", ".yml")
# Quoted scalars and comments (skipped: brackets inside them do not nest), and brackets.
_QUOTED_OR_COMMENT = re.compile(r""""[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\n]*(?:''[^'\n]*)*'|#[^\n]*""")
_FLOW_TOKENS = re.compile(_QUOTED_OR_COMMENT.pattern + r"|[\[\]{}]")
_AS_PARENS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(set(range(256)) - set(b"[]{}"))


def find_policy_files(paths: Sequence[str | Path]) -> tuple[list[str], list[Diagnostic]]:
    """Files named directly, plus `*.yaml`/`*.yml` under directories (recursive, sorted)."""
    found: list[str] = []
    seen: set[Path] = set()
    diagnostics: list[Diagnostic] = []
    if not paths:
        diagnostics.append(_error("ZP120", Position("<arguments>"), "no policy paths given"))
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            inside = sorted(p for p in path.rglob("*") if p.suffix in SUFFIXES and p.is_file())
            if not inside:
                diagnostics.append(_error("ZP120", Position(str(raw)), "no *.yaml or *.yml files"))
            candidates = inside
        elif path.is_file():
            candidates = [path]
        else:
            what = "not a regular file" if path.exists() else "no such file or directory"
            diagnostics.append(_error("ZP100", Position(str(raw)), what))
            continue
        for candidate in candidates:
            resolved = candidate.resolve()
            if resolved not in seen:
                seen.add(resolved)
                found.append(str(candidate))
    return found, diagnostics


def read_documents(file: str, limits: Limits) -> tuple[list[Document], list[Diagnostic]]:
    """The YAML documents of one file, composed as ruamel composes them (positions kept on
    every node; from libyaml's events where zonectl.policy.fast_compose takes the text)."""
    try:
        size = Path(file).stat().st_size
        with open(file, "rb") as stream:
            # Never more than the limit in memory, even if the file grows after stat.
            data = stream.read(limits.max_bytes + 1) if size <= limits.max_bytes else b""
    except OSError as exc:
        return [], [_error("ZP100", Position(file), f"cannot read: {exc.strerror or exc}")]
    if size > limits.max_bytes or len(data) > limits.max_bytes:
        size = max(size, len(data))
        message = (
            f"file is {size:,} bytes, over the {limits.max_bytes:,}-byte limit for a policy file"
        )
        return [], [_error("ZP103", Position(file), message, "split it into several files")]
    text, problem = _decode(file, data)
    if problem is not None:
        return [], [problem]
    return compose_documents(file, text, limits.max_depth)


def compose_documents(
    file: str, text: str, max_depth: int = Limits.max_depth
) -> tuple[list[Document], list[Diagnostic]]:
    too_deep = _flow_too_deep(text, max_depth)
    if too_deep is not None:
        where = _offset_position(file, text, too_deep)
        return [], [_error("ZP105", where, f"nesting is deeper than {max_depth} levels")]
    composed = compose_counted(text)
    try:
        roots = composed[0] if composed else list(YAML(typ="rt").compose_all(text))
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = Position(file, mark.line + 1, mark.column + 1) if mark else Position(file)
        problem = " ".join(p for p in (exc.context, exc.problem) if p) or "invalid YAML"
        return [], [_error("ZP101", where, f"YAML syntax error: {problem}")]
    except ReaderError as exc:
        where = _offset_position(file, text, exc.position)
        char = chr(exc.character) if isinstance(exc.character, int) else str(exc.character)
        return [], [_error("ZP102", where, f"character {char!r} is not allowed in YAML")]
    except RecursionError:
        return [], [_error("ZP105", Position(file, 1, 1), "nesting is too deep to read")]
    except YAMLError as exc:
        return [], [_error("ZP101", Position(file, 1, 1), f"YAML error: {exc}")]
    except Exception as exc:  # ruamel can fail outside YAMLError on pathological input
        message = f"YAML could not be read: {type(exc).__name__}: {exc}"
        return [], [_error("ZP101", Position(file, 1, 1), message)]
    depth = composed[1] if composed else None  # known only from zonectl's composer
    documents = [Document(file, root, depth=depth) for root in roots if root is not None]
    if not documents:
        return [], [_error("ZP108", Position(file, 1, 1), "empty file: no YAML document")]
    return documents, []


def _flow_too_deep(text: str, max_depth: int) -> int | None:
    """Offset where [ and { nest deeper than allowed: ruamel's scanner is quadratic in flow
    depth, so a wall of brackets must not reach it. C-speed string passes decide; the
    token walk that finds the offset runs only on a file already known to be too deep."""
    if text.count("[") + text.count("{") <= max_depth:
        return None
    stripped = _QUOTED_OR_COMMENT.sub("", text).encode()
    brackets = stripped.translate(_AS_PARENS, _NOT_BRACKETS)
    for _ in range(max_depth):  # each round removes the innermost pairs: one level
        shorter = brackets.replace(b"()", b"")
        if shorter == brackets:
            break
        brackets = shorter
    if b"()" not in brackets and brackets.count(b"(") <= max_depth:
        return None
    depth = 0
    for match in _FLOW_TOKENS.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > max_depth:
                return match.start()
        elif token in "]}":
            depth = max(0, depth - 1)
    return 0


def _decode(file: str, data: bytes) -> tuple[str, Diagnostic | None]:
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        message = "UTF-16 text: policy files must be UTF-8"
        return "", _error("ZP102", Position(file, 1, 1), message, "save the file as UTF-8")
    nul = data.find(b"\0")
    if nul >= 0:
        where = _offset_position(file, data, nul)
        return "", _error("ZP102", where, "binary data (NUL byte): not a YAML text file")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as exc:
        where = _offset_position(file, data, exc.start)
        byte = data[exc.start : exc.start + 1].hex()
        return "", _error("ZP102", where, f"not UTF-8: byte 0x{byte} cannot be decoded")


def _offset_position(file: str, data: str | bytes, offset: int) -> Position:
    head = data[:offset]
    newline: str | bytes = "\n" if isinstance(head, str) else b"\n"
    line = head.count(newline) + 1  # type: ignore[arg-type]
    col = offset - (head.rfind(newline) + 1) + 1  # type: ignore[arg-type]
    return Position(file, line, col)


def _error(code: str, where: Position, message: str, hint: str | None = None) -> Diagnostic:
    return Diagnostic(code, Severity.ERROR, where, message, hint)
