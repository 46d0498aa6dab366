"""Fixed-width strings as 64-bit keys: byte views, fingerprints, a hash table.

Large columns of equally long strings (64-character row ids, 10-digit item ids)
are joined and compared through 64-bit fingerprints of their bytes instead of as
strings: several times faster, and exact, because every match found through a
fingerprint is confirmed byte for byte (:func:`rows_match`) before it is used.
:class:`KeyIndex` is the hash table those joins probe. Everything works on whole
arrays, in chunks that bound memory; nothing loops over rows.
"""

from __future__ import annotations

import secrets
import sys

import numpy as np
import pyarrow as pa

from scorer.arrays import CHUNK_ROWS, all_on_two_cores, byte_rows, string_bytes, string_offsets

FIXED_WIDTH_MIN_ROWS = 50_000
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
    offsets = string_offsets(strings)
    if offsets is None or len(strings) == 0 or strings.null_count:
        return None
    start, stop = int(offsets[0]), int(offsets[-1])
    width, remainder = divmod(stop - start, len(strings))
    if width == 0 or remainder:
        return None

    def regular(first: int) -> bool:
        chunk = offsets[first : first + CHUNK_ROWS]
        expected = np.arange(first, first + len(chunk), dtype=np.int64)
        expected *= width
        expected += start
        return np.array_equal(chunk, expected)

    if not all_on_two_cores(regular, range(0, len(offsets), CHUNK_ROWS)):
        return None
    return string_bytes(strings).reshape(len(strings), width)


def fingerprints(rows: np.ndarray) -> np.ndarray:
    """A 64-bit fingerprint of each row (last axis) of a byte array.

    Equal rows have equal fingerprints; unequal rows almost never do, so callers
    confirm every match with :func:`rows_equal`. Takes an ``n x width`` matrix, or
    an ``n x m x width`` array (``m`` strings per row, as in the fixed-width lists
    of :func:`scorer.align.item_lists.split_lists`) for an ``n x m`` result: one pass over
    each row's bytes for all its strings. Works in blocks of rows, in cache.

    Examples
    --------
    >>> rows = np.frombuffer(b"abcabdabc", dtype=np.uint8).reshape(3, 3)
    >>> prints = fingerprints(rows)
    >>> bool(prints[0] == prints[2]), bool(prints[0] == prints[1])
    (True, False)
    >>> bool((fingerprints(rows.reshape(1, 3, 3))[0] == prints).all())
    True
    """
    result = np.empty(rows.shape[:-1], dtype=np.uint64)
    for start, stop in _blocks(len(rows)):
        _mix(rows[start:stop], result[start:stop])
    return result.view(np.int64)


def short_fingerprints(rows: np.ndarray, order: np.ndarray | None = None) -> np.ndarray:
    """The low 32 bits of :func:`fingerprints` (int32), stored rank-major.

    For an ``n x m x width`` array, an ``m x n`` matrix: string ``j`` of every row
    contiguous. For an ``n x width`` matrix, ``n`` values. With ``order``, of
    ``rows[order]`` (gathered block by block, never as a whole).

    Only ever a filter: every equal pair found through them is compared byte for
    byte. Half the memory of the full fingerprints, made block by block in cache
    (no full-size 64-bit array, no reordered or transposed copy), and unequal
    strings still share one about once in four billion comparisons.

    Examples
    --------
    >>> rows = np.frombuffer(b"abcabdabc" b"abdabcabc", dtype=np.uint8).reshape(2, 3, 3)
    >>> short = short_fingerprints(rows)
    >>> short.shape, short.dtype
    ((3, 2), dtype('int32'))
    >>> bool((short == fingerprints(rows).T.astype(np.int32)).all())
    True
    >>> bool((short_fingerprints(rows, np.array([1, 0])) == short[:, ::-1]).all())
    True
    """
    n_rows = len(rows) if order is None else len(order)
    strings_per_row = rows.shape[1:-1]  # (m,) or ()
    result = np.empty((*strings_per_row, n_rows), dtype=np.int32)
    block_prints = np.empty((_BLOCK_ROWS, *strings_per_row), dtype=np.uint64)
    low_half = 0 if sys.byteorder == "little" else 1
    for start, stop in _blocks(n_rows):
        block = block_prints[: stop - start]
        _mix(rows[start:stop] if order is None else take_rows(rows, order[start:stop]), block)
        result[..., start:stop] = block.view(np.int32)[..., low_half::2].T
    return result


