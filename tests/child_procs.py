"""Every child process the tests start goes through here (`popen`, `run`): each runs in its
own session, so its whole process group (what it started too) is reaped, SIGTERM then
SIGKILL, when the test that started it ends, passed or failed (the `_children` fixture in
tests/conftest.py). A process started outside a test (a module or session fixture) belongs
to the session and is reaped when it ends."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Iterator, Sequence
from typing import Any

GRACE_S = 5.0  # after SIGTERM, before SIGKILL


class Children:
    def __init__(self) -> None:
        self.procs: list[subprocess.Popen[Any]] = []

    def popen(self, args: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
        kwargs["start_new_session"] = True  # its own process group: reaped whole
        proc: subprocess.Popen[Any] = subprocess.Popen(args, **kwargs)
        self.procs.append(proc)
        return proc

    def reap(self) -> None:
        """Terminate every process group still alive, then kill what is left; a group whose
        leader ended may still hold what it started in the background."""
        procs, self.procs = self.procs, []
        for proc in procs:
            if proc.poll() is None:
                _signal_group(proc.pid, signal.SIGTERM)
        for proc in procs:
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=GRACE_S)
            _signal_group(proc.pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=GRACE_S)
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                if stream is not None:
                    with contextlib.suppress(OSError):
                        stream.close()


def _signal_group(pgid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


_STACK: list[Children] = []


@contextlib.contextmanager
def owning() -> Iterator[Children]:
    """The children started in the body are this scope's, reaped when it ends."""
    children = Children()
    _STACK.append(children)
    try:
        yield children
    finally:
        _STACK.remove(children)
        children.reap()


def current() -> Children:
    if not _STACK:
        raise RuntimeError("a child process started outside tests/conftest.py's fixtures")
    return _STACK[-1]


def popen(args: Sequence[str], **kwargs: Any) -> subprocess.Popen[Any]:
    """subprocess.Popen, owned by the running test."""
    return current().popen(args, **kwargs)


def run(
    args: Sequence[str],
    *,
    input: str | bytes | None = None,
    capture_output: bool = False,
    timeout: float | None = None,
    check: bool = False,
    **kwargs: Any,
) -> subprocess.CompletedProcess[Any]:
    """subprocess.run, owned by the running test: on a timeout or any error its whole
    process group is reaped before the error is raised."""
    if capture_output:
        kwargs["stdout"] = kwargs["stderr"] = subprocess.PIPE
    if input is not None:
        kwargs["stdin"] = subprocess.PIPE
    proc = popen(args, **kwargs)
    try:
        out, err = proc.communicate(input, timeout=timeout)
    except BaseException:
        _signal_group(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    done = subprocess.CompletedProcess(proc.args, proc.returncode, out, err)
    if check:
        done.check_returncode()
    return done
