"""numpy <-> Arrow for plain numbers, flags and byte rows, without pyarrow's pandas machinery.

``pa.array(ndarray)`` and ``Array.to_numpy()`` import pandas on first use (about
0.3 s, a tenth of an H&M-scale run), although no pandas object is involved. The
command line scores files without ever needing pandas, so the hot path converts
through these few functions instead: zero-copy views of Arrow buffers where the
layout allows, bit packing for booleans.
"""

from __future__ import annotations

import itertools
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

#: Rows a pass over a column takes at a time where a temporary per row would add to a
#: run's peak memory: large enough that the loop costs nothing, small enough that a
#: block's temporaries are a few MiB. Every input runs the same code, in one block or
#: in several.
BLOCK_ROWS = 1 << 18

_Item = TypeVar("_Item")
_Result = TypeVar("_Result")

_NUMPY_TYPES = {
    pa.int8(): np.int8,
    pa.int16(): np.int16,
    pa.int32(): np.int32,
    pa.int64(): np.int64,
    pa.uint8(): np.uint8,
    pa.uint16(): np.uint16,
    pa.uint32(): np.uint32,
    pa.uint64(): np.uint64,
    pa.float32(): np.float32,
    pa.float64(): np.float64,
}
_ARROW_TYPES = {np.dtype(kind): arrow for arrow, kind in _NUMPY_TYPES.items()}


def to_arrow(values: np.ndarray) -> pa.Array:
    """A one-dimensional numeric or boolean ndarray as an Arrow array (no nulls).

    Numbers are shared with numpy, not copied; booleans are packed into bits.

    Examples
    --------
    >>> to_arrow(np.array([3, -1])).to_pylist(), to_arrow(np.array([True, False])).to_pylist()
    ([3, -1], [True, False])
    """
    values = np.ascontiguousarray(values).reshape(-1)
    if values.dtype == np.bool_:
        bits = np.packbits(values, bitorder="little")
        return pa.Array.from_buffers(pa.bool_(), len(values), [None, pa.py_buffer(bits)])
    kind = _ARROW_TYPES.get(values.dtype)
    if kind is None:
        raise TypeError(f"no Arrow type for numpy {values.dtype}")
    return pa.Array.from_buffers(kind, len(values), [None, pa.py_buffer(values)])


def to_strings(texts: Sequence[str]) -> pa.Array:
    """A ``large_string`` Arrow array of Python strings (no nulls).

    Examples
    --------
    >>> to_strings(["Public", "", "é"]).to_pylist()
    ['Public', '', 'é']
    """
    encoded = [text.encode("utf-8") for text in texts]
    offsets = np.cumsum([0, *map(len, encoded)], dtype=np.int64)
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(b"".join(encoded))]
    return pa.Array.from_buffers(pa.large_string(), len(encoded), buffers)


def string_offsets(strings: pa.Array) -> np.ndarray | None:
    """The ``n + 1`` value offsets of a ``large_string`` array (a zero-copy view);
    None for any other type.

    Examples
    --------
    >>> string_offsets(pa.array(["ab", "c", "d"], pa.large_string()).slice(1))
    array([2, 3, 4])
    """
    if not pa.types.is_large_string(strings.type):
        return None
    buffer = strings.buffers()[1]
    if buffer is None:
        return np.zeros(len(strings) + 1, dtype=np.int64)
    offsets = np.frombuffer(buffer, dtype=np.int64)
    return offsets[strings.offset : strings.offset + len(strings) + 1]


def string_bytes(strings: pa.Array) -> np.ndarray | None:
    """The bytes of all values of a ``large_string`` array, one after the other (a
    zero-copy view); None for any other type.

    Examples
    --------
    >>> bytes(string_bytes(pa.array(["ab", "c", "d"], pa.large_string()).slice(1)))
    b'cd'
    """
    offsets = string_offsets(strings)
    if offsets is None:
        return None
    data = strings.buffers()[2]
    if data is None:
        return np.zeros(0, dtype=np.uint8)
    return np.frombuffer(data, dtype=np.uint8)[int(offsets[0]) : int(offsets[-1])]


