"""Read a CSV body whose lines all put their commas at the same places, without parsing it.

A submission written by ``to_csv`` from fixed-width ids (64-character customer ids,
ten 10-digit item ids per row) has every line the same length, with its commas at
the same places. Such a body is a byte matrix: each column is a fixed slice of every
line, copied out in one pass. A long submission (``customer_id,prediction,rank``)
is nearly one: every column but the last has the same width on every line, and only
the last (the rank, one or two digits) varies; its lines are found from their line
ends, and each column is then a fixed slice from each line's start (the last, what
remains of the line). The layout is proven byte for byte first, and then the
columns are exactly what the CSV parser would give (no quote, no other control
character, ASCII, so valid UTF-8); any other body returns ``None`` and goes to the
parser. Measured on an H&M-shaped submission: about twice as fast as parsing and
joining the parser's chunks, with half the fresh memory.

A caller that asks for ``runs`` gets a fixed-width column whose equal values come in
runs (a long file's row ids, each repeated on its lines side by side) run-end
encoded: each run's value once and where the run ends, not a copy of every line's.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from itertools import pairwise

import numpy as np
import pyarrow as pa

from scorer.arrays import (
    BLOCK_ROWS,
    byte_rows,
    parallel_all,
    parallel_map,
    rows_to_strings,
    run_end_encoded,
)

_SCAN_BYTES = 1 << 20
_SAMPLE_LINES = 1 << 16
_HEAD_BYTES = 1 << 16
_NEWLINE, _RETURN, _COMMA = ord("\n"), ord("\r"), ord(",")

#: The bytes of one field of some lines, given the lines (a slice or their indices).
_Rows = Callable[[slice | np.ndarray], np.ndarray]


def split_fixed_lines(
    body: np.ndarray,
    n_columns: int,
    min_lines: int = 1,
    before_copy: Callable[[int], None] | None = None,
    runs: bool = False,
    unquoted: bool = False,
) -> tuple[pa.Array, ...] | None:
    """The ``n_columns`` columns of a CSV body (the bytes after the header line) whose
    lines all have the same length, the same ending (LF or CRLF) and the same comma
    positions; ``None`` otherwise, or when it has fewer than ``min_lines`` lines.

    Returns ``large_string`` arrays, as the CSV parser would with every column read
    as a string and no NA conversion (with ``runs``, a column of long runs of equal
    values run-end encoded over them). ``before_copy``, if given, is called with the
    number of lines once the layout is proven, before any column is copied (it may
    raise to refuse the body). ``unquoted``: the caller has found no quote in the
    body, so none is looked for again.

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
        body, n_lines * ending, n_lines * len(commas), unquoted
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
    return tuple(
        _fixed_field(lambda which, a=a, b=b: lines[which, a:b], n_lines, runs)
        for a, b in zip(starts, stops, strict=True)
    )


def split_prefixed_lines(
    body: np.ndarray,
    n_columns: int,
    min_lines: int = 1,
    before_copy: Callable[[int], None] | None = None,
    runs: bool = False,
    unquoted: bool = False,
) -> tuple[pa.Array, ...] | None:
    """The ``n_columns`` columns of a CSV body whose lines all have their commas where
    the first line has them, counted from each line's start, and the same ending (LF
    or CRLF, the last line's too): every column but the last has one width, the last
    any. ``None`` for any other body, or one of fewer than ``min_lines`` lines;
    otherwise as :func:`split_fixed_lines`.

    Examples
    --------
    >>> body = np.frombuffer(b"u1,a,9\\nu1,b,10\\nu2,c,\\nu2,d,1\\n", dtype=np.uint8)
    >>> [c.to_pylist() for c in split_prefixed_lines(body, 3)]
    [['u1', 'u1', 'u2', 'u2'], ['a', 'b', 'c', 'd'], ['9', '10', '', '1']]
    >>> ids = split_prefixed_lines(body, 3, runs=True)[0]  # two runs of four lines
    >>> ids.values.to_pylist(), ids.run_ends.to_pylist()
    (['u1', 'u2'], [2, 4])
    >>> split_prefixed_lines(np.frombuffer(b"u1,a,9\\nu10,b,1\\n", np.uint8), 3) is None
    True
    """
    line_length = _first_line_length(body)
    if line_length < 2 or body[-1] != _NEWLINE:
        return None
    ending = 2 if line_length > 2 and body[line_length - 2] == _RETURN else 1
    commas = np.flatnonzero(body[:line_length] == _COMMA)
    if len(commas) != n_columns - 1 or not _head_holds_layout(body, commas, ending):
        return None  # (most other bodies are told from their first lines, unscanned)
    found = _scanned(body, line_ends=True, unquoted=unquoted)
    if found is None:
        return None
    newlines, n_controls, n_commas = found  # line i: after newlines[i], to newlines[i + 1]
    n_lines = len(newlines) - 1
    if n_lines < min_lines or (n_controls, n_commas) != (n_lines * ending, n_lines * len(commas)):
        return None
    if not _lines_hold_layout(body, newlines, commas, ending):
        return None
    if before_copy is not None:
        before_copy(n_lines)
    firsts = np.concatenate(([0], commas + 1))
    before = newlines[:-1]  # (a line's bytes counted from the newline before it)
    columns = [
        _fixed_field(_WindowRows(body, before, int(a) + 1, int(b - a)), n_lines, runs)
        for a, b in zip(firsts[:-1], commas, strict=True)
    ]
    return (*columns, _gathered(body, newlines, int(firsts[-1]), ending))


