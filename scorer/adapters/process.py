"""The one process-wide choice the command line makes for its own process: which
allocator keeps Arrow's memory (docs/performance.md, "How"). The library makes none:
its host owns its process. Settings of the process that are no library's to make
(numpy's huge pages, glibc's heap) are the Docker image's environment, documented
there and in docs/performance.md.
"""

from __future__ import annotations

import contextlib
import os

import pyarrow as pa

from scorer.arrays import address_space_capped

#: How long jemalloc keeps freed pages before it returns them (pyarrow's default: 1 s).
JEMALLOC_DECAY_MS = 100


def prefer_jemalloc() -> None:
    """Give Arrow's allocations to jemalloc, unless ``ARROW_DEFAULT_MEMORY_POOL`` chose,
    freed pages returned after :data:`JEMALLOC_DECAY_MS` (pyarrow's public API; a
    pyarrow built without jemalloc keeps its default).

    Under a cap on the address space (``ulimit -v``), the system allocator, whatever
    the environment chose: jemalloc maps regions ahead of their use, each larger than
    the last, so that an allocation of 3 MB may ask for far more address space than it
    needs, and the run would run out of memory far below the cap."""
    if address_space_capped():
        pa.set_memory_pool(pa.system_memory_pool())
        return
    if os.environ.get("ARROW_DEFAULT_MEMORY_POOL"):
        return
    with contextlib.suppress(NotImplementedError):
        pa.set_memory_pool(pa.jemalloc_memory_pool())
        pa.jemalloc_set_decay_ms(JEMALLOC_DECAY_MS)
