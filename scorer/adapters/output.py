"""What the command line prints on standard output or writes to a file, and what
happens when it cannot."""

from __future__ import annotations

import contextlib
import os
import sys

from scorer.errors import HostVisibleError
from scorer.read.files import write_atomic


def emit(text: str) -> None:
    """Print ``text`` and a newline on standard output, flushed. A standard output that
    cannot be written (a closed pipe, a full disk) is the host's error (exit 2)."""
    try:
        sys.stdout.write(text + "\n")
        sys.stdout.flush()
    except OSError as exc:
        _discard_stdout()
        raise HostVisibleError(
            f"Cannot write to standard output: {exc.strerror or exc}. "
            "Check where the output goes (a closed pipe or a full disk)."
        ) from exc


def write_output(path: str, text: str) -> None:
    """Write an output file atomically; a failure is the host's (exit 2)."""
    try:
        write_atomic(path, text)
    except OSError as exc:
        raise HostVisibleError(f"Cannot write {path!r}: {exc.strerror or exc}.") from exc


def _discard_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's own flush at
    exit cannot fail once more (and turn the documented exit code into another)."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
