"""Run the command line as a child process under an address-space cap, and measure it.

Shared by the hostile-cost tests: each family of crafted inputs is run next to a random input
of the same size, in the same test, and the two are compared as ratios of CPU time (never as
absolute times, nor as wall times, which other work on the machine stretches). The cap makes a
runaway allocation end the child instead of the test machine.

The memory figure is the peak of what the command line's process allocated plus the largest of
its own children's (the Parquet decoder), so neither other processes nor the test process's size
ever count. Each Python process of the run reports, as it exits, its peak resident memory less the
pages it maps from files (``VmHWM`` less ``RssFile``: the interpreter's, numpy's and Arrow's code),
which the kernel shares between processes and maps in more or fewer pages from one machine to the
next (56 of a started scorer's 117 MiB on the development machine): a CI machine measured the same
runs, on the same versions, about 29 MiB higher per process, and two tests crossed the bound by a
few MiB there alone. It depends on what the run allocates, not
on how fast the machine is: the child runs with allocators that return freed memory at once
(:data:`MEASURED_ENVIRONMENT`), where jemalloc's default keeps freed pages for a time and a
loaded machine returned more of them before the peak (a strict expected failure passed under
load), and with numpy's arrays in small pages, whose count is the arrays' size (transparent huge
pages depend on the machine's free memory and a kernel thread's timing). A process that ends
without running its exit handlers (a signal, or ``os._exit`` at the decoder's cap) reports
nothing: the kernel's peak resident memory stands for it then, code and all.
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
#: The measured child's allocators: glibc's (numpy's, and Arrow's: under the address-space cap
#: the command line gives Arrow's memory to the system allocator, whatever the environment says)
#: from a heap trimmed and blocks of 128 KiB or more mapped and unmapped at once, and numpy's
#: arrays in small pages; for a run without the cap (``test_hostile_cost_shapes``), Arrow's
#: memory from jemalloc returning freed pages at once.
MEASURED_ENVIRONMENT = {
    "ARROW_DEFAULT_MEMORY_POOL": "jemalloc",
    "JE_ARROW_MALLOC_CONF": "dirty_decay_ms:0,muzzy_decay_ms:0",
    "MALLOC_MMAP_THRESHOLD_": str(128 << 10),
    "MALLOC_TRIM_THRESHOLD_": str(128 << 10),
    "NUMPY_MADVISE_HUGEPAGE": "0",
}


@dataclass(frozen=True)
class CostRun:
    """What one capped run of the command line did and cost."""

    returncode: int  # the exit code, or minus the signal number
    stdout: str
    stderr: str
    seconds: float  # wall time
    cpu_seconds: float  # user and system time, the child's children's included
    peak_rss_bytes: int  # the most the child and its children allocated at once (an upper bound)
    timed_out: bool
    started: bool  # whether the child got past its imports to the command line's ``main``

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
        report, peaks = Path(folder) / "report", Path(folder) / "peaks"
        peaks.mkdir()
        (Path(folder) / "sitecustomize.py").write_text(_PEAK_HOOK)
        command = [sys.executable, "-c", _LAUNCHER, str(cap_bytes), str(report)]
        search_path = [folder, *filter(None, [os.environ.get("PYTHONPATH")])]
        start = time.perf_counter()
        launcher = subprocess.Popen(
            [*command, *map(str, args)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env={
                **os.environ,
                **MEASURED_ENVIRONMENT,
                "PYTHONPATH": os.pathsep.join(search_path),
                _PEAKS_FOLDER: str(peaks),
            },
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
        started = Path(f"{report}.own.started").exists()
        if report.exists() and not killed.is_set():
            code, peak, cpu, child = report.read_text().split()
            returncode, peak_kib, cpu_seconds = int(code), int(peak), float(cpu)
            peak_kib = _run_peak_kib(
                launcher.pid, int(child), peaks, report.with_suffix(".own"), peak_kib
            )
    return CostRun(
        returncode=returncode,
        stdout=stdout.decode("utf-8", "replace"),
        stderr=stderr.decode("utf-8", "replace"),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        peak_rss_bytes=peak_kib * 1024,  # Linux reports KiB
        timed_out=killed.is_set(),
        started=started,
    )


# A small process that forks the capped child and reports its exit code, its peak memory and
# its CPU time (its children's included). Why not fork the child from the test process: Linux
# keeps a process's peak resident size across exec, so a child forked from a large test process
# (or a vfork child, which borrows its memory) reports at least the test process's size. A child
# forked from this launcher starts from the launcher's few megabytes.
_LAUNCHER = """
import os, resource, sys
cap, report, args = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
pid = os.fork()
if pid == 0:
    resource.setrlimit(resource.RLIMIT_AS, (cap, cap))
    own = report + ".own"
    os.execv(sys.executable, [sys.executable, "-c", BOOTSTRAP, own, *args])