def longest_string(strings: pa.Array) -> int:
    """The length in bytes of the longest value (0 for none; nulls aside): from the
    offsets a chunk at a time for a ``large_string`` array without nulls, so that no
    length per string is ever made.

    Examples
    --------
    >>> longest_string(pa.array(["ab", "", None, "abc"], pa.large_string()))
    3
    >>> longest_string(pa.array(["ab"])), longest_string(pa.array([], pa.large_string()))
    (2, 0)
    """
    offsets = string_offsets(strings)
    if offsets is None or strings.null_count:  # (a null's offsets may span bytes)
        return int(pc.max(pc.binary_length(strings)).as_py() or 0)

    def longest_in(start: int) -> int:
        block = offsets[start : start + BLOCK_ROWS + 1]
        return int(np.subtract(block[1:], block[:-1]).max(initial=0))

    return max(parallel_map(longest_in, range(0, len(strings), BLOCK_ROWS)), default=0)


def byte_rows(data: np.ndarray, starts: np.ndarray, width: int) -> np.ndarray:
    """The ``width`` bytes of ``data`` (one-dimensional, contiguous bytes) from each of
    ``starts``, as the rows of a new array (shape ``starts.shape + (width,)``), every
    row within the data: each row is copied whole, as one record of a view of the data
    whose records start at every byte, where gathering the rows of a sliding window
    copies them byte by byte (two to three times slower).

    Examples
    --------
    >>> byte_rows(np.frombuffer(b"abcd", dtype=np.uint8), np.array([2, 0]), 2).tobytes()
    b'cdab'
    >>> byte_rows(np.frombuffer(b"ab", dtype=np.uint8), np.array([[1], [0]]), 1).shape
    (2, 1, 1)
    """
    starts = np.asarray(starts)
    if width == 0:
        return np.zeros((*starts.shape, 0), dtype=np.uint8)
    kind = np.dtype((np.void, width))
    records = np.ndarray((max(len(data) - width + 1, 0),), kind, buffer=data, strides=(1,))
    return records[starts].view(np.uint8).reshape(*starts.shape, width)


def holds_any_byte(data: np.ndarray, values: Sequence[int]) -> bool:
    """Whether any of the byte ``values`` occurs in ``data`` (uint8), a chunk of bytes
    at a time: a chunk whose bytes all lie above or all below ``values`` is passed by
    two reductions and no temporary, so that text without them (the usual case) costs
    no copy of its size.

    Examples
    --------
    >>> holds_any_byte(np.frombuffer(b"a b\\tc", dtype=np.uint8), b"\\n\\r")
    False
    >>> holds_any_byte(np.frombuffer(b"a\\rb", dtype=np.uint8), b"\\n\\r")
    True
    """
    wanted = np.zeros(256, dtype=bool)
    wanted[list(values)] = True
    low, high = min(values), max(values)
    step = BLOCK_ROWS * 16
    for start in range(0, len(data), step):
        chunk = data[start : start + step]
        if chunk.min() > high or chunk.max() < low:
            continue
        if wanted[chunk].any():
            return True
    return False


def empty_strings(strings: pa.Array, null_is_empty: bool = True) -> np.ndarray:
    """Whether each string is empty (a null counts as empty unless ``null_is_empty``
    is False): from the offsets a chunk at a time for a ``large_string`` array, so that
    no 8-byte length per string is ever made.

    Examples
    --------
    >>> strings = pa.array(["a", "", None], pa.large_string())
    >>> empty_strings(strings).tolist(), empty_strings(strings, null_is_empty=False).tolist()
    ([False, True, True], [False, True, False])
    """
    offsets = string_offsets(strings)
    if offsets is None:
        lengths = pc.binary_length(strings)
        return to_numpy(lengths, fill=0 if null_is_empty else 1) == 0
    empty = np.empty(len(strings), dtype=bool)
    for start in range(0, len(strings), BLOCK_ROWS):
        block = offsets[start : start + BLOCK_ROWS + 1]
        np.equal(block[1:], block[:-1], out=empty[start : start + len(block) - 1])
    if strings.null_count:
        valid = to_numpy(strings.is_valid())
        empty = empty | ~valid if null_is_empty else empty & valid
    return empty


