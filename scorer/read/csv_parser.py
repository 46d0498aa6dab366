"""Parse a CSV file's text with pyarrow's reader: the options every parse uses, and the
parse in a process of its own for a run under a cap on its address space.

pyarrow's CSV parser ends the process (an abort: ``ValueOrDie called on an error: Out of
memory``, or ``Check failed`` on a buffer's resize, in its block parser) when an
allocation fails, where every other reader raises. An allocation fails only under a cap
on the address space (``ulimit -v``); there :mod:`scorer.read.files` runs this file as a
script (``python csv_parser.py PATH START COLUMNS BLOCK QUOTED OUTPUT``; the package
imports its options and constants). The script parses the text of ``PATH`` from byte
``START`` with the same options as a parse in the scorer's own process, and writes the
table to the file ``OUTPUT`` as an Arrow IPC stream, which the scorer maps: the
table is held in memory once, by the page cache, not copied from one process into the
other. A parse error ends it with one line on standard error and :data:`BROKEN`; out
of memory, with :data:`OUT_OF_MEMORY` or Arrow's abort, which the scorer reports as its
out-of-memory error. It imports only pyarrow, so that it starts in a fraction of the
package's import time.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import pyarrow as pa
import pyarrow.csv as pacsv

#: Exit codes: text the parser refuses, and a parse that ran out of memory.
BROKEN, OUT_OF_MEMORY = 3, 4


def parse_options(
    n_columns: int, block_size: int, quoted: bool, use_threads: bool
) -> dict[str, Any]:
    """The keyword arguments of :func:`pyarrow.csv.read_csv` for a file's lines after
    its header: ``n_columns`` columns of text, parsed ``block_size`` bytes at a time.

    Examples
    --------
    >>> options = parse_options(2, 1 << 20, quoted=False, use_threads=False)
    >>> pacsv.read_csv(pa.py_buffer(b"id,items\\n7,a b\\n"), **options).to_pylist()
    [{'column_0': '7', 'column_1': 'a b'}]
    """
    names = [f"column_{i}" for i in range(n_columns)]
    return {
        "read_options": pacsv.ReadOptions(
            use_threads=use_threads,
            column_names=names,
            skip_rows=1,
            # Small blocks keep the parser's working memory small: measured at H&M
            # scale, as fast as 64 MiB blocks or one block, and with the lowest peak
            # memory of the three.
            block_size=block_size,
        ),
        # Without a quote character no value can hold a newline, and the parser can
        # split blocks at any line end: a faster parse, same result.
        "parse_options": pacsv.ParseOptions(newlines_in_values=quoted),
        "convert_options": pacsv.ConvertOptions(
            column_types=dict.fromkeys(names, pa.large_string()),
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=True,
        ),
    }


def main(argv: list[str]) -> int:
    path, start, n_columns, block_size, quoted, output = argv
    # Arrow's memory from the system allocator, which maps no address space ahead of use.
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        with pa.memory_map(os.fsencode(path)) as mapped:
            mapped.seek(int(start))
            text = mapped.read_buffer()
            options = parse_options(int(n_columns), int(block_size), quoted == "1", False)
            table = pacsv.read_csv(pa.BufferReader(text), **options)
        del text
        with pa.OSFile(output, "wb") as sink, pa.ipc.new_stream(sink, table.schema) as writer:
            writer.write_table(table)
    except MemoryError:  # pyarrow's ArrowMemoryError too: no word, the code
        return OUT_OF_MEMORY
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        sys.stderr.write((str(exc).splitlines() or [type(exc).__name__])[0] + "\n")
        return BROKEN
    return 0


if __name__ == "__main__":
    del sys.path[0]  # this file's folder: no module of the package shadows another
    sys.exit(main(sys.argv[1:]))
