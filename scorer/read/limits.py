"""What the readers share: the limits on one input (:class:`ReadLimits`), and the checks
and refusals every reader makes in the same words (:class:`FileChecks`).

The CSV and container reader (:mod:`scorer.read.files`) and the Parquet reader
(:mod:`scorer.read.parquet`) each refine :class:`FileChecks`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, fields
from typing import NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import longest_string, one_chunk
from scorer.errors import (
    HostVisibleError,
    Problem,
    ScorerError,
    example_row_numbers,
    format_count,
    raise_if_any,
)
from scorer.read.columns import StringTable

_MiB = 1 << 20
_GiB = 1 << 30
#: What a cell adds to the decoded size beside its text: its offset in the table.
OFFSET_BYTES = 8
#: The memory one part of a partitioned input may take when the number of parts is
#: chosen from the inputs' sizes (``--part-memory``: :mod:`scorer.adapters.parts`).
DEFAULT_PART_MEMORY = 2 * _GiB
#: The fix of every "too large" problem.
ASK_FOR_A_HIGHER_LIMIT = (
    "check that this is the right file; if it is, ask the host to raise the limit"
)


@dataclass(frozen=True)
class ReadLimits:
    """Upper bounds on what the scorer accepts from one input file.

    The defaults let an H&M-scale file through with room to spare (1.4 million
    rows, about 240 MB, lines of about 90 characters) and stop a hostile one
    before it costs memory. Each limit is a positive int.

    Parameters
    ----------
    max_input_bytes : int, default 1 GiB
        Size of the file as stored (compressed, for ``.gz``, ``.zip`` and Parquet).
    max_decompressed_bytes : int, default 1 GiB
        Size of the CSV text once decompressed (or of a Parquet file's data,
        uncompressed). A zip member declaring more is refused before it is
        read; a gzip stream is refused as soon as it passes the limit.
    max_line_bytes : int, default 1 MiB
        Length of one line of CSV, line ending excluded.
    max_field_bytes : int, default 512 KiB
        Length of one cell (UTF-8 bytes).
    max_columns : int, default 100
        Number of columns.
    max_compression_ratio : int, default 200
        Decompressed size over compressed size, for gzip and zip (checked once
        more than 1 MiB is out). Real CSV files compress up to about 50 to 1; a
        decompression bomb about 1000 to 1, so it is refused at once rather than
        at ``max_decompressed_bytes``.

    Examples
    --------
    >>> ReadLimits().max_input_bytes == 2**30
    True
    >>> ReadLimits(max_input_bytes=2**31).max_input_bytes
    2147483648
    >>> ReadLimits(max_columns=0)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'max_columns' limit must be an int ≥ 1. Got 0 instead.
    """

    max_input_bytes: int = _GiB
    max_decompressed_bytes: int = _GiB
    max_line_bytes: int = _MiB
    max_field_bytes: int = _MiB // 2
    max_columns: int = 100
    max_compression_ratio: int = 200

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise HostVisibleError(
                    f"The {item.name!r} limit must be an int ≥ 1. Got {value!r} instead."
                )


DEFAULT_LIMITS = ReadLimits()


@dataclass(frozen=True)
class FileChecks:
    """One input file's name, the error class its problems raise and its limits, with
    the refusals every reader shares."""

    name: str
    error: type[ScorerError]
    limits: ReadLimits

    def fail(self, *problems: Problem) -> NoReturn:
        raise_if_any(problems, self.error, f"The file {os.path.basename(self.name)!r}")
        raise RuntimeError("unreachable: raise_if_any raised")  # pragma: no cover

    def check_columns(self, count: int) -> None:
        limit = self.limits.max_columns
        if count > limit:
            self.fail(
                Problem(
                    "Too many columns",
                    f"at most {limit:,} columns",
                    f"{count:,} columns in the header",
                    "keep only the columns of the sample submission",
                )
            )

    def check_fields(self, table: StringTable) -> None:
        """Refuse a cell longer than ``max_field_bytes``, naming its column and rows."""
        limit = self.limits.max_field_bytes
        for name, column in zip(table.names, table.columns, strict=True):
            if isinstance(column, pa.ChunkedArray):
                if max(map(longest_string, column.chunks), default=0) <= limit:
                    continue
                column = one_chunk(column)  # a cell too long: its row is told
            runs = pa.types.is_run_end_encoded(column.type)
            if longest_string(column.values if runs else column) > limit:
                column = pc.run_end_decode(column) if runs else column
                self.refuse_long_cells(cell_lengths(column), name)

    def refuse_long_cells(self, lengths: np.ndarray, name: str) -> None:
        problem = too_long_problem(
            lengths,
            self.limits.max_field_bytes,
            "Cell too long",
            "cell",
            f" in column {name!r}",
            "check the column's content; if long cells are intended, "
            "ask the host to raise the cell limit",
            "data row numbers, 1 = first row after the header",
        )
        if problem:
            self.fail(problem)


def cell_lengths(column: pa.Array) -> np.ndarray:
    """Each cell's length in bytes (0 for a null)."""
    return pc.fill_null(pc.binary_length(column), 0).to_numpy(zero_copy_only=False)


def too_big(title: str, size: int, limit: int, what: str, more: bool = False) -> Problem:
    found = f"more than {limit:,} bytes" if more else f"{size:,} bytes"
    return Problem(title, f"at most {limit:,} bytes ({what})", found, ASK_FOR_A_HIGHER_LIMIT)


def too_long_problem(
    lengths: np.ndarray, limit: int, title: str, noun: str, where: str, fix: str, label: str
) -> Problem | None:
    """The problem of the ``noun``s (lines, cells) longer than ``limit``, if any."""
    too_long = lengths > limit
    if not too_long.any():
        return None
    return Problem(
        title,
        f"{noun}s of at most {limit:,} bytes",
        f"{format_count(int(too_long.sum()), noun)} longer{where}, "
        f"the longest {int(lengths.max()):,} bytes",
        fix,
        example_row_numbers(too_long),
        label,
    )
