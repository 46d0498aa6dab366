"""Run the command line as a child process under an address-space cap, and measure it.

Shared by the hostile-cost tests: each family of crafted inputs is run next to a random input
of the same size, in the same test, and the two are compared as ratios (never as absolute
times). The cap makes a runaway allocation end the child instead of the test machine; the
child's own peak resident memory comes from ``os.wait4`` in a small launcher process that
forks it, so neither other processes nor the test process's own size ever count.
"""

from __future__ import annotations

import contextlib
import csv
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

#: The address-space cap for every child: the interpreter, numpy, pyarrow and the allocator's
#: reservations fit well inside it, and no input the tests make may need more.
DEFAULT_CAP_BYTES = 3 * 2**30
#: The resource contract's memory bound (docs/formats-and-limits.md, "Resource contract"): a run's
#: peak resident memory stays within this constant plus this multiple of the inputs' decoded size
#: (:func:`decoded_size`).
MEMORY_CONSTANT_BYTES = 256 * 2**20
MEMORY_PER_INPUT_BYTE = 4
#: What each cell adds to the decoded size beside its text: its offset in the table.
DECODED_BYTES_PER_CELL = 8
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
    cpu_seconds: float = 0.0  # the child's user and system time (0 when timed out)

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

    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report"
        command = [sys.executable, "-c", _LAUNCHER, str(cap_bytes), str(report)]
        start = time.perf_counter()
        launcher = subprocess.Popen(
            [*command, *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            start_new_session=True,  # its own process group: a timeout stops both
        )
        killed = threading.Event()

        def stop() -> None:
            killed.set()
            with contextlib.suppress(ProcessLookupError):
                os.killpg(launcher.pid, signal.SIGKILL)

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            stdout, stderr = _read_all(launcher)
            launcher.wait()
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        returncode, peak_kib, cpu_seconds = launcher.returncode, 0, 0.0
        if report.exists() and not killed.is_set():
            code, peak, cpu = report.read_text().split()
            returncode, peak_kib, cpu_seconds = int(code), int(peak), float(cpu)
    return CostRun(
        returncode=returncode,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        seconds=seconds,
        peak_rss_bytes=peak_kib * 1024,  # Linux reports KiB
        timed_out=killed.is_set(),
        cpu_seconds=cpu_seconds,
    )


# A small process that forks the capped child and reports its exit code, peak memory and CPU time.
# Why not fork the child from the test process: Linux keeps a process's peak resident size
# across exec, so a child forked from a large test process (or a vfork child, which borrows
# its memory) reports at least the test process's size. A child forked from this launcher
# starts from the launcher's few megabytes.
_LAUNCHER = """
import os, resource, sys
cap, report, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    os.execv(sys.executable, [sys.executable, "-m", "scorer", *args])
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as out:
    cpu = usage.ru_utime + usage.ru_stime
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {cpu}")
"""


def memory_bound(decoded_input_bytes: int) -> int:
    """The most a run may hold at its peak, given its inputs' decoded size in bytes."""
    return MEMORY_CONSTANT_BYTES + MEMORY_PER_INPUT_BYTE * decoded_input_bytes


def decoded_size(*paths: Path) -> int:
    """What CSV files decode to, as the contract counts it: the text of every cell plus
    :data:`DECODED_BYTES_PER_CELL` per cell (read here with pyarrow alone, every column
    as text, independently of the scorer)."""
    total = 0
    for path in paths:
        with open(path, newline="", encoding="utf-8") as handle:
            names = next(csv.reader(handle))
        table = pacsv.read_csv(
            path,
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(names, pa.large_string()),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                null_values=[],
            ),
        )
        for column in table.columns:
            text = pc.sum(pc.binary_length(column.cast(pa.large_string()))).as_py() or 0
            total += text + DECODED_BYTES_PER_CELL * len(column)
    return total


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
