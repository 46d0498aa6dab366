"""From string columns to integer matrices: split lists, align rows, encode items.

Everything here is Arrow compute or numpy over whole columns (or large chunks of
them); nothing loops over rows. Large columns of equally long strings (64-character
row ids, 10-digit item ids) take faster routes through 64-bit fingerprints of their
bytes, every match confirmed byte for byte, with the exact Arrow path as fallback.
It never decides whether an input is valid: :mod:`scorer.validate` does.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import to_arrow, to_numpy
from scorer.metrics import PAD


class SplitLists:
    """Whitespace-separated lists, flattened.

    Lists split from the fixed-width layout (every cell ``m`` tokens of ``w`` bytes
    joined by single spaces) keep a zero-copy byte view of their tokens instead of
    an Arrow array: most callers read the tokens from that view, and :attr:`tokens`
    is built from it only when asked for.

    Attributes
    ----------
    lengths : ndarray of int64, shape (n_rows,)
        Number of items in each row (0 for an empty or missing cell).
    tokens : pyarrow.Array
        All items, row after row, in list order.
    uniform : ndarray of uint8, shape (n_rows, m, w), or None
        The bytes of token ``j`` of row ``i`` at ``uniform[i, j]`` (a strided view of
        the cells), when the lists came from the fixed-width layout.
    """

    def __init__(
        self, lengths: np.ndarray, tokens: pa.Array | None = None, uniform: np.ndarray | None = None
    ) -> None:
        if (tokens is None) == (uniform is None):
            raise ValueError("give either the tokens or their fixed-width bytes")
        self.lengths = lengths
        self.uniform = uniform
        if tokens is not None:
            self.tokens = tokens

    @cached_property
    def tokens(self) -> pa.Array:
        """All items, row after row (built from :attr:`uniform` on first use)."""
        return _fixed_width_strings(np.ascontiguousarray(self.uniform).reshape(-1, self.width))

    @property
    def width(self) -> int:
        """Bytes per token in the fixed-width layout (0 otherwise)."""
        return 0 if self.uniform is None else self.uniform.shape[2]

    def head(self, n: int) -> pa.Array:
        """The first ``n`` tokens, without building all of them.

        Examples
        --------
        >>> split_lists(pa.array(["a b", "c"])).head(2).to_pylist()
        ['a', 'b']
        """
        if "tokens" in self.__dict__ or self.uniform is None:
            return self.tokens.slice(0, n)
        n_rows = -(-n // max(self.uniform.shape[1], 1))
        rows = np.ascontiguousarray(self.uniform[:n_rows]).reshape(-1, self.width)
        return _fixed_width_strings(rows[:n])

    def take(self, indices: np.ndarray) -> pa.Array:
        """The tokens at these flat positions, without building all of them.

        Examples
        --------
        >>> split_lists(pa.array(["a b", "c"])).take(np.array([2, 0])).to_pylist()
        ['c', 'a']
        """
        if "tokens" in self.__dict__ or self.uniform is None:
            return self.tokens.take(to_arrow(indices))
        rows, columns = np.divmod(indices, self.uniform.shape[1])
        return _fixed_width_strings(self.uniform[rows, columns])

    @property
    def row_of_token(self) -> np.ndarray:
        """The row each token comes from."""
        return np.repeat(np.arange(len(self.lengths), dtype=np.int64), self.lengths)

    @property
    def position_of_token(self) -> np.ndarray:
        """The 0-based rank of each token within its row."""
        starts = np.cumsum(self.lengths) - self.lengths
        return np.arange(int(self.lengths.sum()), dtype=np.int64) - np.repeat(starts, self.lengths)


def _fixed_width_strings(rows: np.ndarray) -> pa.Array:
    """A ``large_string`` array of the rows of a contiguous ``n x width`` byte matrix."""
    rows = np.ascontiguousarray(rows)
    offsets = np.arange(len(rows) + 1, dtype=np.int64) * rows.shape[1]
    return pa.Array.from_buffers(
        pa.large_string(), len(rows), [None, pa.py_buffer(offsets), pa.py_buffer(rows.reshape(-1))]
    )


# Python's str.split() also splits on these; Arrow's ascii splitter does not, and its
# utf8 splitter mishandles some of them at the end of a string (pyarrow 26).
_OTHER_WHITESPACE = (
    "[\\x{1c}-\\x{1f}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
    "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}]"
)


def split_lists(cells: pa.Array) -> SplitLists:
    """Split every cell on runs of whitespace, exactly as Python's ``str.split()``.

    Examples
    --------
    >>> lists = split_lists(pa.array([" a  b", None, "", "c\\u3000d\\te\\x1c", "f \\u3000"]))
    >>> lists.lengths
    array([2, 0, 0, 3, 1])
    >>> lists.tokens.to_pylist()
    ['a', 'b', 'c', 'd', 'e', 'f']
    >>> lists.position_of_token
    array([0, 1, 0, 1, 2, 0])
    """
    if _only_spaces(cells):
        uniform = _split_uniform(cells)
        if uniform is not None:
            return uniform
        nested = pc.split_pattern(cells, " ")
    else:
        if _may_hold_other_whitespace(cells):
            cells = pc.replace_substring_regex(cells, _OTHER_WHITESPACE, " ")
        nested = pc.ascii_split_whitespace(cells)
    lengths = to_numpy(pc.list_value_length(nested), fill=0).astype(np.int64)
    tokens = pc.list_flatten(nested)
    # Arrow keeps an empty token for leading or trailing whitespace and for an empty
    # cell, where str.split() keeps none: drop them (rarely needed, so checked first).
    empty = _empty_tokens(tokens)
    if empty.any():
        row_of_token = np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
        lengths = lengths - np.bincount(row_of_token[empty], minlength=len(lengths))
        tokens = tokens.filter(to_arrow(~empty))
    return SplitLists(lengths, tokens)


def _may_hold_other_whitespace(cells: pa.Array) -> bool:
    """True unless every byte is ASCII outside 0x1c-0x1f (a cheap scan of the raw bytes)."""
    if pc.all(pc.string_is_ascii(cells)).as_py() is False:
        return True
    raw = _value_bytes(cells)
    if raw is None:
        return True  # not a large_string array: let the regex decide
    return bool(np.count_nonzero((raw - np.uint8(0x1C)) < 4))


def _value_bytes(strings: pa.Array) -> np.ndarray | None:
    """A zero-copy view of the bytes of all values of a ``large_string`` array.

    Examples
    --------
    >>> bytes(_value_bytes(pa.array(["ab", "c", "d"], pa.large_string()).slice(1)))
    b'cd'
    """
    if not pa.types.is_large_string(strings.type):
        return None
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)
    start, stop = int(offsets[strings.offset]), int(offsets[strings.offset + len(strings)])
    data = strings.buffers()[2]
    if data is None:
        return np.zeros(0, dtype=np.uint8)
    return np.frombuffer(data, dtype=np.uint8)[start:stop]


def _split_uniform(cells: pa.Array) -> SplitLists | None:
    """Split many printable-ASCII cells that all hold ``m`` tokens of ``w`` bytes
    joined by single spaces (what ``" ".join`` of fixed-width ids writes).

    The layout is checked byte for byte (a space at every separator, none inside a
    token); the tokens are then a strided view of the cells: no copy, no search for
    separators. ``None`` for any other layout.
    """
    if len(cells) < _FIXED_WIDTH_MIN_ROWS:
        return None
    rows = fixed_width_bytes(cells)
    if rows is None:
        return None
    n_cells, cell_width = rows.shape
    first_space = bytes(rows[0]).find(b" ")
    width = cell_width if first_space < 0 else first_space
    n_tokens, remainder = divmod(cell_width + 1, width + 1)
    if width == 0 or remainder:
        return None
    step = max(_CHUNK_ROWS * 16 // cell_width, 1)
    for start in range(0, n_cells, step):
        chunk = rows[start : start + step]
        # Every separator is a space and there is no other space: tokens hold none.
        if n_tokens > 1 and not (chunk[:, width :: width + 1] == ord(" ")).all():
            return None
        if np.count_nonzero(chunk == ord(" ")) != len(chunk) * (n_tokens - 1):
            return None
    uniform = np.lib.stride_tricks.as_strided(
        rows, shape=(n_cells, n_tokens, width), strides=(cell_width, width + 1, 1), writeable=False
    )
    return SplitLists(np.full(n_cells, n_tokens, dtype=np.int64), uniform=uniform)


def _empty_tokens(tokens: pa.Array) -> np.ndarray:
    """Which tokens are empty, read from the offsets when possible (no int64 copy)."""
    if pa.types.is_large_string(tokens.type) and len(tokens):
        offsets = np.frombuffer(tokens.buffers()[1], dtype=np.int64)
        offsets = offsets[tokens.offset : tokens.offset + len(tokens) + 1]
        return offsets[1:] == offsets[:-1]
    return to_numpy(pc.binary_length(tokens), fill=0) == 0


def _only_spaces(cells: pa.Array) -> bool:
    """Whether every byte is printable ASCII, so the only whitespace is the space.

    Then splitting on single spaces and dropping empty tokens is exactly
    ``str.split()``, and several times faster than Unicode-aware splitting.
    """
    values = _value_bytes(cells) if len(cells) else None
    if values is None:
        return False
    return values.size == 0 or (int(values.min()) >= 0x20 and int(values.max()) < 0x80)


def first_index_of(values: pa.Array, candidates: pa.Array) -> np.ndarray:
    """For each value, the index of its first equal in ``candidates``, or -1.

    ``StringIndex(candidates).find(values)``: see :class:`StringIndex`.

    Examples
    --------
    >>> first_index_of(pa.array(["b", "x", "a", None]), pa.array(["a", "b", "a"]))
    array([ 1, -1,  0, -1])
    """
    return StringIndex(candidates).find(values)


_FIXED_WIDTH_MIN_ROWS = 50_000
_FINGERPRINT_MULTIPLIER = np.uint64(0x9E3779B97F4A7C15)


def fixed_width_bytes(strings: pa.Array) -> np.ndarray | None:
    """A zero-copy ``n x width`` byte view of strings that all have the same length.

    ``None`` when the array has nulls, is empty or has strings of different lengths.

    Examples
    --------
    >>> fixed_width_bytes(pa.array(["ab", "cd"], pa.large_string())).tolist()
    [[97, 98], [99, 100]]
    >>> fixed_width_bytes(pa.array(["ab", "c"], pa.large_string())) is None
    True
    """
    if not pa.types.is_large_string(strings.type) or len(strings) == 0 or strings.null_count:
        return None
    _, offsets_buffer, data_buffer = strings.buffers()
    offsets = np.frombuffer(offsets_buffer, dtype=np.int64)[
        strings.offset : strings.offset + len(strings) + 1
    ]
    start, stop = int(offsets[0]), int(offsets[-1])
    width, remainder = divmod(stop - start, len(strings))
    if width == 0 or remainder or data_buffer is None:
        return None
    for first in range(0, len(offsets), _CHUNK_ROWS):
        chunk = offsets[first : first + _CHUNK_ROWS]
        expected = np.arange(first, first + len(chunk), dtype=np.int64)
        expected *= width
        expected += start
        if not np.array_equal(chunk, expected):
            return None
    return np.frombuffer(data_buffer, dtype=np.uint8)[start:stop].reshape(len(strings), width)


def fingerprints(rows: np.ndarray) -> np.ndarray:
    """A 64-bit fingerprint of each row of an ``n x width`` byte matrix.

    Equal rows have equal fingerprints; unequal rows almost never do, so callers
    confirm every match with :func:`rows_equal`. Works in chunks to bound memory.

    Examples
    --------
    >>> rows = np.frombuffer(b"abcabdabc", dtype=np.uint8).reshape(3, 3)
    >>> prints = fingerprints(rows)
    >>> bool(prints[0] == prints[2]), bool(prints[0] == prints[1])
    (True, False)
    """
    result = np.zeros(len(rows), dtype=np.uint64)
    for start, stop in _blocks(len(rows)):
        block = result[start:stop]
        for word in _words(rows[start:stop]):
            block ^= word
            block *= _FINGERPRINT_MULTIPLIER
            block ^= block >> np.uint64(29)
    return result.view(np.int64)


def rows_equal(left: np.ndarray, right: np.ndarray, right_index: np.ndarray) -> bool:
    """Whether ``left[i] == right[right_index[i]]`` for every row ``i`` (in chunks).

    Examples
    --------
    >>> rows = np.frombuffer(b"abcabdabc", dtype=np.uint8).reshape(3, 3)
    >>> rows_equal(rows, rows, np.array([2, 1, 0])), rows_equal(rows, rows, np.array([1, 1, 0]))
    (True, False)
    """
    for start in range(0, len(left), _CHUNK_ROWS):
        stop = start + _CHUNK_ROWS
        if not _rows_match(left[start:stop], right, right_index[start:stop]).all():
            return False
    return True


def _rows_match(left: np.ndarray, right: np.ndarray, right_index: np.ndarray) -> np.ndarray:
    """Row by row, whether ``left[i] == right[right_index[i]]``."""
    same = np.ones(len(left), dtype=bool)
    right_words = _words(right)
    for start, stop in _blocks(len(left)):
        block, index = same[start:stop], right_index[start:stop]
        for left_word, right_word in zip(_words(left[start:stop]), right_words, strict=True):
            block &= left_word == right_word[index]
    return same


def _blocks(n_rows: int) -> list[tuple[int, int]]:
    """Row ranges small enough for every word pass over a range to stay in cache:
    the bytes of a row are read once from memory, however many words it has."""
    return [(start, min(start + _BLOCK_ROWS, n_rows)) for start in range(0, n_rows, _BLOCK_ROWS)]


_BLOCK_ROWS = 1 << 13
_CHUNK_ROWS = 1 << 20


def _words(rows: np.ndarray) -> list[np.ndarray]:
    """Columns of uint64 that together cover every byte of each row.

    For rows of 8 bytes or more these are zero-copy (unaligned) views of the bytes
    at offsets 0, 8, 16, ... and ``width - 8``; shorter rows are zero padded.
    """
    n_rows, width = rows.shape
    if width < 8 or rows.strides[1] != 1:
        padded = np.zeros((n_rows, -(-width // 8) * 8), dtype=np.uint8)
        padded[:, :width] = rows
        words = padded.view(np.uint64)
        return [words[:, column] for column in range(words.shape[1])]
    offsets = [*range(0, width - 8, 8), width - 8]
    return [rows[:, offset : offset + 8].view(np.uint64)[:, 0] for offset in offsets]


class StringIndex:
    """A hash index of a string column: built once, probed by several columns.

    A hash join: one pass over the indexed strings to build, one over the values to
    probe. Large columns of equally long strings (row ids such as 64-character
    hashes, item ids) take a faster route: 64-bit fingerprints of the raw bytes
    (computed once per column, and reused by every join the column takes part in)
    joined by a hash table built once, every match then confirmed byte for byte. A
    repeated string or any fingerprint collision falls back to the exact string join.

    Examples
    --------
    >>> index = StringIndex(pa.array(["a", "b", "a"]))
    >>> index.find(pa.array(["b", "x", "a", None]))
    array([ 1, -1,  0, -1])
    >>> index.first_of_self()
    array([0, 1, 0])
    """

    def __init__(self, strings: pa.Array) -> None:
        self.strings = strings
        self.rows = fixed_width_bytes(strings)

    def __len__(self) -> int:
        return len(self.strings)

    @cached_property
    def prints(self) -> np.ndarray:
        """The fingerprint of each string (fixed-width columns only)."""
        if self.rows is None:
            raise ValueError("only a fixed-width column has fingerprints")
        return fingerprints(self.rows)

    @cached_property
    def _print_set(self) -> pa.Array | None:
        """The fingerprints as an Arrow value set, or None when two are equal."""
        prints = to_arrow(self.prints)
        if len(pc.unique(prints)) != len(prints):
            return None  # repeated strings (or a collision): the exact join keeps the first
        return prints

    def _lookup(self, prints: np.ndarray) -> np.ndarray:
        """The index of each fingerprint in :attr:`_print_set` (-1 when absent), int32."""
        hit = pc.index_in(to_arrow(prints), value_set=self._print_set)
        return to_numpy(hit, fill=-1).reshape(prints.shape)

    def _fast(self, probe: StringIndex) -> bool:
        """Whether ``probe`` can be joined by fingerprints."""
        return (
            len(probe) >= _FIXED_WIDTH_MIN_ROWS
            and len(self) > 0
            and probe.rows is not None
            and self.rows is not None
            and probe.rows.shape[1] == self.rows.shape[1]
            and self._print_set is not None
        )

    def first_of_self(self, matches: np.ndarray | None = None) -> np.ndarray:
        """For each string, the index of its first occurrence in the column.

        ``matches``, when given, is :meth:`find` of this column in another index:
        strings that match different rows there are different strings, so when every
        string has its own match, no hash table of this column is needed.

        Examples
        --------
        >>> ids = StringIndex(pa.array(["b", "a", "b"]))
        >>> ids.first_of_self(), ids.first_of_self(np.array([1, 0, 2]))
        (array([0, 1, 0]), array([0, 1, 2]))
        """
        if matches is not None and _all_distinct(matches, int(matches.max(initial=-1)) + 1):
            return np.arange(len(self), dtype=np.int64)
        if self._fast(self):
            return np.arange(len(self), dtype=np.int64)  # unique fingerprints: unique strings
        return self.find(self.strings)

    def find(self, values: pa.Array | StringIndex, dtype: type = np.int64) -> np.ndarray:
        """For each value, the index of its first equal here, or -1.

        ``values`` may be a :class:`StringIndex`, whose fingerprints are then reused.
        """
        probe = values if isinstance(values, StringIndex) else StringIndex(values)
        if self._fast(probe):
            found = np.empty(len(probe), dtype=dtype)
            reuse = "prints" in probe.__dict__
            for start in range(0, len(probe), _CHUNK_ROWS):
                stop = start + _CHUNK_ROWS
                prints = probe.prints[start:stop] if reuse else None
                hit = self.match(probe.rows[start:stop], prints)
                if hit is None:
                    break
                found[start:stop] = hit
            else:
                return found
        found = pc.index_in(probe.strings, value_set=self.strings)
        return to_numpy(found, fill=-1).astype(dtype)

    def match(self, rows: np.ndarray, prints: np.ndarray | None = None) -> np.ndarray | None:
        """The index of each byte row's equal here (-1 when none); None on a collision.

        Only for a fixed-width index whose fingerprints are unique (see
        :meth:`find`); ``prints`` are the rows' fingerprints, if already computed.
        """
        if self.rows is None or rows.shape[1] != self.rows.shape[1] or self._print_set is None:
            return None
        hit = self._lookup(fingerprints(rows) if prints is None else prints)
        return hit if self._confirmed(rows, hit) else None

    def _confirmed(self, rows: np.ndarray, hit: np.ndarray) -> bool:
        """Whether every matched row equals its match byte for byte (no collision)."""
        unmatched = hit < 0
        # Rows without a match are compared with string 0 and their result ignored.
        same = _rows_match(rows, self.rows, np.where(unmatched, 0, hit))
        return bool((same | unmatched).all())

    def find_uniform(
        self, uniform: np.ndarray, row_of: np.ndarray | None = None
    ) -> np.ndarray | None:
        """:meth:`find` for every token of :attr:`SplitLists.uniform`, as a matrix.

        Returns the int32 ``rows x m`` matrix of indices (-1 when absent), row ``i``
        placed at ``row_of[i]`` when given (a permutation), or None when the
        fingerprint route does not apply (the caller then uses :meth:`find`).
        """
        n_rows, n_tokens, width = uniform.shape
        if (
            n_rows * n_tokens < _FIXED_WIDTH_MIN_ROWS
            or self.rows is None
            or width != self.rows.shape[1]
            or self._print_set is None
        ):
            return None
        found = np.empty((n_rows, n_tokens), dtype=np.int32)
        prints = np.empty((min(_CHUNK_ROWS, n_rows), n_tokens), dtype=np.int64)
        for start in range(0, n_rows, _CHUNK_ROWS):
            stop = min(start + _CHUNK_ROWS, n_rows)
            chunk = uniform[start:stop]
            for column in range(n_tokens):
                prints[: stop - start, column] = fingerprints(chunk[:, column])
            hit = self._lookup(prints[: stop - start])  # one lookup for the whole chunk
            for column in range(n_tokens):
                if not self._confirmed(chunk[:, column], hit[:, column]):
                    return None
            rows = slice(start, stop) if row_of is None else row_of[start:stop]
            found[rows] = hit
        return found


def encode(tokens: pa.Array) -> tuple[np.ndarray, pa.Array]:
    """Exactly ``pyarrow.compute.dictionary_encode``: codes in order of first appearance.

    Returns the int32 codes and the dictionary. Many equally long tokens (10-digit
    item ids) are encoded from byte fingerprints, each confirmed byte for byte.

    Examples
    --------
    >>> codes, dictionary = encode(pa.array(["b", "a", "b"], pa.large_string()))
    >>> codes.tolist(), dictionary.to_pylist()
    ([0, 1, 0], ['b', 'a'])
    """
    rows = fixed_width_bytes(tokens) if len(tokens) >= _FIXED_WIDTH_MIN_ROWS else None
    if rows is not None:
        codes = to_numpy(pc.dictionary_encode(to_arrow(fingerprints(rows))).indices)
        running = np.maximum.accumulate(codes)
        first = np.flatnonzero(np.concatenate(([True], running[1:] > running[:-1])))
        if rows_equal(rows, rows[first], codes):
            return codes.astype(np.int32), tokens.take(to_arrow(first))
    encoded = pc.dictionary_encode(tokens)
    return to_numpy(encoded.indices).astype(np.int32), encoded.dictionary


@dataclass(frozen=True)
class GroundTruth:
    """The solution's relevant sets as sorted integer keys.

    Attributes
    ----------
    vocabulary : pyarrow.Array
        Every distinct relevant item, once; an item's code is its index here.
    keys : ndarray of int64
        Sorted, unique ``user * len(vocabulary) + code`` for every relevant pair.
    n_relevant : ndarray of int64, shape (n_users,)
        ``|R_u|``, unique items only.
    n_duplicates : ndarray of int64, shape (n_users,)
        How many listed items repeated an earlier one in the same row.
    """

    vocabulary: pa.Array
    keys: np.ndarray
    n_relevant: np.ndarray
    n_duplicates: np.ndarray

    @classmethod
    def from_lists(cls, lists: SplitLists) -> GroundTruth:
        """Encode the split solution lists.

        Examples
        --------
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b a", "", "b"])))
        >>> truth.vocabulary.to_pylist(), truth.keys
        (['a', 'b'], array([0, 1, 5]))
        >>> truth.n_relevant, truth.n_duplicates
        (array([2, 0, 1]), array([1, 0, 0]))
        """
        n_users = len(lists.lengths)
        codes, vocabulary = encode(lists.tokens)
        keys = lists.row_of_token * max(len(vocabulary), 1) + codes
        # Rows are already in order, so the keys are nearly sorted: a stable sort
        # (timsort) takes a fraction of the time of a general sort or a hash.
        keys = np.sort(keys, kind="stable")
        if len(keys) > 1:
            keys = keys[np.concatenate(([True], keys[1:] != keys[:-1]))]
        users = keys // max(len(vocabulary), 1)
        n_relevant = np.bincount(users, minlength=n_users).astype(np.int64)
        return cls(vocabulary, keys, n_relevant, lists.lengths - n_relevant)

    def contains(self, users: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Whether each ``(user, code)`` pair is relevant.

        A code is an index in :attr:`vocabulary`; any other code (``-1`` padding, a
        code past the vocabulary for an item outside it) is never relevant.

        Examples
        --------
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> truth.contains(np.array([[0], [1]]), np.array([[1, 0, -1], [0, 1, 2]]))
        array([[ True,  True, False],
               [False,  True, False]])
        """
        codes = np.asarray(codes)
        valid = (codes >= 0) & (codes < len(self.vocabulary))
        if len(self.keys) == 0:
            return np.zeros(valid.shape, dtype=bool)
        probe = np.where(valid, users * max(len(self.vocabulary), 1) + codes, -1)
        position = np.minimum(np.searchsorted(self.keys, probe), len(self.keys) - 1)
        return valid & (self.keys[position] == probe)

    def contains_rows(self, codes: np.ndarray) -> np.ndarray:
        """:meth:`contains` for a ``users x width`` matrix whose row ``u`` is user ``u``.

        For a narrow matrix, each relevant pair is compared with its user's ``width``
        predictions (``width`` passes over the pairs, in memory order) instead of
        searching a sorted table once per prediction: several times faster.

        Examples
        --------
        >>> truth = GroundTruth.from_lists(split_lists(pa.array(["a b", "b"])))
        >>> truth.contains_rows(np.array([[1, 0, -1], [0, 1, 1]]))
        array([[ True,  True, False],
               [False,  True,  True]])
        """
        codes = np.asarray(codes)
        n_users, width = codes.shape
        if width > _DENSE_MAX_WIDTH or n_users != len(self.n_relevant):
            return self.contains(np.arange(n_users, dtype=np.int64)[:, None], codes)
        size = max(len(self.vocabulary), 1)
        pair_users = self.keys // size
        pair_codes = (self.keys - pair_users * size).astype(codes.dtype)
        result = np.zeros(codes.shape, dtype=bool)
        for rank in range(width):
            column = np.ascontiguousarray(codes[:, rank])
            hit = np.flatnonzero(column[pair_users] == pair_codes)
            result[pair_users[hit], rank] = True
        return result


