"""The command line as the tests run it: ``python -m scorer ARGS`` as a child process."""

from __future__ import annotations

import subprocess
import sys


def run_scorer(*args: object, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m scorer ARGS`` with its output captured as text; never raises on its
    exit code."""
    return subprocess.run(
        [sys.executable, "-m", "scorer", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
