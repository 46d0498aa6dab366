"""Child processes as the tests run them: the command line (``python -m scorer ARGS``),
this interpreter on a script or ``-c`` code, or any program, each with its output
captured as text and its exit code left to the test (never raised on).

The command line runs in the test's own process (:func:`run_scorer`) unless a test needs
what only a process has (its input, working directory, environment or standard output):
what a scoring run prints and its exit code are ``main()``'s, and an interpreter's start
costs more than most runs of the tests' small files. ``python -m scorer`` itself (its
start-up and its exit) is run as a process by the tests that are about it
(:func:`run_scorer_process`).
"""

from __future__ import annotations

import contextlib
import io
import subprocess
import sys

import pyarrow as pa

#: What only a process of its own gives a run: a test that passes any of these gets one.
_PROCESS_OPTIONS = {"input", "cwd", "env", "stdout", "stderr"}


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


def run_scorer_process(*args: object, **options) -> subprocess.CompletedProcess:
    """``python -m scorer ARGS`` as a process of its own: :func:`run_command`."""
    return run_python("-m", "scorer", *args, **options)


def run_scorer(*args: object, **options) -> subprocess.CompletedProcess:
    """``scorer ARGS``: the command line's ``main()`` in this process, its standard
    output and error captured, or (given any option a process needs, see
    :data:`_PROCESS_OPTIONS`) :func:`run_scorer_process`.

    The run is the command's: ``main()``'s exit code, or argparse's for a usage error.
    Arrow's memory pool, which ``main()`` chooses for its process, is given back after.
    """
    if _PROCESS_OPTIONS & set(options):
        return run_scorer_process(*args, **options)
    from scorer.adapters.cli import main

    options.pop("timeout", None)  # a run in this process is the test's own time
    if options:
        raise TypeError(f"run_scorer: unknown options {sorted(options)}")
    argv = [*map(str, args)]
    stdout, stderr = io.StringIO(), io.StringIO()
    pool = pa.default_memory_pool()
    try:
        with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
            try:
                code = main(argv)
            except SystemExit as exc:  # argparse: --help, --version, a usage error
                code = int(exc.code or 0)  # argparse exits with a number
    finally:
        pa.set_memory_pool(pool)
    return subprocess.CompletedProcess(
        ["scorer", *argv], code, stdout.getvalue(), stderr.getvalue()
    )