def to_numpy(array: pa.Array, fill: float | bool | None = None) -> np.ndarray:
    """An Arrow array of numbers or booleans as an ndarray, each null set to ``fill``.

    Numbers without nulls are a read-only view of the Arrow buffer; anything else is
    a copy. ``fill`` is required when the array has nulls.

    Examples
    --------
    >>> to_numpy(pa.array([1, None, 3]), fill=-1)
    array([ 1, -1,  3])
    >>> to_numpy(pa.array([True, None, False]).slice(1), fill=True)
    array([ True, False])
    """
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    n, offset = len(array), array.offset
    validity, data = array.buffers()[:2]
    if pa.types.is_boolean(array.type):
        values = _bits(data, offset, n)
    else:
        kind = _NUMPY_TYPES.get(array.type)
        if kind is None:
            raise TypeError(f"not an Arrow array of numbers or booleans: {array.type}")
        values = (
            np.frombuffer(data, dtype=kind, count=offset + n)[offset:] if n else np.zeros(0, kind)
        )
    if array.null_count == 0:
        return values
    if fill is None:
        raise ValueError("the array has nulls: give a fill value")
    return np.where(_bits(validity, offset, n), values, values.dtype.type(fill))


def _bits(buffer: pa.Buffer, offset: int, n: int) -> np.ndarray:
    """Bits ``offset`` to ``offset + n`` of an Arrow bitmap, as booleans."""
    if n == 0:
        return np.zeros(0, dtype=bool)
    first, stop = offset // 8, -(-(offset + n) // 8)
    packed = np.frombuffer(buffer, dtype=np.uint8)[first:stop]
    start = offset - first * 8
    return np.unpackbits(packed, bitorder="little")[start : start + n].view(bool)


def is_view_type(kind: pa.DataType, name: str) -> bool:
    """Whether ``kind`` is Arrow's ``string_view`` or ``binary_view`` (``name`` is
    ``"string"`` or ``"binary"``): types pyarrow < 16 has no predicate for, nor makes.

    Examples
    --------
    >>> is_view_type(pa.string(), "string"), is_view_type(pa.binary(), "binary")
    (False, False)
    """
    predicate = getattr(pa.types, f"is_{name}_view", None)
    return predicate is not None and bool(predicate(kind))


def one_chunk(column: pa.ChunkedArray | pa.Array) -> pa.Array:
    """The column as one array: its lone chunk as it is, else its chunks combined (one
    copy), an empty array when it has none; an array as it is.

    Examples
    --------
    >>> one_chunk(pa.chunked_array([["a"], ["b"]])).to_pylist()
    ['a', 'b']
    """
    if not isinstance(column, pa.ChunkedArray):
        return column
    if column.num_chunks == 1:
        return column.chunk(0)
    return column.combine_chunks() if column.num_chunks else pa.array([], column.type)


