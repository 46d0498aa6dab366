"""Out of memory anywhere, on any thread, is exit 2 (docs/formats-and-limits.md, "Out of
memory anyway"): the command line under address-space caps from the smallest with which
it starts up to the resource contract's bound ends in a score (exit 0) or the
out-of-memory error (exit 2), never an internal error (3), a signal or a hang.

An input of about 14 MB, its items canonical integers (read by value) or strings (the
join of strings): between the start-up's own needs and the bound, every allocation of a
run, on any thread, is the one that may fail.

pyarrow's CSV parser ends the process (SIGABRT, ``ValueOrDie called on an error: Out of
memory`` or ``Check failed`` on a buffer's resize, in its block parser) when an allocation
fails. Under such a cap the reader runs the parse in a process of its own
(``scorer/read/csv_parser.py``), whose end is the out-of-memory error; before, 1 to 3 of
each 54 caps ended in that abort.
"""

from __future__ import annotations

import functools
import gzip
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import scorer.read.files as files
from scorer.errors import ParticipantVisibleError
from scorer.read.files import read_table
from tests.cost import decoded_size, memory_bound, run_capped, write_bytes
from tests.paths import EXAMPLE

N_ROWS = 100_000
#: Caps tried between the smallest that starts and the bound (both included).
N_CAPS = 12
#: The start-up's own needs move by a few MiB from run to run (the address-space layout
#: is randomised), and below them the interpreter itself fails (exit 120, "lost
#: sys.stderr", a MemoryError loading the package's bytecode, a C++ ``std::bad_alloc``
#: or the loader's abort, exit 127, when it cannot allocate an extension's thread-local
#: data, all before any scorer code runs): the sweep starts this far above the smallest
#: cap that started once (16 MiB was not always enough beside other work), and a run
#: that did not start all the same (``CostRun.started``) counts below its start.
START_MARGIN = 32 * 2**20
MIB = 2**20


def _files(tmp_path: Path, items: str) -> tuple[Path, Path]:
    rng = np.random.default_rng(7)
    form = "%d" if items == "integers" else "i%x"

    def cells(per_row: int) -> list[str]:
        values = rng.integers(0, 1_800_000, (N_ROWS, per_row))
        return [" ".join(form % v for v in row) for row in values]

    def table(cells: list[str]) -> bytes:
        return ("session,labels\n" + "".join(f"{n},{c}\n" for n, c in enumerate(cells))).encode()

    solution = write_bytes(tmp_path, "solution.csv", table(cells(3)))
    submission = write_bytes(tmp_path, "submission.csv", table(cells(20)))
    return solution, submission


#: A run that loads all a scoring run imports: the shipped example, scored.
_EXAMPLE = [str(EXAMPLE / name) for name in ("solution.csv", "submission.csv")]


#: How close to the smallest cap that starts the search comes: far finer than
#: :data:`START_MARGIN`, which the sweep adds to it.
CAP_RESOLUTION = 4 * MIB


@functools.cache
def _smallest_cap_that_starts() -> int:
    """The smallest cap, to :data:`CAP_RESOLUTION`, with which the command line scores
    the shipped example (every module a scoring run imports loaded; ``--version`` loads
    fewer): below it the interpreter's own imports fail, before any scorer code runs.
    Searched once per test process."""
    low, high = 16, 1024  # MiB: fails, starts
    assert run_capped(_EXAMPLE, cap_bytes=high * MIB).returncode == 0
    while high - low > CAP_RESOLUTION // MIB:
        middle = (low + high) // 2
        started = run_capped(_EXAMPLE, cap_bytes=middle * MIB).returncode == 0
        low, high = (low, middle) if started else (middle, high)
    return high * MIB