def _head_holds_layout(body: np.ndarray, commas: np.ndarray, ending: int) -> bool:
    """Whether the whole lines of the body's first 64 KiB hold the first line's layout.

    Examples
    --------
    >>> body = np.frombuffer(b"a,bc\\nd,e\\nfg,h\\n", dtype=np.uint8)
    >>> _head_holds_layout(body, np.array([1]), 1), _head_holds_layout(body[:10], np.array([1]), 1)
    (False, True)
    """
    head = body[:_HEAD_BYTES]
    newlines = np.concatenate(([-1], np.flatnonzero(head == _NEWLINE)))
    return _lines_hold_layout(head, newlines, commas, ending)


def _lines_hold_layout(
    body: np.ndarray, newlines: np.ndarray, commas: np.ndarray, ending: int
) -> bool:
    """Whether every line (after ``newlines[i]``, to its newline at ``newlines[i + 1]``;
    ``newlines[0]`` is -1) holds a comma at each of ``commas`` from its start and ends
    with ``ending`` bytes (with the body's count of commas and control bytes: no
    other), a chunk of lines at a time. A line of one column must hold a value (the
    parser skips an empty line).

    Examples
    --------
    >>> body = np.frombuffer(b"a,b\\nc,\\n,d\\n", dtype=np.uint8)
    >>> _lines_hold_layout(body, np.array([-1, 3, 6, 9]), np.array([1]), 1)
    False
    >>> _lines_hold_layout(body[:7], np.array([-1, 3, 6]), np.array([1]), 1)
    True
    """
    shortest = (int(commas[-1]) + 1 if len(commas) else 1) + ending - 1

    def chunk_holds(start: int) -> bool:
        bounds = newlines[start : start + BLOCK_ROWS + 1]
        first, last = bounds[:-1] + 1, bounds[1:]
        if (last - first < shortest).any():
            return False
        if ending == 2 and (body[last - 1] != _RETURN).any():
            return False
        return not any((body[first + position] != _COMMA).any() for position in commas)

    return parallel_all(chunk_holds, range(0, len(newlines) - 1, BLOCK_ROWS))


class _WindowRows:
    """The ``width`` bytes from byte ``starts[i] + offset`` for each line ``i`` asked for
    (a slice or their indices), as a matrix."""

    def __init__(self, body: np.ndarray, starts: np.ndarray, offset: int, width: int) -> None:
        self.starts, self.offset, self.width = starts, offset, width
        self.body = body

    def __call__(self, which: slice | np.ndarray) -> np.ndarray:
        return byte_rows(self.body, self.starts[which] + self.offset, self.width)


def _fixed_field(rows: _Rows, n_lines: int, runs: bool) -> pa.Array:
    """One fixed-width field of every line as strings; with ``runs``, run-end encoded
    when its values come in runs of two lines or more on average (judged first on a
    chunk of lines: a field without runs costs no pass to compare its values)."""
    if runs and 2 * len(_run_starts(rows, min(n_lines, _SAMPLE_LINES))) <= min(
        n_lines, _SAMPLE_LINES
    ):
        run_starts = _run_starts(rows, n_lines)
        if 2 * len(run_starts) <= n_lines:
            run_ends = np.append(run_starts[1:], n_lines)
            return run_end_encoded(run_ends, _copied(rows, n_lines, run_starts))
    return _copied(rows, n_lines)


