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


_HEAP_GROWTH = """
import os, sys
import numpy as np
from scorer.adapters.process import _prefer_reused_heap

def heap_bytes():  # the heap may show in pieces (numpy's advice splits it)
    total = 0
    with open("/proc/self/maps") as maps:
        for line in maps:
            if line.rstrip().endswith("[heap]"):
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                total += end - start
    return total

_prefer_reused_heap()
before = heap_bytes()
block = np.ones(64 << 20, dtype=np.uint8)  # 64 MiB: over glibc's own threshold
print(heap_bytes() - before >= 64 << 20)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's malloc")
@pytest.mark.parametrize(
    ("environment", "in_heap"), [({}, "True"), ({"MALLOC_TRIM_THRESHOLD_": "131072"}, "False")]
)
def test_the_command_line_keeps_blocks_of_tens_of_megabytes_in_the_heap(
    environment, in_heap
) -> None:
    """A 64 MiB array comes from glibc's heap (reused once freed) rather than fresh
    pages; unless the environment chose glibc's settings, which then stand."""
    import ctypes

    if not hasattr(ctypes.CDLL(None), "gnu_get_libc_version"):
        pytest.skip("not glibc")
    done = subprocess.run(
        [sys.executable, "-c", _HEAP_GROWTH],
        env={"PATH": "", **environment},
        capture_output=True,
        text=True,
        check=True,
    )
    assert done.stdout.strip() == in_heap, done.stderr
