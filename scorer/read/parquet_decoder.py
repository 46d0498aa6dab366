"""Decode Parquet files in a process of their own, under an address-space cap.

Run as a script by :mod:`scorer.read.parquet` (``python parquet_decoder.py BUDGET ROWS
PATH ...``; the package imports only its constants): it imports only pyarrow, so that
it starts in a fraction of the package's import time. It caps its own address space at
what it holds once started plus ``BUDGET`` bytes, then writes each file to its standard
output as one Arrow IPC stream: the file's schema (its row count in the schema's
metadata), then its rows in batches of at most ``ROWS`` rows, dictionaries decoded,
then the byte :data:`DONE`. A file it cannot decode ends the run: one line on standard
error says why, and the exit code says how (:data:`BROKEN`, :data:`OUT_OF_MEMORY`).
Whatever a crafted file makes Arrow's decoder allocate, abort on or crash in, it does
so here, within the cap.
"""

from __future__ import annotations

import itertools
import os
import sys
from types import ModuleType
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pyarrow.parquet

#: Exit codes: a file Arrow refuses, and a file that needs more than the budget.
BROKEN, OUT_OF_MEMORY = 3, 4
#: The schema's metadata key holding the file's row count (its footer's).
ROWS_KEY = b"scorer.rows"
#: Written after each file's stream: the file was read to its end.
DONE = b"\x01"


def main(argv: list[str]) -> int:
    budget, batch_rows, paths = int(argv[0]), int(argv[1]), argv[2:]
    # Arrow's memory from the system allocator: freed memory goes back at once, so what
    # the decoder holds is what it uses; and no allocator reserves address space ahead
    # (mimalloc, pyarrow's default, reserves a gigabyte when Parquet is first read).
    os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "system"
    import pyarrow as pa
    import pyarrow.parquet as pq

    _cap_address_space(budget)
    try:
        return _decode(pa, pq, paths, batch_rows)
    except MemoryError:  # past the cap anywhere, even while saying why: no word, the code
        os._exit(OUT_OF_MEMORY)


def _decode(pa: ModuleType, pq: ModuleType, paths: list[str], batch_rows: int) -> int:
    """Each file's stream, then :data:`DONE`; the exit code."""
    sink = sys.stdout.buffer
    for path in paths:
        try:
            parquet = pq.ParquetFile(path)
            _check_chunks_apart(parquet.metadata, os.path.getsize(path))
            rows = str(parquet.metadata.num_rows).encode()
            # Dictionary columns are sent decoded: a dictionary's values that no row of
            # a batch uses never leave this process.
            schema = pa.schema(
                field.with_type(field.type.value_type)
                if pa.types.is_dictionary(field.type)
                else field
                for field in parquet.schema_arrow
            )
            with pa.ipc.new_stream(sink, schema.with_metadata({ROWS_KEY: rows})) as stream:
                for batch in parquet.iter_batches(batch_size=batch_rows, use_threads=False):
                    columns = [
                        column.dictionary_decode()
                        if pa.types.is_dictionary(column.type)
                        else column
                        for column in batch.columns
                    ]
                    stream.write_batch(pa.RecordBatch.from_arrays(columns, schema=schema))
            sink.write(DONE)
        except (MemoryError, pa.ArrowMemoryError) as exc:
            return _fail(OUT_OF_MEMORY, exc)
        except Exception as exc:
            return _fail(BROKEN, exc)
    sink.flush()
    return 0


def _check_chunks_apart(metadata: pyarrow.parquet.FileMetaData, size: int) -> None:
    """Refuse column chunks that share bytes or lie outside the file, as the footer
    states them: a writer stores each chunk once, and a crafted file whose row groups
    all point at the same large page would cost its size once per row group."""
    ranges = []
    for group in range(metadata.num_row_groups):
        row_group = metadata.row_group(group)
        for column in range(row_group.num_columns):
            chunk = row_group.column(column)
            # The chunk starts at its first page: its dictionary page, if it has one,
            # else its first data page (an offset of 0, as in an empty chunk, is none).
            offsets = [chunk.data_page_offset]
            if chunk.has_dictionary_page:
                offsets.append(chunk.dictionary_page_offset)
            start = min((offset for offset in offsets if offset), default=0)
            ranges.append((start, start + chunk.total_compressed_size))
    if any(start < 0 or end > size for start, end in ranges):
        raise ValueError("a column chunk that lies outside the file")
    ranges.sort()
    for (_, end), (start, _) in itertools.pairwise(ranges):
        if start < end:
            raise ValueError(f"column chunks that overlap (bytes {start} to {end} of the file)")


def _cap_address_space(budget: int) -> None:
    """Let the address space grow by ``budget`` bytes at most, and leave no core file
    when a crafted file crashes Arrow (Linux; elsewhere the cap is not available and
    the decoder runs without it)."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            held = int(statm.read().split()[0]) * resource.getpagesize()
    except (ImportError, OSError, ValueError):
        return
    resource.setrlimit(resource.RLIMIT_CORE, (0, resource.getrlimit(resource.RLIMIT_CORE)[1]))
    limit = held + budget
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        limit = min(limit, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _fail(code: int, exc: BaseException) -> int:
    message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    sys.stderr.write(message + "\n")
    sys.stderr.flush()
    return code


if __name__ == "__main__":
    del sys.path[0]  # this file's folder: no module of the package shadows another
    sys.exit(main(sys.argv[1:]))
