"""Child processes as the tests run them: the command line (``python -m scorer ARGS``),
this interpreter on a script or ``-c`` code, or any program, each with its output
captured as text and its exit code left to the test (never raised on)."""

from __future__ import annotations

import subprocess
import sys


def run_command(*command: object, timeout: float = 300, **options) -> subprocess.CompletedProcess:
    """Run ``command`` (each part as ``str``), its output captured as text unless
    ``stdout`` is given; ``options`` go to :func:`subprocess.run` (``input``, ``cwd``,
    ``env``, ``stdout``, ``stderr``)."""
    if "stdout" not in options:
        options["capture_output"] = True
    return subprocess.run([*map(str, command)], text=True, timeout=timeout, check=False, **options)


def run_python(*args: object, **options) -> subprocess.CompletedProcess:
    """``python ARGS`` with this interpreter (a script, ``-c`` code or ``-m`` module):
    :func:`run_command`."""
    return run_command(sys.executable, *args, **options)


def run_scorer(*args: object, **options) -> subprocess.CompletedProcess:
    """``python -m scorer ARGS``: :func:`run_command`."""
    return run_python("-m", "scorer", *args, **options)