_DENSE_MAX_WIDTH = 64


@dataclass(frozen=True)
class Rankings:
    """The submission as a ``users x width`` matrix, rows in solution order.

    Attributes
    ----------
    item_codes : ndarray of int32
        A code per predicted item, equal codes for equal items (to find repeats):
        its index in the ground-truth vocabulary, or for any other item a code
        past the vocabulary (never relevant); ``-1`` padding.
    lengths : ndarray of int64, shape (n_users,)
        Number of predictions scored per user (at most ``width``).
    n_known : int
        Size of the vocabulary: codes below it are vocabulary items.
    """

    item_codes: np.ndarray
    lengths: np.ndarray
    n_known: int

    @property
    def truth_codes(self) -> np.ndarray:
        """Each prediction's vocabulary index, ``-1`` when absent (padding included)."""
        return np.where(self.item_codes < self.n_known, self.item_codes, PAD)


def build_rankings(
    lists: SplitLists, user_of_row: np.ndarray, n_users: int, width: int, vocabulary: pa.Array
) -> Rankings:
    """Place each submission row's first ``width`` predictions in its user's row.

    Parameters
    ----------
    lists : SplitLists
        The split submission predictions, in submission row order.
    user_of_row : ndarray of int64
        The solution row of each submission row, ``-1`` for rows to leave out.
    n_users : int
        Number of solution rows.
    width : int
        Columns of the matrix (``k``, or less when every row is shorter).
    vocabulary : pyarrow.Array
        The ground-truth vocabulary (:attr:`GroundTruth.vocabulary`).

    Examples
    --------
    >>> lists = split_lists(pa.array(["x y x", "", "y"]))
    >>> r = build_rankings(lists, np.array([1, -1, 0]), 2, 3, pa.array(["y"]))
    >>> r.item_codes.tolist()
    [[0, -1, -1], [1, 0, 1]]
    >>> r.truth_codes.tolist()
    [[0, -1, -1], [-1, 0, -1]]
    >>> full = build_rankings(split_lists(pa.array(["x y", "y z"])), np.array([1, 0]), 2, 2,
    ...                       pa.array(["y"]))
    >>> full.item_codes.tolist(), full.truth_codes.tolist(), full.lengths.tolist()
    ([[0, 2], [1, 0]], [[0, -1], [-1, 0]], [2, 2])
    """
    index = StringIndex(vocabulary)
    kept_rows = user_of_row >= 0
    if _is_permutation(user_of_row, n_users) and width and (lists.lengths == width).all():
        # Every user has one full row (the usual case): the tokens already form a
        # matrix whose rows only need reordering.
        order = np.empty(n_users, dtype=np.int64)
        order[user_of_row] = np.arange(n_users, dtype=np.int64)
        matrix = None
        if lists.uniform is not None:  # looked up from the bytes, rows placed directly
            matrix = index.find_uniform(lists.uniform, user_of_row)
        if matrix is None:
            codes = index.find(lists.tokens, np.int32).reshape(-1, width)
            matrix = np.take(codes, order, axis=0)  # 3x faster than fancy indexing
        # Items outside the vocabulary, numbered in submission order.
        user, rank = np.nonzero(matrix < 0)
        if len(user):
            token = order[user] * width + rank
            sorter = np.argsort(token)
            matrix[user[sorter], rank[sorter]] = _unknown_codes(lists, token[sorter], index)
    else:
        codes = index.find(lists.tokens, np.int32)
        unknown = np.flatnonzero(codes < 0)
        if len(unknown):
            codes[unknown] = _unknown_codes(lists, unknown, index)
        matrix = np.full((n_users, width), PAD, dtype=np.int32)
        # Flat destination of every token: its user's row, at its rank.
        row_start = np.cumsum(lists.lengths) - lists.lengths
        destination = np.repeat(user_of_row * width - row_start, lists.lengths)
        destination += np.arange(len(destination), dtype=np.int64)
        if not kept_rows.all() or lists.lengths.max(initial=0) > width:
            keep = np.repeat(kept_rows, lists.lengths) & (
                destination - np.repeat(user_of_row * width, lists.lengths) < width
            )
            destination, codes = destination[keep], codes[keep]
        matrix.ravel()[destination] = codes
    lengths = np.zeros(n_users, dtype=np.int64)
    lengths[user_of_row[kept_rows]] = np.minimum(lists.lengths[kept_rows], width)
    return Rankings(matrix, lengths, len(vocabulary))


def _unknown_codes(lists: SplitLists, tokens: np.ndarray, vocabulary: StringIndex) -> np.ndarray:
    """Codes past the vocabulary, equal for equal items, for the tokens at these flat
    positions (all outside the vocabulary)."""
    return encode(lists.take(tokens))[0] + len(vocabulary)


def _is_permutation(user_of_row: np.ndarray, n_users: int) -> bool:
    """Whether every user appears exactly once in ``user_of_row``."""
    return len(user_of_row) == n_users and _all_distinct(user_of_row, n_users)


def _all_distinct(indices: np.ndarray, size: int) -> bool:
    """Whether ``indices`` (each meant to be in ``[0, size)``) are all valid and distinct.

    Examples
    --------
    >>> _all_distinct(np.array([2, 0, 1]), 3), _all_distinct(np.array([0, 0]), 2)
    (True, False)
    >>> _all_distinct(np.array([-1, 1]), 2), _all_distinct(np.array([], dtype=int), 0)
    (False, False)
    """
    if len(indices) == 0 or (indices < 0).any():
        return False
    seen = np.zeros(size, dtype=bool)
    seen[indices] = True
    return int(np.count_nonzero(seen)) == len(indices)