def joined_strings(chunks: list[pa.Array]) -> pa.Array:
    """The ``large_string`` arrays of ``chunks`` (without nulls) as one array, each
    chunk copied to its place on the thread pool and its entry in the list set to None
    as soon as it is copied, so that the peak holds the joined array and the chunks not
    yet copied, never every chunk beside a whole copy (Arrow's concatenation holds them
    all). Any other chunks are combined by Arrow.

    Examples
    --------
    >>> chunks = [pa.array(["a", "bc"], pa.large_string()), pa.array(["", "d"], pa.large_string())]
    >>> joined_strings(chunks).to_pylist(), chunks
    (['a', 'bc', '', 'd'], [None, None])
    """
    if len(chunks) == 1 or any(
        c.null_count or not pa.types.is_large_string(c.type) for c in chunks
    ):
        joined = one_chunk(pa.chunked_array(chunks))
        chunks[:] = [None] * len(chunks)
        return joined
    rows = np.cumsum([0, *(len(chunk) for chunk in chunks)])
    positions = np.cumsum([0, *(len(string_bytes(chunk)) for chunk in chunks)])
    offsets = np.empty(int(rows[-1]) + 1, dtype=np.int64)
    offsets[0] = 0
    data = np.empty(int(positions[-1]), dtype=np.uint8)

    def copy(index: int) -> None:
        chunk, chunks[index] = chunks[index], None
        chunk_offsets = string_offsets(chunk)
        row, position = int(rows[index]), int(positions[index])
        shift = chunk_offsets[0] - position
        np.subtract(chunk_offsets[1:], shift, out=offsets[row + 1 : int(rows[index + 1]) + 1])
        data[position : int(positions[index + 1])] = string_bytes(chunk)

    parallel_map(copy, range(len(chunks)))
    buffers = [None, pa.py_buffer(offsets), pa.py_buffer(data)]
    return pa.Array.from_buffers(pa.large_string(), len(offsets) - 1, buffers)


def run_end_encoded(run_ends: np.ndarray, values: pa.Array) -> pa.Array:
    """A run-end encoded array of ``values``, run ``i`` ending (exclusive) at
    ``run_ends[i]``: made from its children, as pyarrow 14's ``from_arrays`` cannot.

    Examples
    --------
    >>> run_end_encoded(np.array([2, 3]), pa.array(["a", "b"])).to_pylist()
    ['a', 'a', 'b']
    """
    ends = to_arrow(np.ascontiguousarray(run_ends, dtype=np.int64))
    kind = pa.run_end_encoded(pa.int64(), values.type)
    length = int(run_ends[-1]) if len(run_ends) else 0
    return pa.RunEndEncodedArray.from_buffers(
        kind, length, [None], null_count=0, offset=0, children=[ends, values]
    )


def text_column(values: pa.Array | pa.ChunkedArray) -> pa.Array:
    """A string column as one ``large_string`` array, a missing cell as the empty string.

    Examples
    --------
    >>> text_column(pa.chunked_array([["a", None], ["b"]])).to_pylist()
    ['a', '', 'b']
    >>> text_column(pa.RunEndEncodedArray.from_arrays([2, 3], ["a", "b"])).to_pylist()
    ['a', 'a', 'b']
    """
    if isinstance(values, pa.ChunkedArray):
        values = values.combine_chunks()
    if pa.types.is_run_end_encoded(values.type):  # a file's column read as runs
        values = pc.run_end_decode(values)
    if not pa.types.is_large_string(values.type):
        values = values.cast(pa.large_string())
    return pc.fill_null(values, "") if values.null_count else values


def address_space_capped() -> bool:
    """Whether the process runs under a cap on its address space (``ulimit -v``).

    Examples
    --------
    >>> isinstance(address_space_capped(), bool)
    True
    """
    try:
        import resource
    except ImportError:  # not a POSIX system: no such cap
        return False
    return resource.getrlimit(resource.RLIMIT_AS)[0] != resource.RLIM_INFINITY


def _workers() -> int:
    """The threads the process's pool may start: one per core, none under a cap on the
    address space (``ulimit -v``), where each thread reserves megabytes of it for its
    stack and a thread the system cannot start ends some libraries (Arrow's thread
    pools) with an abort, where an allocation that fails is an error to report."""
    return 0 if address_space_capped() else os.cpu_count() or 1


#: Threads the process's one pool runs (:func:`thread_pool`): ``os.cpu_count()``, or 0
#: under a cap on the address space, where every task runs on the thread that asks
#: for it. Arrow's readers take the same choice (``use_threads=WORKERS > 0``).
WORKERS = _workers()