def take_rows(rows: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """``rows[indices]`` for a byte array whose rows are equally spaced spans of bytes
    (such as the strided token view of fixed-width lists): one copy of each row's
    span, where numpy's own fancy indexing copies a strided row byte by byte, over
    a hundred times slower.

    Examples
    --------
    >>> cells = np.frombuffer(b"ab cd|ef gh|", dtype=np.uint8).reshape(2, 6)
    >>> tokens = np.lib.stride_tricks.as_strided(cells, (2, 2, 2), (6, 3, 1))
    >>> bytes(take_rows(tokens, np.array([1, 1, 0])))
    b'efghefghabcd'
    """
    inner_strides = rows.strides[1:]
    if rows.ndim < 2 or rows.itemsize != 1 or rows.strides[-1] != 1 or min(inner_strides) < 0:
        return rows[indices]
    span = 1 + sum(
        (size - 1) * stride for size, stride in zip(rows.shape[1:], inner_strides, strict=True)
    )
    if span > rows.strides[0] or len(rows) == 0:
        return rows[indices]
    spans = np.lib.stride_tricks.as_strided(
        rows, (len(rows), span), (rows.strides[0], 1), writeable=False
    )
    taken = np.take(spans, indices, axis=0)
    return np.lib.stride_tricks.as_strided(
        taken, (len(indices), *rows.shape[1:]), (span, *inner_strides), writeable=False
    )


def take_strings(strings: np.ndarray, *indices: np.ndarray) -> np.ndarray:
    """``strings[indices]`` for a byte array whose last axis holds the contiguous
    bytes of one string (such as the strided token view of fixed-width lists): each
    string copied as one record, where numpy's fancy indexing of a strided view
    copies byte by byte, about three times slower. One index array per outer axis,
    every index in range and not negative.

    Examples
    --------
    >>> cells = np.frombuffer(b"ab cd|ef gh|", dtype=np.uint8).reshape(2, 6)
    >>> tokens = np.lib.stride_tricks.as_strided(cells, (2, 2, 2), (6, 3, 1))
    >>> [bytes(s) for s in take_strings(tokens, np.array([1, 0]), np.array([0, 1]))]
    [b'ef', b'cd']
    """
    width = strings.shape[-1] if strings.ndim else 0
    outer = strings.strides[:-1]
    if (
        strings.itemsize != 1
        or len(indices) != strings.ndim - 1
        or strings.size == 0
        or strings.strides[-1] != 1
        or min(outer, default=0) < 0
    ):
        return strings[indices]
    span = width + sum(
        (size - 1) * stride for size, stride in zip(strings.shape[:-1], outer, strict=True)
    )
    memory = np.lib.stride_tricks.as_strided(strings, (span,), (1,), writeable=False)
    starts = np.zeros(np.broadcast(*indices).shape, dtype=np.int64)
    for index, stride in zip(indices, outer, strict=True):
        starts += np.asarray(index, dtype=np.int64) * stride
    return byte_rows(memory, starts, width)


def _mix(
    rows: np.ndarray, out: np.ndarray, multiplier: np.uint64 | None = None, start: int = 0
) -> None:
    """Write the fingerprint of each row of a (cache-sized) block into ``out``: from
    ``start``, each word XORed in, then a multiplication and a shift."""
    multiplier = _FINGERPRINT_MULTIPLIER if multiplier is None else multiplier
    out.fill(start)
    for word in _words(rows):
        out ^= word
        out *= multiplier
        out ^= out >> np.uint64(29)


def print_key() -> tuple[int, int]:
    """A key for :func:`string_prints`: an odd multiplier and a start, drawn at random."""
    return secrets.randbits(64) | 1, secrets.randbits(64)


def string_prints(strings: pa.Array, key: tuple[int, int]) -> np.ndarray | None:
    """A 64-bit fingerprint of each string of a ``large_string`` array, under a key
    from :func:`print_key` (int64; a null's is arbitrary).

    Equal strings have equal prints; for unequal ones, whoever chose the strings
    cannot know which prints they get, so callers sort or search the prints (never
    a hash table of their own) and confirm every equal pair byte for byte. None for
    any other array type.

    Examples
    --------
    >>> prints = string_prints(pa.array(["ab", "abc", "ab", ""], pa.large_string()), print_key())
    >>> bool(prints[0] == prints[2]), len(set(prints.tolist()))
    (True, 3)
    """
    offsets = string_offsets(strings)
    if offsets is None:
        return None
    data = strings.buffers()[2]
    memory = np.frombuffer(data, dtype=np.uint8) if data is not None else np.zeros(0, np.uint8)
    return span_prints(memory, offsets[:-1], offsets[1:], key)


def span_prints(
    memory: np.ndarray, starts: np.ndarray, stops: np.ndarray, key: tuple[int, int]
) -> np.ndarray:
    """:func:`string_prints` of the strings ``memory[starts[i]:stops[i]]``.

    Strings are grouped by length (one group per distinct length, never a loop over
    strings) and each group's bytes hashed as a fixed-width matrix.

    Examples
    --------
    >>> memory, key = np.frombuffer(b"ab abc", np.uint8), print_key()
    >>> prints = span_prints(memory, np.array([0, 3, 3]), np.array([2, 5, 6]), key)
    >>> bool(prints[0] == prints[1]), bool(prints[1] == prints[2])
    (True, False)
    """
    multiplier, start = np.uint64(key[0]), key[1]
    prints = np.empty(len(starts), dtype=np.uint64)
    out = np.empty(_BLOCK_ROWS, dtype=np.uint64)
    # A chunk of strings at a time: no order or length of every string is ever held.
    for chunk_start in range(0, len(prints), CHUNK_ROWS):
        chunk_starts = starts[chunk_start : chunk_start + CHUNK_ROWS]
        lengths = stops[chunk_start : chunk_start + CHUNK_ROWS] - chunk_starts
        if len(lengths) and lengths.max() < 2**16:
            lengths = lengths.astype(np.uint16)  # a radix sort: linear time
        order = np.argsort(lengths, kind="stable")
        ordered = lengths[order]
        group_starts = np.flatnonzero(np.diff(ordered, prepend=-1))
        for first, last in zip(group_starts, [*group_starts[1:], len(order)], strict=True):
            width = int(ordered[first])
            # The length goes into the start, so strings of different lengths differ.
            seeded = start ^ (width * 0x9E3779B97F4A7C15 % 2**64)
            members = order[first:last]
            if width == 0:
                prints[members + chunk_start] = seeded
                continue
            for block_start in range(0, len(members), _BLOCK_ROWS):  # in cache
                block_members = members[block_start : block_start + _BLOCK_ROWS]
                block = out[: len(block_members)]
                rows = byte_rows(memory, chunk_starts[block_members], width)
                _mix(rows, block, multiplier, seeded)
                prints[block_members + chunk_start] = block
    return prints.view(np.int64)


def rows_equal(
    left: np.ndarray, right: np.ndarray, right_index: np.ndarray, same_prints: bool = False
) -> bool:
    """Whether ``left[i] == right[right_index[i]]`` for every row ``i`` (in chunks).

    ``same_prints`` as in :func:`rows_match`.

    Examples
    --------
    >>> rows = np.frombuffer(b"abcabdabc", dtype=np.uint8).reshape(3, 3)
    >>> rows_equal(rows, rows, np.array([2, 1, 0])), rows_equal(rows, rows, np.array([1, 1, 0]))
    (True, False)
    """
    for start in range(0, len(left), CHUNK_ROWS):
        chunk = slice(start, start + CHUNK_ROWS)
        if not rows_match(left[chunk], right, right_index[chunk], same_prints).all():
            return False
    return True


def rows_match(
    left: np.ndarray, right: np.ndarray, right_index: np.ndarray, same_prints: bool = False
) -> np.ndarray:
    """Row by row, whether ``left[i] == right[right_index[i]]``.

    With ``same_prints``, the caller knows each pair to have equal (64-bit)
    :func:`fingerprints`, and the last word of the rows is not compared: a
    fingerprint is a bijection of its last word XOR a state set by the other words,
    so rows equal but for the last word cannot have equal fingerprints.

    Examples
    --------
    >>> rows = np.frombuffer(b"abcdefghij" b"abcdefghiX" b"Abcdefghij", np.uint8).reshape(3, 10)
    >>> rows_match(rows, rows, np.array([0, 0, 0])).tolist()
    [True, False, False]
    """
    same = np.ones(len(left), dtype=bool)
    skip_last = same_prints and _FINGERPRINT_MULTIPLIER % 2  # odd: the mixing is a bijection
    for start, stop in _blocks(len(left)):
        # Whole rows gathered once (one random access per row), then compared in cache.
        right_rows = take_rows(right, right_index[start:stop])
        pairs = list(zip(_words(left[start:stop]), _words(right_rows), strict=True))
        block = same[start:stop]
        for left_word, right_word in pairs[:-1] if skip_last else pairs:
            block &= left_word == right_word
    return same


def first_of_strings(rows: np.ndarray) -> np.ndarray:
    """Mark the first occurrence of each string in each row of an ``n x m x width``
    byte array (as :func:`scorer.align.occurrences.first_occurrence` does for codes).

    Strings are compared by 64-bit fingerprints (contiguous rank columns), and only
    pairs with equal fingerprints byte for byte: every row may need this in a
    hostile file.

    Examples
    --------
    >>> rows = np.frombuffer(b"abcdefghij" b"abcdefghiX" b"abcdefghij", np.uint8)
    >>> first_of_strings(rows.reshape(1, 3, 10)).tolist()
    [[True, True, False]]
    """
    first = np.ones(rows.shape[:2], dtype=bool)
    columns = np.ascontiguousarray(fingerprints(rows).T)
    words = _words(rows)
    for later in range(1, rows.shape[1]):
        for earlier in range(later):
            same = np.flatnonzero(columns[later] == columns[earlier])
            for word in words:
                same = same[word[same, later] == word[same, earlier]]
            first[same, later] = False
    return first


def _blocks(n_rows: int) -> list[tuple[int, int]]:
    """Row ranges small enough for every word pass over a range to stay in cache:
    the bytes of a row are read once from memory, however many words it has."""
    return [(start, min(start + _BLOCK_ROWS, n_rows)) for start in range(0, n_rows, _BLOCK_ROWS)]


_BLOCK_ROWS = 1 << 13


def _words(rows: np.ndarray) -> list[np.ndarray]:
    """Arrays of uint64 that together cover every byte of each row (last axis).

    For rows of 8 bytes or more these are zero-copy (unaligned) views of the bytes
    at offsets 0, 8, 16, ... and ``width - 8``; shorter rows are zero padded.
    """
    width = rows.shape[-1]
    if width < 8 or rows.strides[-1] != 1:
        padded = np.zeros((*rows.shape[:-1], -(-width // 8) * 8), dtype=np.uint8)
        padded[..., :width] = rows
        words = padded.view(np.uint64)
        return [words[..., column] for column in range(words.shape[-1])]
    offsets = [*range(0, width - 8, 8), width - 8]
    return [rows[..., offset : offset + 8].view(np.uint64)[..., 0] for offset in offsets]


class KeyIndex:
    """A hash table of int64 keys, built and probed with whole-array numpy operations.

    Open addressing with linear probing in a table at most half full: each round of a
    build or a probe handles every pending key at once, and the keys still pending
    after a round (a slot taken by another key) are few, so a handful of rounds
    suffice. Measured at H&M scale: 1.4 million probes of 1.4 million keys in a
    third of the time Arrow's ``index_in`` needs, and no pandas import.

    Each table hashes with a multiplier of its own, odd and drawn at random: where a
    key lands never changes an answer, and nobody can craft keys (fingerprints of
    row ids a submission chooses) that pile into one slot and make a build take
    quadratic time.

    Parameters
    ----------
    keys : ndarray of int64
        The keys; key ``i`` is found as ``i``.
    multiplier : int, optional
        The hash multiplier instead of a random one (tests use 0: one slot for all).

    Attributes
    ----------
    unique : bool
        Whether the keys are distinct. If not, the table is left unbuilt and
        :meth:`find` may not be called.

    Examples
    --------
    >>> index = KeyIndex(np.array([7, -3, 12]))
    >>> index.unique, index.find(np.array([12, 5, 7, 7]))
    (True, array([ 2, -1,  0,  0], dtype=int32))
    >>> KeyIndex(np.array([4, 9, 4])).unique
    False
    """

    def __init__(self, keys: np.ndarray, multiplier: int | None = None) -> None:
        self.keys = np.ascontiguousarray(keys, dtype=np.int64)
        if multiplier is None:
            multiplier = secrets.randbits(64) | 1
        self._multiplier = np.uint64(multiplier)
        bits = max(int(2 * len(self.keys)).bit_length(), 4)
        self._shift = np.uint64(64 - bits)
        self._last_slot = (1 << bits) - 1
        self._owner = np.full(1 << bits, -1, dtype=np.int32)
        self.unique = self._insert()

    def _slots(self, keys: np.ndarray) -> np.ndarray:
        """The first slot of each key: the top bits of a multiplicative hash."""
        hashed = keys.view(np.uint64) * self._multiplier
        hashed >>= self._shift
        return hashed.view(np.int64)

    def _insert(self) -> bool:
        """Place every key; False as soon as two keys are equal."""
        slots = self._slots(self.keys)
        # First round, into an empty table: of the keys sharing a slot, one write wins.
        self._owner[slots] = np.arange(len(self.keys), dtype=np.int32)
        pending = np.flatnonzero(self._owner[slots] != np.arange(len(self.keys)))
        slots = slots[pending]
        while len(pending):
            owner = self._owner[slots]
            taken = owner >= 0
            if (self.keys[owner[taken]] == self.keys[pending[taken]]).any():
                return False
            free = ~taken
            claimants, claimed = pending[free], slots[free]
            self._owner[claimed] = claimants  # of equal slots, one write wins
            placed = np.zeros(len(pending), dtype=bool)
            placed[np.flatnonzero(free)[self._owner[claimed] == claimants]] = True
            # The losers of a claim try the same slot again (now taken: their winner
            # may be an equal key); keys that met another key move on.
            slots = np.where(taken, (slots + 1) & self._last_slot, slots)
            pending, slots = pending[~placed], slots[~placed]
        return True

    def find(self, probes: np.ndarray) -> np.ndarray:
        """The index of each probe among the keys, -1 when absent (int32)."""
        if not self.unique:
            raise ValueError("a KeyIndex of repeated keys cannot be probed")
        probes = np.ascontiguousarray(probes, dtype=np.int64).reshape(-1)
        found = np.empty(len(probes), dtype=np.int32)
        for start in range(0, len(probes), CHUNK_ROWS):
            chunk = probes[start : start + CHUNK_ROWS]
            found[start : start + len(chunk)] = self._find_chunk(chunk)
        return found

    def _find_chunk(self, probes: np.ndarray) -> np.ndarray:
        slots = self._slots(probes)
        found = self._owner[slots]
        if len(self.keys) == 0:
            return found
        # An empty slot (-1) reads the last key: whatever it holds, the answer is -1.
        mismatch = np.flatnonzero(self.keys[found] != probes)
        pending = mismatch[found[mismatch] >= 0]  # slot taken by another key: probe on
        found[pending] = -1
        slots = slots[pending]
        while len(pending):
            slots = (slots + 1) & self._last_slot
            owner = self._owner[slots]
            hit = (owner >= 0) & (self.keys[owner] == probes[pending])
            found[pending[hit]] = owner[hit]
            more = (owner >= 0) & ~hit
            pending, slots = pending[more], slots[more]
        return found