_, status, usage = os.wait4(pid, 0)
with open(report, "w") as out:
    cpu = usage.ru_utime + usage.ru_stime
    out.write(f"{os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {cpu} {pid}")
"""
# ``python -m scorer ARGS`` that writes, as it exits, its own peak resident memory and the
# largest of its children's: the kernel gives a parent the larger of the two, not their sum.
# Once it has imported what ``python -m scorer`` imports before its ``main``, it leaves a
# file, ``OWN.started``: a run without it ended in the interpreter's start-up (however that
# ends under a cap: a MemoryError, an extension the loader could not map, or the loader's
# own abort when it cannot allocate an extension's thread-local data), before any of the
# scorer's code ran.
_BOOTSTRAP = """
import atexit, os, resource, runpy, sys

def report(path=sys.argv[1]):
    # Written whole or not at all: under a small cap the write itself can fail at exit.
    whose = (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN)
    peaks = (resource.getrusage(who).ru_maxrss for who in whose)
    with open(path + ".part", "w") as out:
        out.write(" ".join(map(str, peaks)))
    os.replace(path + ".part", path)

atexit.register(report)
import scorer.adapters.cli
open(sys.argv[1] + ".started", "w").close()
sys.argv = ["scorer", *sys.argv[2:]]
runpy.run_module("scorer", run_name="__main__", alter_sys=True)
"""
_LAUNCHER = f"BOOTSTRAP = {_BOOTSTRAP!r}\n{_LAUNCHER}"


#: The variable naming the folder where each process of a measured run writes its peak.
_PEAKS_FOLDER = "SCORER_TESTS_PEAKS_FOLDER"
# Imported by every Python process of a measured run (``sitecustomize`` on its path): as it
# exits, it writes its peak resident memory less what it maps from files, in KiB, to a file
# named by its process id; and, for each child it waited for, its own peak when that child
# had ended (less the same mapped memory), to ``CHILD.parent``: the most it held while the
# child ran, so that the two are counted together only while both lived.
_PEAK_HOOK = f"""
import atexit, os, subprocess

def _status():
    with open("/proc/self/status") as status:
        fields = dict(line.split(":", 1) for line in status)
    return [int(fields[name].split()[0]) for name in ("VmHWM", "RssFile")]

_at_child_end = {{}}
_wait = subprocess.Popen.wait

def _wait_and_note(self, *args, **kwargs):
    code = _wait(self, *args, **kwargs)
    _at_child_end.setdefault(self.pid, _status()[0])
    return code

def _write(path, kib):
    # Written whole or not at all: a process killed while it writes leaves no report.
    with open(path + ".part", "w") as out:
        out.write(str(kib))
    os.replace(path + ".part", path)

def _write_peak(folder=os.environ.get({_PEAKS_FOLDER!r})):
    peak, mapped = _status()
    for child, held in _at_child_end.items():
        _write(os.path.join(folder, f"{{child}}.parent"), held - mapped)
    _write(os.path.join(folder, str(os.getpid())), peak - mapped)

if os.environ.get({_PEAKS_FOLDER!r}):
    subprocess.Popen.wait = _wait_and_note
    atexit.register(_write_peak)