def _copied(rows: _Rows, n_lines: int, lines: np.ndarray | None = None) -> pa.Array:
    """The field of the ``lines`` given (of all ``n_lines`` lines if none are) as
    strings, copied a chunk of lines at a time on two cores, with no index array of
    every line.

    Examples
    --------
    >>> matrix = np.frombuffer(b"abcdef", np.uint8).reshape(3, 2)
    >>> _copied(lambda which: matrix[which], 3, np.array([2, 0])).to_pylist()
    ['ef', 'ab']
    """
    n_rows = n_lines if lines is None else len(lines)
    width = rows(slice(0, 1)).shape[1] if n_lines else 0
    matrix = np.empty((n_rows, width), dtype=np.uint8)
    step = max(_SCAN_BYTES // max(width, 1), 1)

    def copy(start: int) -> None:
        which = slice(start, start + step) if lines is None else lines[start : start + step]
        matrix[start : start + step] = rows(which)

    parallel_map(copy, range(0, n_rows, step))
    return rows_to_strings(matrix)


def _run_starts(rows: _Rows, n_lines: int) -> np.ndarray:
    """The first line of each run of equal values among the first ``n_lines``,
    compared a chunk of lines at a time.

    Examples
    --------
    >>> values = np.frombuffer(b"aabbba", dtype=np.uint8).reshape(-1, 1)
    >>> _run_starts(lambda which: values[which], 6).tolist()
    [0, 2, 5]
    """
    width = rows(slice(0, 1)).shape[1] if n_lines else 0
    if width == 0:
        return np.zeros(min(n_lines, 1), dtype=np.int64)
    step = max(_SCAN_BYTES // width, 1)

    def starts_in(start: int) -> np.ndarray:
        first = max(start - 1, 0)  # a chunk's first line is compared with the line before
        words = _as_words(rows(slice(first, min(start + step, n_lines))))
        found = np.flatnonzero(_differs_from_previous(words)) + (first + 1)
        return found if start else np.concatenate(([0], found))

    return np.concatenate(parallel_map(starts_in, range(0, n_lines, step)))


def _as_words(rows: np.ndarray) -> np.ndarray:
    """The rows of a byte matrix as rows of 8-byte words (zero-padded), so that rows
    are compared a word, not a byte, at a time.

    Examples
    --------
    >>> _as_words(np.frombuffer(b"abcdefghi", np.uint8).reshape(1, 9)).shape
    (1, 2)
    """
    n_rows, width = rows.shape
    if width % 8:
        padded = np.zeros((n_rows, width + 8 - width % 8), dtype=np.uint8)
        padded[:, :width] = rows
        rows = padded
    return np.ascontiguousarray(rows).view(np.uint64)


def _differs_from_previous(words: np.ndarray) -> np.ndarray:
    """Whether each row of a word matrix but the first differs from the row before.

    Examples
    --------
    >>> _differs_from_previous(np.array([[1, 2], [1, 2], [1, 3]], np.uint64)).tolist()
    [False, True]
    """
    if words.shape[1] > 8:
        return (words[1:] != words[:-1]).any(axis=1)
    differs = np.zeros(len(words) - 1, dtype=bool)
    for column in words.T:  # at most 8: a word column at a time beats a 2-D any()
        differs |= column[1:] != column[:-1]
    return differs


def _gathered(body: np.ndarray, newlines: np.ndarray, offset: int, ending: int) -> pa.Array:
    """The last field of each line (after ``newlines[i]``, to ``newlines[i + 1]``), from
    its byte ``offset`` to its ``ending`` bytes, as a ``large_string`` array, gathered
    a chunk of bytes (or lines) at a time. ``newlines`` is consumed: its memory
    becomes the array's offsets (no other array of every line is made).

    Examples
    --------
    >>> body = np.frombuffer(b"a,xy\\nb,z\\nc,\\n", dtype=np.uint8)
    >>> _gathered(body, np.array([-1, 4, 8, 11]), 2, 1).to_pylist()
    ['xy', 'z', '']
    """
    n_lines, rest = len(newlines) - 1, offset + ending  # rest: a line's other bytes
    offsets = newlines

    def to_offsets(start: int) -> None:
        chunk = offsets[start : start + BLOCK_ROWS]  # newline i + 1 less i lines' rest
        chunk += 1
        chunk -= np.arange(start, start + len(chunk)) * rest

    parallel_map(to_offsets, range(0, n_lines + 1, BLOCK_ROWS))
    values = np.empty(int(offsets[-1]), dtype=np.uint8)
    by_bytes = np.searchsorted(offsets, np.arange(0, offsets[-1], _SCAN_BYTES))
    by_lines = np.append(np.arange(0, n_lines, BLOCK_ROWS), n_lines)

    def gather(bounds: tuple[int, int]) -> None:
        a, b = bounds
        firsts = offsets[a:b] + (np.arange(a, b) * rest + offset)  # (newline before + 1)
        widths = offsets[a + 1 : b + 1] - offsets[a:b]
        values[offsets[a] : offsets[b]] = _field_bytes(body, firsts, widths)

    parallel_map(gather, pairwise(np.union1d(by_bytes, by_lines)))
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(values)]
    return pa.Array.from_buffers(pa.large_string(), n_lines, buffers)


def _field_bytes(body: np.ndarray, firsts: np.ndarray, widths: np.ndarray) -> np.ndarray:
    """The ``widths[i]`` bytes of the body from byte ``firsts[i]``, concatenated: as
    rows of the widest's width masked, when those rows are few bytes more than the
    fields (short fields of like widths: ranks, scores), else byte by byte.

    Examples
    --------
    >>> body = np.frombuffer(b"abcdef", dtype=np.uint8)
    >>> _field_bytes(body, np.array([4, 0, 1]), np.array([2, 1, 0])).tobytes()
    b'efa'
    """
    widest = int(widths.max(initial=0))
    total = int(widths.sum())
    narrow = widest > 0 and widest * len(widths) <= 2 * total + len(widths)
    if narrow and int(firsts.max()) + widest <= len(body):  # (no row past the body's end)
        rows = byte_rows(body, firsts, widest)
        return rows[np.arange(widest) < widths[:, None]]
    where = np.repeat(firsts - np.cumsum(widths) + widths, widths)
    where += np.arange(total)
    return body[where]


def _first_line_length(body: np.ndarray) -> int:
    """Length of the first line, its newline included (0 without a newline)."""
    head = body[: 1 << 16]
    ends = np.flatnonzero(head == _NEWLINE)
    return int(ends[0]) + 1 if len(ends) else 0


def _only_layout_bytes(
    body: np.ndarray, n_controls: int, n_commas: int, unquoted: bool = False
) -> bool:
    """Whether the body is ASCII with exactly ``n_controls`` control characters (the
    line ends), ``n_commas`` commas and no quote (``unquoted``: known to hold none):
    one pass, in cache-sized slices."""
    found = _scanned(body, line_ends=False, unquoted=unquoted)
    return found is not None and found[1:] == (n_controls, n_commas)


def _scanned(
    body: np.ndarray, line_ends: bool, unquoted: bool = False
) -> tuple[np.ndarray, int, int] | None:
    """The body's control bytes and commas counted (and with ``line_ends``, where its
    newlines are, after -1, as if a newline came before the first line), slice by
    slice, two slices at a time; None at the first quote (not looked for if
    ``unquoted``) or byte that is not ASCII.

    Examples
    --------
    >>> ends, controls, commas = _scanned(np.frombuffer(b"a,b\\r\\nc\\n", np.uint8), True)
    >>> ends.tolist(), controls, commas
    ([-1, 4, 6], 3, 1)
    >>> _scanned(np.frombuffer(b'a,"b"\\n', np.uint8), True) is None
    True
    """
    refused = threading.Event()
    scratch = threading.local()  # each thread's flags, reused: no fresh memory per slice

    def count(test: np.ufunc, chunk: np.ndarray, byte: int) -> int:
        if getattr(scratch, "flags", None) is None:
            scratch.flags = np.empty(_SCAN_BYTES, dtype=bool)
        flags = scratch.flags[: len(chunk)]
        return int(np.count_nonzero(test(chunk, byte, out=flags)))

    def scan(start: int) -> tuple[np.ndarray | None, int, int] | None:
        chunk = body[start : start + _SCAN_BYTES]
        quoted = not unquoted and count(np.equal, chunk, ord('"'))
        if refused.is_set() or int(chunk.max()) >= 0x7F or quoted:
            refused.set()  # the chunks not yet scanned are not even looked at
            return None
        ends = np.flatnonzero(chunk == _NEWLINE) + start if line_ends else None
        return ends, count(np.less, chunk, 0x20), count(np.equal, chunk, _COMMA)

    found = parallel_map(scan, range(0, len(body), _SCAN_BYTES))
    if refused.is_set():
        return None
    controls = sum(chunk[1] for chunk in found)
    commas = sum(chunk[2] for chunk in found)
    if not line_ends:
        return np.zeros(0, dtype=np.int64), controls, commas
    ends = [chunk[0] for chunk in found]
    newlines = np.empty(1 + sum(map(len, ends)), dtype=np.int64)
    newlines[0] = -1
    if ends:
        np.concatenate(ends, out=newlines[1:])
    return newlines, controls, commas
