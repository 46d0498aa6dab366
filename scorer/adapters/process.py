"""Process-wide choices the command line makes for its own process: which allocators
keep Arrow's and numpy's memory, and how freed memory is kept for reuse.

A scoring run fills most of its memory once, in arrays of a few megabytes to a few
hundred, and frees them a step later. Each choice here was measured at H&M and OTTO
scale (docs/performance.md, "How"); each is skipped where the environment already
chose, and none is made by the library, whose host owns its process.
"""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import os
import sys

import pyarrow as pa

#: How long jemalloc keeps freed pages before it returns them (pyarrow's default: 1 s).
JEMALLOC_DECAY_MS = 100

#: glibc's malloc: blocks below this size come from its heap and are reused once
#: freed, rather than mapped fresh for each (its own threshold rises to 32 MiB at most).
MALLOC_MMAP_THRESHOLD = 128 << 20

#: ... and the free top of its heap is kept up to this size rather than returned.
MALLOC_TRIM_THRESHOLD = 256 << 20

#: The inputs' size from which glibc is told so.
REUSED_HEAP_MIN_INPUT_BYTES = 256 << 20

_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3  # mallopt's parameters (malloc.h)


def tune_process() -> None:
    """Make the command line's process-wide choices that hold for every run (each
    documented below); :func:`prefer_reused_heap` is made once the inputs' size is
    known."""
    _prefer_jemalloc()
    _prefer_small_pages()


def _prefer_jemalloc() -> None:
    """Give Arrow's allocations to jemalloc, unless ``ARROW_DEFAULT_MEMORY_POOL`` chose.

    Measured at H&M scale: about 15 % faster end to end than pyarrow's default
    (mimalloc), and 100 MB less peak memory. Freed pages go back after 100 ms rather
    than a second: a run lasts a second or two, so with the default almost nothing
    freed was returned before the peak. Measured: 120 MiB less peak memory at H&M
    scale, at the same speed, and 60 MiB less on a million-row long file (0 ms would
    save more but costs 15 % of the time). A process-wide choice, so the command
    line makes it and the library does not; a pyarrow built without jemalloc keeps
    its default.
    """
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    with contextlib.suppress(NotImplementedError):
        pa.set_memory_pool(pa.jemalloc_memory_pool())
        pa.jemalloc_set_decay_ms(JEMALLOC_DECAY_MS)


def _prefer_small_pages() -> None:
    """Ask numpy not to advise transparent huge pages for its large arrays, unless
    ``NUMPY_MADVISE_HUGEPAGE`` chose (numpy reads it when it is imported).

    A run fills most of its memory once, fresh. Measured on a 2-core virtual machine:
    2 GiB of huge pages took 4.7 to 5.0 s to touch for the first time, the same in
    4 KiB pages 0.8 to 1.1 s (huge pages win only on memory touched before). The
    command line then took 0.94 times its wall time at OTTO scale, 0.95 on the long
    H&M file and 0.99 on the wide one (docs/performance.md). A process-wide choice,
    so the command line makes it and the library does not: set
    ``NUMPY_MADVISE_HUGEPAGE=0`` before numpy is imported to get the same.
    """
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):  # numpy 2, numpy 1
        try:
            multiarray = importlib.import_module(name)
        except ImportError:
            continue
        set_hugepage = getattr(multiarray, "_set_madvise_hugepage", None)
        if set_hugepage is not None:
            set_hugepage(False)
        return


def prefer_reused_heap(n_input_bytes: int) -> None:
    """For inputs of :data:`REUSED_HEAP_MIN_INPUT_BYTES` or more (their files' bytes
    together), have glibc's malloc (numpy's allocator) keep blocks under
    :data:`MALLOC_MMAP_THRESHOLD` in its heap, and up to :data:`MALLOC_TRIM_THRESHOLD`
    of free memory at its top; unless ``MALLOC_MMAP_THRESHOLD_``,
    ``MALLOC_TRIM_THRESHOLD_`` or ``GLIBC_TUNABLES`` chose, and nowhere but glibc.

    By default each block over 32 MiB is mapped fresh and unmapped when freed, and a
    free heap top over 64 MiB returned at once: a large run's many arrays of tens of
    megabytes are then touched page by page, fresh, every time. Measured: at OTTO
    scale 36 % fewer page faults and 0.87 of the wall time for 125 MiB more peak
    memory; at H&M scale 0.89 of the time for 30 MiB more. The memory kept costs
    smaller runs more than it saves (25 to 70 MiB more on inputs of tens of
    megabytes), so they keep glibc's defaults.
    """
    if n_input_bytes < REUSED_HEAP_MIN_INPUT_BYTES:
        return
    chosen = ("MALLOC_MMAP_THRESHOLD_", "MALLOC_TRIM_THRESHOLD_", "GLIBC_TUNABLES")
    if not sys.platform.startswith("linux") or any(name in os.environ for name in chosen):
        return
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018  (glibc's own: absent from musl)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(_M_MMAP_THRESHOLD, MALLOC_MMAP_THRESHOLD)
    mallopt(_M_TRIM_THRESHOLD, MALLOC_TRIM_THRESHOLD)


def input_bytes(*paths: object) -> int:
    """The bytes of the files among ``paths`` together (anything else counts 0)."""
    total = 0
    for path in paths:
        with contextlib.suppress(OSError, TypeError, ValueError):
            total += os.path.getsize(path)  # type: ignore[arg-type]
    return total