"""


def _run_peak_kib(
    launcher_pid: int, command_pid: int, peaks: Path, kernel_report: Path, kernel_peak: int
) -> int:
    """The most the command line and its children held at once, in KiB, from the
    processes' own reports: the command line's peak, or a child's peak plus what the
    command line held by the time that child ended (its whole peak when it did not say).
    The kernel's figures (``kernel_report``: the command line's peak and its children's
    largest, code included) stand for a process that wrote no report (one killed while it
    wrote leaves only a ``.part`` file: the command line stops the Parquet decoder once
    it has refused a file; one that ends with ``os._exit`` writes none)."""
    kernel_figures = kernel_report.read_text().split() if kernel_report.exists() else []
    own, children = map(int, kernel_figures) if len(kernel_figures) == 2 else (kernel_peak, 0)
    files = list(peaks.iterdir())
    reported = {int(path.name): int(path.read_text()) for path in files if path.name.isdigit()}
    held = {int(path.stem): int(path.read_text()) for path in files if path.suffix == ".parent"}
    reported.pop(launcher_pid, None)
    own = reported.pop(command_pid, own)
    # A child waited for that wrote no report: the kernel's largest child stands for it.
    peaks_of = {**dict.fromkeys(held, children), **reported} or {0: children}
    return max(own, *(held.get(child, own) + peak for child, peak in peaks_of.items()))


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


def assert_ended(run: CostRun, exit_code: int) -> None:
    """The run ended by itself (no timeout, no signal) with ``exit_code``."""
    assert not run.timed_out and not run.signalled, run.stderr[-2000:]
    assert run.returncode == exit_code, run.stderr[-2000:]


#: A crafted input may take at most this many times the random one's CPU time. Both runs
#: include the interpreter's start-up (about half a second), so a quadratic route, which
#: takes tens of seconds on these inputs, is far above it.
MAX_TIME_RATIO = 3.0
#: Nor more than this many times the random input's peak memory (both include the
#: interpreter's, about 80 MB): a crafted input costs what any input of its size costs.
MAX_MEMORY_RATIO = 1.25
#: A crafted run that takes this long has failed already.
TIMEOUT_SECONDS = 60.0


def cost_run(*args: object) -> CostRun:
    """The command line on ``args`` under the cap, stopped at :data:`TIMEOUT_SECONDS`."""
    return run_capped([str(a) for a in args], timeout=TIMEOUT_SECONDS)


def assert_costs_like_random(
    crafted: CostRun,
    random: CostRun,
    inputs: list[Path],
    exit_code: int,
    random_exit: int = -1,
    per_cell: bool = False,
) -> None:
    """The documented exit, memory within the contract, CPU time comparable to random input.

    The inputs' size is their bytes, at most what they decode to for these files of
    long cells; ``per_cell`` counts the contract's decoded size instead (each cell's
    text plus 8 bytes: :func:`tests.cost.decoded_size`), for files of many short cells."""
    exits = (exit_code, exit_code if random_exit < 0 else random_exit)
    for run, expected in zip((crafted, random), exits, strict=True):
        assert_ended(run, expected)
    stored = sum(path.stat().st_size for path in inputs)
    decoded = decoded_size(*inputs) if per_cell else stored
    assert crafted.peak_rss_bytes <= memory_bound(decoded), (
        f"{crafted.peak_rss_bytes / 2**20:.0f} MiB for {decoded / 2**20:.1f} MiB of input"
    )
    memory_ratio = crafted.peak_rss_bytes / random.peak_rss_bytes
    assert memory_ratio <= MAX_MEMORY_RATIO, (
        f"{crafted.peak_rss_bytes / 2**20:.0f} MiB against {random.peak_rss_bytes / 2**20:.0f} MiB"
    )
    ratio = crafted.cpu_seconds / random.cpu_seconds
    assert ratio <= MAX_TIME_RATIO, (
        f"{crafted.cpu_seconds:.2f} s of CPU against {random.cpu_seconds:.2f} s"
    )