@pytest.mark.parametrize("items", ["integers", "strings"])
def test_every_cap_ends_in_a_score_or_the_out_of_memory_error(tmp_path: Path, items: str) -> None:
    solution, submission = _files(tmp_path, items)
    assert 12 * MIB < submission.stat().st_size < 16 * MIB
    bound = memory_bound(decoded_size(solution, submission))
    smallest = _smallest_cap_that_starts()
    assert smallest < bound
    not_started = []
    for cap in np.linspace(smallest + START_MARGIN, bound, N_CAPS).astype(np.int64).tolist():
        run = run_capped([solution, submission, "-k", "20"], cap_bytes=cap, timeout=120)
        where = f"cap {cap / MIB:.0f} MiB: exit {run.returncode}, {run.stderr[-600:]!r}"
        assert not run.timed_out, where
        if not run.started:  # the interpreter's own imports fell short: below this run's start
            not_started.append(where)
            continue
        assert run.returncode in (0, 2), where
        if run.returncode == 2:
            assert "scorer: host error: out of memory" in run.stderr, where
        else:
            assert run.stdout.startswith("MAP@20: "), where
    # The start-up's needs move by some MiB from run to run: a few of the lowest caps
    # may fall below them, never most of the sweep.
    assert len(not_started) <= 3, not_started


_UNDER_A_CAP = """
import resource
resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30))
import pyarrow as pa
from scorer.adapters.process import prefer_jemalloc
prefer_jemalloc()
print(pa.default_memory_pool().backend_name)
"""


def test_under_a_cap_arrow_takes_the_system_allocator() -> None:
    # The environment chose jemalloc, as the cost tests' does: the cap decides all the same.
    env = {**os.environ, "ARROW_DEFAULT_MEMORY_POOL": "jemalloc"}
    run = subprocess.run(
        [sys.executable, "-c", _UNDER_A_CAP], capture_output=True, text=True, env=env, check=True
    )
    assert run.stdout.splitlines() == ["system"]


#: Text files and what each tries: a table, quoted line ends, text in memory (gzip), a
#: row of the wrong width, a byte that is not UTF-8 past what is checked before a parse.
_ROWS = b"".join(b"u%d,i%d\n" % (n, n) for n in range(10_000))
_TEXTS = {
    "plain.csv": b"id,items\r\nu1,a b\r\nu2,\r\n",
    "quoted.csv": b'id,items\nu1,"a\nb"\nu2,"c, d"\n',
    "packed.csv.gz": gzip.compress(b"id,items\n" + _ROWS),
    "wide.csv": b"id,items\nu1,a,b\n",
    "latin.csv": b"id,items\n" + _ROWS + b"u1,caf\xe9\n",
}


def _read(path: Path) -> object:
    try:
        table = read_table(path, ParticipantVisibleError)
    except ParticipantVisibleError as exc:
        # Arrow's serial parser names the row, its threaded one does not.
        return re.sub(r"Row #\d+: ", "", str(exc))
    return [table.names, [column.to_pylist() for column in table.columns]]


def test_under_a_cap_a_parse_runs_apart_to_the_same_table_or_refusal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = [write_bytes(tmp_path, name, text) for name, text in _TEXTS.items()]
    here = [_read(path) for path in paths]
    monkeypatch.setattr(files, "address_space_capped", lambda: True)
    started = []
    monkeypatch.setattr(files.subprocess, "Popen", _recording(started, subprocess.Popen))
    assert [_read(path) for path in paths] == here
    assert len(started) == len(paths)
    assert "Expected 2 columns, got 3" in here[3]
    assert "byte 0xe9 on line 10,002 is not valid UTF-8" in here[4]


def _recording(started: list, popen: type) -> object:
    def record(command: list[str], **kwargs: object) -> subprocess.Popen:
        started.append(command)
        return popen(command, **kwargs)

    return record


#: A parser that ends as pyarrow's does when a block's buffer cannot be had.
_ABORTING_PARSER = """
import os, sys
sys.stderr.write("Check failed: ValueOrDie called on an error: Out of memory\\n")
sys.stderr.flush()
os.abort()
"""


def test_under_a_cap_a_parse_that_ends_its_process_is_the_out_of_memory_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parser = write_bytes(tmp_path, "parser.py", _ABORTING_PARSER.encode())
    monkeypatch.setattr(files, "_CSV_PARSER", parser)
    monkeypatch.setattr(files, "address_space_capped", lambda: True)
    path = write_bytes(tmp_path, "plain.csv", _TEXTS["plain.csv"])
    with pytest.raises(MemoryError, match=r"the CSV parser ran out of memory: .*Out of memory"):
        read_table(path, ParticipantVisibleError)
