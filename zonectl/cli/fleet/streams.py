"""Per-worker stdout/stderr for fleet workers: a router installed on sys.stdout/sys.stderr
for the run sends each worker's writes to its own buffer (stdout, grouped per cluster
afterwards) or to a writer that prefixes each stderr line with the cluster name. The route
is a context variable, so the threads a worker starts in a copy of its context (apply's
move workers) write where it does."""

from __future__ import annotations

import contextlib
import contextvars
import io
import sys
import threading
from collections.abc import Iterator
from typing import Protocol, TextIO

_WRITE_LOCK = threading.Lock()


class Sink(Protocol):
    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


class ThreadRouter(io.TextIOBase):
    """A text stream that writes to the current context's target, or to `default`."""

    def __init__(self, default: TextIO) -> None:
        super().__init__()
        self.default = default
        self._target_var: contextvars.ContextVar[Sink | None] = contextvars.ContextVar(
            "zonectl_stream_target", default=None
        )

    def route(self, target: Sink | None) -> None:
        self._target_var.set(target)

    def _target(self) -> Sink:
        target = self._target_var.get()
        return target if target is not None else self.default

    def write(self, text: str) -> int:
        self._target().write(text)
        return len(text)

    def flush(self) -> None:
        self._target().flush()

    def isatty(self) -> bool:
        target = self._target()
        return target is self.default and self.default.isatty()

    def fileno(self) -> int:
        return self.default.fileno()

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return getattr(self.default, "encoding", None) or "utf-8"


class PrefixWriter(io.TextIOBase):
    """Whole lines to `sink`, each as `[NAME] line`; remembers the first error line."""

    def __init__(self, name: str, sink: TextIO) -> None:
        super().__init__()
        self.prefix = f"[{name}] "
        self.sink = sink
        self.first_error: str | None = None
        self._partial = ""

    def write(self, text: str) -> int:
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for line in lines:
            self._emit(line)
        return len(text)

    def finish(self) -> None:
        if self._partial:
            self._emit(self._partial)
            self._partial = ""

    def _emit(self, line: str) -> None:
        if self.first_error is None and line.startswith("zonectl: error: "):
            self.first_error = line.removeprefix("zonectl: error: ")
        with _WRITE_LOCK:
            self.sink.write(f"{self.prefix}{line}\n")
            self.sink.flush()

    def isatty(self) -> bool:
        return False


class ErrorWatch(io.TextIOBase):
    """Passes writes straight through (one cluster: prompts work), remembering the first
    error line for the summary."""

    def __init__(self, sink: TextIO) -> None:
        super().__init__()
        self.sink = sink
        self.first_error: str | None = None
        self._partial = ""

    def write(self, text: str) -> int:
        self.sink.write(text)
        self._partial += text
        *lines, self._partial = self._partial.split("\n")
        for line in lines:
            if self.first_error is None and line.startswith("zonectl: error: "):
                self.first_error = line.removeprefix("zonectl: error: ")
        return len(text)

    def flush(self) -> None:
        self.sink.flush()

    def isatty(self) -> bool:
        return self.sink.isatty()

    def finish(self) -> None:
        pass


@contextlib.contextmanager
def routed_streams() -> Iterator[tuple[ThreadRouter, ThreadRouter]]:
    """Install routers on sys.stdout and sys.stderr for the duration of a fleet run."""
    out, err = ThreadRouter(sys.stdout), ThreadRouter(sys.stderr)
    sys.stdout, sys.stderr = out, err
    try:
        yield out, err
    finally:
        sys.stdout, sys.stderr = out.default, err.default
