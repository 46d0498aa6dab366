"""The command line's process-wide choices: each made, and each left to the
environment where it chose."""

from __future__ import annotations

import subprocess
import sys

import pytest


def test_the_command_line_prefers_jemalloc(monkeypatch):
    import pyarrow as pa

    from scorer.adapters.process import _prefer_jemalloc

    previous = pa.default_memory_pool()
    try:
        monkeypatch.delenv("ARROW_DEFAULT_MEMORY_POOL", raising=False)
        _prefer_jemalloc()
        try:
            expected = pa.jemalloc_memory_pool().backend_name
        except NotImplementedError:  # a pyarrow without jemalloc keeps its default
            expected = previous.backend_name
        assert pa.default_memory_pool().backend_name == expected
        pa.set_memory_pool(previous)
        monkeypatch.setenv("ARROW_DEFAULT_MEMORY_POOL", "system")  # the host's choice
        _prefer_jemalloc()
        assert pa.default_memory_pool().backend_name == previous.backend_name
    finally:
        pa.set_memory_pool(previous)


def test_the_command_line_asks_numpy_for_small_pages(monkeypatch):
    import importlib

    import numpy as np

    from scorer.adapters.process import _prefer_small_pages

    numpy_2 = int(np.__version__.split(".")[0]) >= 2
    name = "numpy._core.multiarray" if numpy_2 else "numpy.core.multiarray"
    multiarray = importlib.import_module(name)
    previous = multiarray._get_madvise_hugepage()
    try:
        multiarray._set_madvise_hugepage(True)
        monkeypatch.setenv("NUMPY_MADVISE_HUGEPAGE", "1")  # the host's choice stands
        _prefer_small_pages()
        assert multiarray._get_madvise_hugepage() is True
        monkeypatch.delenv("NUMPY_MADVISE_HUGEPAGE")
        _prefer_small_pages()
        assert multiarray._get_madvise_hugepage() is False
    finally:
        multiarray._set_madvise_hugepage(previous)


_SECOND_BLOCK_FAULTS = """
import resource, sys
import numpy as np
from scorer.adapters.process import prefer_reused_heap

prefer_reused_heap(int(sys.argv[1]))
block = np.ones(64 << 20, dtype=np.uint8)  # 64 MiB: over glibc's own threshold
del block
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
block = np.ones(64 << 20, dtype=np.uint8)
print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
@pytest.mark.parametrize(
    ("input_mib", "environment", "reused"),
    [
        (256, {}, True),
        (255, {}, False),  # a small run keeps glibc's defaults
        (256, {"MALLOC_TRIM_THRESHOLD_": "131072"}, False),  # the environment's choice stands
    ],
)
def test_a_large_run_reuses_blocks_of_tens_of_megabytes(input_mib, environment, reused) -> None:
    """A 64 MiB array freed and made again takes the same pages (a few faults), not
    16,384 fresh ones; only for inputs of 256 MiB or more, unless the environment chose."""
    import ctypes

    if not hasattr(ctypes.CDLL(None), "gnu_get_libc_version"):
        pytest.skip("not glibc")
    done = subprocess.run(
        [sys.executable, "-c", _SECOND_BLOCK_FAULTS, str(input_mib << 20)],
        env={"PATH": "", "NUMPY_MADVISE_HUGEPAGE": "0", **environment},
        capture_output=True,
        text=True,
        check=True,
    )
    faults = int(done.stdout)
    assert (faults < 1_000) == reused, (faults, done.stderr)


def test_input_bytes_counts_the_files_only(tmp_path) -> None:
    from scorer.adapters.process import input_bytes

    (tmp_path / "a.csv").write_bytes(b"x" * 7)
    assert input_bytes(tmp_path / "a.csv", str(tmp_path / "a.csv"), tmp_path / "none", None) == 14


def test_the_command_line_tells_the_heap_its_inputs_size(monkeypatch, capsys) -> None:
    from scorer.adapters import cli
    from tests.test_cli import SOLUTION, SUBMISSION

    told = []
    monkeypatch.setattr(cli, "prefer_reused_heap", told.append)
    assert cli.main([str(SOLUTION), str(SUBMISSION)]) == 0
    assert told == [SOLUTION.stat().st_size + SUBMISSION.stat().st_size]