def search_sorted(haystack: np.ndarray, needles: np.ndarray, span: int | None = None) -> np.ndarray:
    """``np.searchsorted(haystack, needles)`` for integer needles spread over their whole
    range (int64 keyed prints), or with ``span`` over ``[0, span)`` (packed keys): the
    needles are searched in the order of their leading 16 bits (numpy's stable sort of a
    16-bit integer is a radix sort, linear time), so that each search starts near where
    the last one ended. Three to four times faster than searching them in the order
    given, and as fast as in sorted order, whose sort costs three times the searches;
    the order changes no position found.

    Examples
    --------
    >>> search_sorted(np.array([-5, 0, 7]), np.array([7, -9, 1, 0])).tolist()
    [2, 0, 2, 1]
    >>> search_sorted(np.array([2, 40, 41]), np.array([41, 0, 3]), span=50).tolist()
    [2, 0, 1]
    """
    if span is None:
        leading = (needles >> 48).astype(np.int16)
    else:
        leading = (needles >> max(int(span).bit_length() - 16, 0)).astype(np.uint16)
    order = np.argsort(leading, kind="stable")
    positions = np.empty(len(needles), dtype=np.intp)
    positions[order] = np.searchsorted(haystack, needles[order])
    return positions


def sort_with_order(values: np.ndarray) -> np.ndarray:
    """Sort int64 ``values`` in place and return the order that sorts them, equal values
    in the order given: ``np.argsort(values, kind="stable")`` (int32 below 2**31 values),
    for values spread over their whole range (keyed prints).

    One sort of the values with each one's index in place of its lowest bits (numpy's
    sort of int64 is several times faster than its argsort), then those bits put back, a
    block at a time: 0.48 s against 1.06 s for an argsort and a sort of five million
    prints. Values that differ only in those bits come out in the order given; the few
    such runs found out of order are sorted again on their own.

    Examples
    --------
    >>> values = np.array([7, -2, 7, 2**62, -(2**63), 6])
    >>> order = sort_with_order(values)
    >>> order.tolist(), bool((values == np.sort([7, -2, 7, 2**62, -(2**63), 6])).all())
    ([4, 1, 5, 0, 2, 3], True)
    """
    n = len(values)
    bits = max(n - 1, 1).bit_length()
    low_bits = (1 << bits) - 1
    low = np.empty(n, dtype=np.uint32 if bits <= 32 else np.int64)
    for start in range(0, n, BLOCK_ROWS):
        block = values[start : start + BLOCK_ROWS]
        np.bitwise_and(block, low_bits, out=low[start : start + len(block)], casting="unsafe")
        block &= ~low_bits
        block |= np.arange(start, start + len(block), dtype=np.int64)
    if not _rising(values):  # already rising (every value equal, say): no sort
        values.sort()
    order = np.empty(n, dtype=np.int32 if n < 2**31 else np.int64)
    for start in range(0, n, BLOCK_ROWS):
        block, placed = values[start : start + BLOCK_ROWS], order[start : start + BLOCK_ROWS]
        np.bitwise_and(block, low_bits, out=placed, casting="unsafe")
        block &= ~low_bits
        block |= low[placed]
    del low
    _sort_shared_runs(values, order, bits)
    return order


def _rising(values: np.ndarray) -> bool:
    """Whether ``values`` never fall, checked a block at a time (the first fall ends it).

    Examples
    --------
    >>> _rising(np.array([1, 1, 2])), _rising(np.array([2, 1])), _rising(np.array([]))
    (True, False, True)
    """
    last = len(values) - 1
    for start in range(0, max(last, 0), BLOCK_ROWS):
        stop = min(start + BLOCK_ROWS, last)
        if not np.all(values[start + 1 : stop + 1] >= values[start:stop]):
            return False
    return True


