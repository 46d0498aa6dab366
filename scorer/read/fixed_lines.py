"""Read a CSV body whose lines all have the same layout, without parsing it.

A submission written by ``to_csv`` from fixed-width ids (64-character customer ids,
ten 10-digit item ids per row) has every line the same length, with its commas at
the same places. Such a body is a byte matrix: each column is a fixed slice of every
line, copied out in one pass. The layout is proven byte for byte first, and then
the columns are exactly what the CSV parser would give (no quote, no other control
character, ASCII, so valid UTF-8); any other body returns ``None`` and goes to the
parser. Measured on an H&M-shaped submission: about twice as fast as parsing and
joining the parser's chunks, with half the fresh memory.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyarrow as pa

from scorer.arrays import rows_to_strings

_SCAN_BYTES = 1 << 20
_NEWLINE, _RETURN, _COMMA = ord("\n"), ord("\r"), ord(",")


def split_fixed_lines(
    body: np.ndarray,
    n_columns: int,
    min_lines: int = 1,
    before_copy: Callable[[int], None] | None = None,
) -> tuple[pa.Array, ...] | None:
    """The ``n_columns`` columns of a CSV body (the bytes after the header line) whose
    lines all have the same length, the same ending (LF or CRLF) and the same comma
    positions; ``None`` otherwise, or when it has fewer than ``min_lines`` lines.

    Returns ``large_string`` arrays, as the CSV parser would with every column read
    as a string and no NA conversion. ``before_copy``, if given, is called with the
    number of lines once the layout is proven, before any column is copied (it may
    raise to refuse the body).

    Examples
    --------
    >>> body = np.frombuffer(b"u1,a b\\nu2,c d\\nu3,,e\\n", dtype=np.uint8)
    >>> split_fixed_lines(body, 2) is None  # line 3 has its comma elsewhere
    True
    >>> ids, items = split_fixed_lines(np.frombuffer(b"u1,a b\\nu2,c d\\n", np.uint8), 2)
    >>> ids.to_pylist(), items.to_pylist()
    (['u1', 'u2'], ['a b', 'c d'])
    >>> [c.to_pylist() for c in split_fixed_lines(np.frombuffer(b"u1,a\\r\\n", np.uint8), 2)]
    [['u1'], ['a']]
    """
    line_length = _first_line_length(body)
    if line_length < 2 or len(body) % line_length or len(body) // line_length < min_lines:
        return None
    n_lines = len(body) // line_length
    lines = np.lib.stride_tricks.as_strided(
        body, (n_lines, line_length), (line_length, 1), writeable=False
    )
    ending = 2 if line_length > 2 and body[line_length - 2] == _RETURN else 1
    commas = np.flatnonzero(lines[0] == _COMMA)
    if len(commas) != n_columns - 1 or not _only_layout_bytes(
        body, n_lines * ending, n_lines * len(commas)
    ):
        return None
    # Every line ends as the first does and has its commas where the first has them;
    # with exactly that many line-end bytes and commas in all, no line has any other.
    for position in (*range(line_length - ending, line_length), *commas):
        if not (lines[:, position] == body[position]).all():
            return None
    if before_copy is not None:
        before_copy(n_lines)  # the layout is proven: the lines are known, nothing copied
    starts = np.concatenate(([0], commas + 1))
    stops = np.concatenate((commas, [line_length - ending]))
    return tuple(rows_to_strings(lines[:, a:b]) for a, b in zip(starts, stops, strict=True))


def _first_line_length(body: np.ndarray) -> int:
    """Length of the first line, its newline included (0 without a newline)."""
    head = body[: 1 << 16]
    ends = np.flatnonzero(head == _NEWLINE)
    return int(ends[0]) + 1 if len(ends) else 0


def _only_layout_bytes(body: np.ndarray, n_controls: int, n_commas: int) -> bool:
    """Whether the body is ASCII with exactly ``n_controls`` control characters (the
    line ends), ``n_commas`` commas and no quote: one pass, in cache-sized slices."""
    controls = commas = quotes = 0
    for start in range(0, len(body), _SCAN_BYTES):
        chunk = body[start : start + _SCAN_BYTES]
        if int(chunk.max()) >= 0x7F:
            return False
        controls += int(np.count_nonzero(chunk < 0x20))
        commas += int(np.count_nonzero(chunk == _COMMA))
        quotes += int(np.count_nonzero(chunk == ord('"')))
    return controls == n_controls and commas == n_commas and quotes == 0
