"""Run the command line as a child process under an address-space cap, and measure it.

Shared by the hostile-cost tests: each family of crafted inputs is run next to a random input
of the same size, in the same test, and the two are compared as ratios (never as absolute
times). The cap makes a runaway allocation end the child instead of the test machine; the
child's own peak resident memory comes from ``os.wait4``, so other processes never count.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

#: The address-space cap for every child: the interpreter, numpy, pyarrow and the allocator's
#: reservations fit well inside it, and no input the tests make may need more.
DEFAULT_CAP_BYTES = 3 * 2**30
#: The resource contract's memory bound (README, "Resource contract"): a run's peak resident
#: memory stays within this constant plus this multiple of the inputs' decompressed size.
MEMORY_CONSTANT_BYTES = 256 * 2**20
MEMORY_PER_INPUT_BYTE = 4
#: A child still running after this many seconds is stopped and reported as timed out.
DEFAULT_TIMEOUT_SECONDS = 120.0


@dataclass(frozen=True)
class CostRun:
    """What one capped run of the command line did and cost."""

    returncode: int  # the exit code, or minus the signal number
    stdout: str
    stderr: str
    seconds: float
    peak_rss_bytes: int
    timed_out: bool

    @property
    def signalled(self) -> bool:
        """True when a signal, not an exit, ended the child."""
        return self.returncode < 0


def run_capped(
    args: Sequence[str | os.PathLike],
    *,
    cap_bytes: int = DEFAULT_CAP_BYTES,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
    cwd: str | os.PathLike | None = None,
) -> CostRun:
    """Run ``python -m scorer ARGS`` with its address space capped at ``cap_bytes``.

    Parameters
    ----------
    args : sequence of str or path
        The command line's arguments, after ``python -m scorer``.
    cap_bytes : int
        ``RLIMIT_AS`` for the child: an allocation past it fails inside the child.
    timeout : float
        Seconds before the child is stopped (``timed_out`` is then True).
    cwd : path, optional
        The child's working directory.

    Returns
    -------
    CostRun
    """

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))

    command = [sys.executable, "-m", "scorer", *map(str, args)]
    start = time.perf_counter()
    child = subprocess.Popen(
        command,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        preexec_fn=cap,  # safe here: the tests start no thread before the fork
        cwd=cwd,
    )
    killed = threading.Event()

    def stop() -> None:
        killed.set()
        child.kill()

    timer = threading.Timer(timeout, stop)
    timer.start()
    try:
        # Both pipes are read to their end; wait4 then reaps this child alone, with its rusage.
        stdout, stderr = _read_all(child)
        _, status, usage = os.wait4(child.pid, 0)
    finally:
        timer.cancel()
    seconds = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    return CostRun(
        returncode=child.returncode,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        seconds=seconds,
        peak_rss_bytes=usage.ru_maxrss * 1024,  # Linux reports KiB
        timed_out=killed.is_set(),
    )


def memory_bound(decoded_input_bytes: int) -> int:
    """The most a run may hold at its peak, given its inputs' decompressed size in bytes."""
    return MEMORY_CONSTANT_BYTES + MEMORY_PER_INPUT_BYTE * decoded_input_bytes


def _read_all(child: subprocess.Popen) -> tuple[bytes, bytes]:
    """Both pipes to their end, without reaping the child (``wait4`` does that)."""
    chunks: dict[str, list[bytes]] = {"out": [], "err": []}

    def drain(stream, key: str) -> None:
        for block in iter(lambda: stream.read(65536), b""):
            chunks[key].append(block)
        stream.close()

    readers = [
        threading.Thread(target=drain, args=(child.stdout, "out")),
        threading.Thread(target=drain, args=(child.stderr, "err")),
    ]
    for reader in readers:
        reader.start()
    for reader in readers:
        reader.join()
    return b"".join(chunks["out"]), b"".join(chunks["err"])


def write_bytes(folder: Path, name: str, data: bytes) -> Path:
    """Write ``data`` to ``folder/name`` and return the path."""
    path = Path(folder) / name
    path.write_bytes(data)
    return path