def _sort_shared_runs(values: np.ndarray, order: np.ndarray, bits: int) -> None:
    """Put in value order (then in index order) each run of ``values`` that share all
    but their lowest ``bits`` bits and are out of order: the values are in order of
    those other bits, and within a run in index order."""
    out_of_order = np.flatnonzero(values[1:] < values[:-1])
    if not len(out_of_order):
        return
    low_bits = (1 << bits) - 1
    floors = np.unique(values[out_of_order] >> bits) << bits
    # A run is the values from its floor to its floor plus low_bits: before it, every
    # value is smaller, after it, larger, so a binary search finds its bounds.
    firsts = np.searchsorted(values, floors, "left")
    lengths = np.searchsorted(values, floors | low_bits, "right") - firsts
    starts = offsets_of(lengths)
    at = np.repeat(firsts - starts[:-1], lengths) + np.arange(starts[-1])
    # Stable: equal values stay in index order; each run's values lie between the
    # runs before and after it, so every value stays within its run.
    resorted = at[np.argsort(values[at], kind="stable")]
    values[at], order[at] = values[resorted], order[resorted]


def lexicographic_order(*keys: np.ndarray) -> np.ndarray:
    """The stable order of rows sorted by integer ``keys``, the first most significant:
    ``np.lexsort(keys[::-1])``. Each key is sorted in turn, least significant first,
    as a uint16 when its values span fewer than 2**16 (numpy's stable sort of 16-bit
    integers is a radix sort: linear time, where an int64 one is a merge sort).

    Examples
    --------
    >>> lexicographic_order(np.array([1, 0, 1, 0]), np.array([0, 5, -3, 2**40])).tolist()
    [1, 3, 2, 0]
    """
    order = np.arange(len(keys[0]) if keys else 0, dtype=np.intp)
    for key in reversed(keys):
        ordered = key[order]
        low, high = (int(ordered.min()), int(ordered.max())) if len(ordered) else (0, 0)
        if high - low < 2**16:
            ordered = (ordered - low).astype(np.uint16)
        order = order[np.argsort(ordered, kind="stable")]
    return order


#: The first n bytes of a big-endian 64-bit word, for n = 0 to 8.
_FIRST_BYTES = np.array([(2**64 - 1) ^ (2 ** (64 - 8 * n) - 1) for n in range(9)], np.uint64)


