"""The parsing floor: read CSV files with pyarrow, every column as a string.

Imported by ``run.py`` for the in-process floor, and run as a script for the floor of
a fresh process (start-up, the pyarrow import and fresh memory included)::

    python benchmarks/floor.py SOLUTION SUBMISSION
"""

from __future__ import annotations

import sys

import pyarrow as pa
import pyarrow.csv as pacsv


def read_all(paths: list[str]) -> None:
    """Read each file, every column as a string, as the scorer's reader does."""
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            names = handle.readline().rstrip("\r\n").split(",")
        types = dict.fromkeys(names, pa.string())
        pacsv.read_csv(path, convert_options=pacsv.ConvertOptions(column_types=types))


if __name__ == "__main__":
    read_all(sys.argv[1:])