def byte_order(strings: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """The indices that put ``strings`` (no nulls) in byte order, equal strings in the
    order given: ``pc.sort_indices(strings)`` (int64). Every string's first 8 bytes, as
    a big-endian integer (zeros past its end), order all of them at once; only the
    strings whose 8 bytes another shares are then compared whole (Arrow's sort of those
    alone, whose order fills their places). Four times faster on 1.37 million row ids
    of 64 bytes; a third slower when every string shares its first 8 bytes.

    Examples
    --------
    >>> byte_order(pa.array(["b", "ab", "a", "abcdefgh2", "abcdefgh1", "b"])).tolist()
    [2, 1, 4, 3, 0, 5]
    """
    if strings.null_count:
        raise ValueError("byte_order() takes strings without nulls")
    strings = one_chunk(strings).cast(pa.large_string())
    offsets, data = string_offsets(strings), string_bytes(strings)
    starts, lengths = offsets[:-1] - offsets[0], np.diff(offsets)
    tail_start = max(len(data) - 8, 0)
    if len(data) >= 8:  # every row's 8 bytes, the last rows' read from the tail below
        heads = byte_rows(data, np.minimum(starts, tail_start), 8)
    else:
        heads = np.empty((len(starts), 8), dtype=np.uint8)
    near_end = np.flatnonzero(starts > len(data) - 8)  # rows that would run past the data
    tail = np.zeros(16, dtype=np.uint8)  # the last bytes, followed by zeros
    tail[: len(data) - tail_start] = data[tail_start:]
    heads[near_end] = byte_rows(tail, starts[near_end] - tail_start, 8)
    keys = heads.view(">u8")[:, 0].astype(np.uint64)
    keys &= _FIRST_BYTES[np.minimum(lengths, 8)]  # zeros past each string's end
    order = np.argsort(keys, kind="stable")
    shared = np.zeros(len(keys), dtype=bool)
    same_as_next = keys[order[1:]] == keys[order[:-1]]
    shared[1:] |= same_as_next
    shared[:-1] |= same_as_next
    tied = order[shared]  # runs of equal keys, each in the order given
    if len(tied):
        order[shared] = tied[to_numpy(pc.sort_indices(strings.take(to_arrow(tied))))]
    return order.astype(np.int64)


def run_starts_of(keys: np.ndarray) -> np.ndarray:
    """The first position of each run of equal keys side by side (int64).

    Examples
    --------
    >>> run_starts_of(np.array([4, 4, 1, 4])).tolist(), run_starts_of(np.array([])).tolist()
    ([0, 2, 3], [])
    """
    starts_run = np.empty(len(keys), dtype=bool)
    starts_run[:1] = True
    np.not_equal(keys[1:], keys[:-1], out=starts_run[1:])
    return np.flatnonzero(starts_run)


def offsets_of(lengths: np.ndarray) -> np.ndarray:
    """Where each of consecutive runs of ``lengths`` starts, and where the last ends:
    ``n + 1`` int64 offsets from 0.

    Examples
    --------
    >>> offsets_of(np.array([2, 0, 3])).tolist()
    [0, 2, 2, 5]
    """
    offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    return offsets


def first_positions(keys: np.ndarray) -> np.ndarray:
    """For sorted ``keys``, each one's first position among the keys equal to it:
    ``np.searchsorted(keys, keys)`` in one pass over them (where that search cost
    several times as much).

    Examples
    --------
    >>> first_positions(np.array([0, 0, 2, 3, 3, 3])).tolist()
    [0, 0, 2, 3, 3, 3]
    >>> first_positions(np.array([], dtype=np.int64)).tolist()
    []
    """
    starts = run_starts_of(keys)
    return np.repeat(starts, np.diff(np.append(starts, len(keys))))


def parallel_map(function: Callable[[_Item], _Result], items: Iterable[_Item]) -> list[_Result]:
    """``function`` of each item, in order, spread over the process's one thread pool
    (:func:`thread_pool`: a worker per core) and the calling thread.

    For passes whose work is numpy's or Arrow's (both release the GIL), a block of
    rows an item, so that every core works while each block's temporaries stay small.
    The calling thread takes items too, one after the other, and waits only for items
    a worker has begun: a pass started on a worker (a leaderboard's submission read
    ahead) uses whichever worker is free, and never waits for the pool it runs on.
    The first failing item's exception, in their order, is raised here (on the pool,
    once every item has been called). An interrupt (any other ``BaseException``)
    stops the pass at once: no item begins after it, and it is raised once the items
    begun have ended.

    Examples
    --------
    >>> parallel_map(lambda start: start * 2, range(3))
    [0, 2, 4]
    """
    items = list(items)
    if len(items) < 2 or WORKERS < 2:
        return [function(item) for item in items]
    outcomes: list[tuple[bool, object]] = [(False, None)] * len(items)
    claims = itertools.count()  # each next() is one item's claim (atomic in CPython)
    stop = threading.Event()  # set when the pass ends early: no thread claims another item

    def take_items() -> None:
        try:
            for index in iter(claims.__next__, None):
                if index >= len(items) or stop.is_set():
                    return
                try:
                    outcomes[index] = (True, function(items[index]))
                except Exception as exc:  # raised below, in the items' order
                    outcomes[index] = (False, exc)
        except BaseException:  # an interrupt: no thread begins another item
            stop.set()
            raise

    helpers: list[Future[None]] = []
    try:
        for _ in range(min(WORKERS, len(items)) - 1):
            helpers.append(_on_the_pool(take_items))
        take_items()
    except BaseException:  # an interrupt, or a helper the system could not start
        stop.set()
        raise
    finally:
        for helper in helpers:
            if not helper.cancel():  # begun: it ends once its item does
                helper.result()
    for done, value in outcomes:
        if not done:
            raise value  # type: ignore[misc]
    return [value for _, value in outcomes]  # type: ignore[misc]


def parallel_all(check: Callable[[_Item], bool], items: Iterable[_Item]) -> bool:
    """Whether ``check`` holds for every item (:func:`parallel_map`): the first alone
    (most refusals show there), then the rest; once one fails, the items not yet
    begun are not looked at.

    Examples
    --------
    >>> seen = []
    >>> parallel_all(lambda item: seen.append(item) or item > 0, [0, 1, 2]), seen
    (False, [0])
    """
    items = list(items)
    failed = threading.Event()

    def checked(item: _Item) -> bool:
        if failed.is_set() or not check(item):
            failed.set()
            return False
        return True

    if items and not checked(items[0]):
        return False
    return all(parallel_map(checked, items[1:]))


def submit(function: Callable[..., _Result], *args: object) -> Future[_Result]:
    """Run ``function(*args)`` on the process's thread pool (:func:`thread_pool`); on
    this thread at once when the pool has no worker (:data:`WORKERS`) or this thread
    is one of its workers (a task never waits for the pool it runs on).

    A thread the system cannot start (no memory left for its stack) is a
    ``MemoryError``, as any other allocation that fails.

    Examples
    --------
    >>> submit(sum, [1, 2]).result()
    3
    """
    if _runs_here():
        done: Future[_Result] = Future()
        try:
            done.set_result(function(*args))
        except BaseException as exc:  # given to the caller by result(), as from a thread
            done.set_exception(exc)
        return done
    return _on_the_pool(function, *args)


def _on_the_pool(function: Callable[..., _Result], *args: object) -> Future[_Result]:
    """``function(*args)`` queued on the thread pool, whatever thread asks. When the
    pool cannot start a thread for it, the caller gets a ``MemoryError`` and the task,
    queued all the same, does nothing when a worker comes to it."""
    abandoned = threading.Event()

    def unless_abandoned() -> _Result | None:
        return None if abandoned.is_set() else function(*args)

    try:
        return thread_pool().submit(_as_worker, unless_abandoned)  # type: ignore[arg-type]
    except RuntimeError as exc:  # "can't start new thread"
        abandoned.set()
        raise MemoryError(f"no memory for a thread ({exc})") from exc


def ahead(function: Callable[..., _Result], *args: object) -> Future[_Result]:
    """``function(*args)``, wanted later, begun now on the process's thread pool
    (:func:`submit`); when it would run on this thread (the pool has no worker, or
    this thread is one), it runs when its result is first asked for instead, so that
    work done ahead never adds to what this thread holds meanwhile. Cancelled before
    then, it never runs.

    Examples
    --------
    >>> calls = []
    >>> later = ahead(calls.append, 1)
    >>> later.result(), calls
    (None, [1])
    """
    return _WhenAsked(function, args) if _runs_here() else _on_the_pool(function, *args)


def _runs_here() -> bool:
    """Whether work handed to the pool runs on this thread: the pool has no worker, or
    this thread is one."""
    return WORKERS == 0 or getattr(_in_pool, "worker", False)


class _WhenAsked(Future):
    """A future whose call runs on the thread that first asks for its result: for
    ``result()`` and ``cancel()`` from the one thread that made it (``wait()`` and
    ``exception()`` never run the call)."""

    def __init__(self, function: Callable[..., object], args: tuple) -> None:
        super().__init__()
        self._call = (function, args)

    def result(self, timeout: float | None = None) -> object:
        if not self.done() and self.set_running_or_notify_cancel():
            function, args = self._call
            try:
                self.set_result(function(*args))
            except BaseException as exc:  # given to the caller below, as from a thread
                self.set_exception(exc)
        return super().result(timeout)


def thread_pool() -> ThreadPoolExecutor:
    """The process's one thread pool: :data:`WORKERS` threads (one per core), made on
    first use and kept for the process's life.

    Examples
    --------
    >>> thread_pool() is thread_pool()
    True
    """
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_workers=max(WORKERS, 1), thread_name_prefix="scorer")
        return _POOL


def _as_worker(function: Callable[..., _Result], *args: object) -> _Result:
    """Call ``function`` marked as running on the pool (see :func:`submit`), the mark
    taken off once it returns."""
    was_worker = getattr(_in_pool, "worker", False)
    _in_pool.worker = True
    try:
        return function(*args)
    finally:
        _in_pool.worker = was_worker


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()
_in_pool = threading.local()
