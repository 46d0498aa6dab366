"""Canonical decimal integers read from single-spaced cells' bytes, eight digits at a
time.

Each item's first eight bytes are loaded as one little-endian 64-bit word (a view of
the cells' bytes at every offset, gathered at the items' starts), the bytes past
the item are shifted out and replaced by leading ``"0"``s, every byte is checked
to be a digit, and the eight digits are combined in three multiplications, two
digits, then four, then eight at a time (the SWAR method of fast number parsers).
An item of nine or ten digits adds a second word, its last eight. No string of
any item is made and no byte is visited by Python.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from scorer.arrays import string_bytes, string_offsets, to_numpy

#: The most digits an item of at most ``2**31 - 1`` has.
MAX_ITEM_DIGITS = 10

_INT32_MAX = np.iinfo(np.int32).max
_SPACE = ord(" ")
_WORD = 8
_ASCII_ZEROS = np.uint64(0x3030303030303030)
#: For an item of ``n`` bytes: the shift that moves them to the top of the word.
_SHIFT_UP = np.array([8 * (_WORD - n) for n in range(_WORD + 1)], np.uint64)
_OVER_NINE = np.uint64(0x7676767676767676)
_HIGH_BITS = np.uint64(0x8080808080808080)
#: The smallest value of each number of digits without a leading zero.
_SMALLEST = np.array([0, 0] + [10 ** (n - 1) for n in range(2, MAX_ITEM_DIGITS + 1)], np.uint64)


def cell_integers(
    cells: pa.Array, out: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray] | None:
    """The number of items of each single-spaced cell (``large_string``; no space
    leading, trailing or doubled; an empty cell empty or null) and the values of all
    items in list order, written to ``out`` (a new int64 array when not given), when
    every item is a canonical decimal integer of at most ``2**31 - 1`` (ASCII
    digits, no leading zero, ``"0"`` alone excepted); ``None`` otherwise, when a
    cell is not single-spaced, or when ``out`` has room for another number of items.

    The items are read :data:`ITEMS_AT_ONCE` at a time: a cell of millions of items
    costs 17 bytes an item beside ``out``, and each step's words stay in cache.

    Examples
    --------
    >>> cells = pa.array(["12 7", None, "", "2147483647"], pa.large_string())
    >>> lengths, values = cell_integers(cells)
    >>> lengths.tolist(), values.tolist()
    ([2, 0, 0, 1], [12, 7, 2147483647])
    >>> [cell_integers(pa.array([t], pa.large_string())) for t in ["07", "1:", "2147483648"]]
    [None, None, None]
    """
    offsets, raw = string_offsets(cells), string_bytes(cells)
    cell_ends = offsets[1:] - offsets[0]
    filled = cell_ends > offsets[:-1] - offsets[0]
    if cells.null_count and (filled & ~to_numpy(cells.is_valid())).any():
        return None  # a null cell holding bytes: not what the lists' reader makes
    if (raw[cell_ends[filled] - 1] == _SPACE).any():
        return None  # a space after a cell's last item: not single-spaced
    lengths = np.zeros(len(cells), dtype=np.int64)
    marks = _item_marks(raw, cell_ends[filled]) if filled.any() else np.zeros(0, np.int64)
    last_of_cell = raw[marks] != _SPACE
    lengths[filled] = np.diff(np.flatnonzero(last_of_cell), prepend=-1)
    out = np.empty(len(marks), dtype=np.int64) if out is None else out
    if len(out) != len(marks):
        return None
    for first in range(0, len(marks), ITEMS_AT_ONCE):
        step = slice(first, first + ITEMS_AT_ONCE)
        item_ends = marks[step] + last_of_cell[step]
        item_starts = np.empty_like(item_ends)
        item_starts[0] = marks[first - 1] + 1 if first else 0
        np.add(marks[step][:-1], 1, out=item_starts[1:])
        widths = item_ends - item_starts
        if int(widths.min()) < 1 or int(widths.max()) > MAX_ITEM_DIGITS:
            return None
        values = _values(raw, item_starts, item_ends, widths)
        if values is None:
            return None
        out[step] = values
    return lengths, out


#: Items read at once by :func:`cell_integers` (their words: 2 MiB).
ITEMS_AT_ONCE = 1 << 18


def _item_marks(raw: np.ndarray, cell_ends: np.ndarray) -> np.ndarray:
    """Where each item ends in ``raw`` (the filled cells' bytes, one after the other,
    ending at ``cell_ends``): at the space after it, or at its cell's last byte. The
    next item starts one byte after either, so one pass finds both.

    Examples
    --------
    >>> raw = np.frombuffer(b"12 345 6", dtype=np.uint8)  # cells "12 3" and "45 6"
    >>> _item_marks(raw, np.array([4, 8])).tolist()
    [2, 3, 6, 7]
    """
    marked = raw == _SPACE
    marked[cell_ends - 1] = True  # a cell's last byte is never a space
    return np.flatnonzero(marked)


def _values(
    raw: np.ndarray, starts: np.ndarray, ends: np.ndarray, widths: np.ndarray
) -> np.ndarray | None:
    """The items' values (int64), ``None`` if a byte is not a digit, a value has a
    leading zero or is over ``2**31 - 1``; items of one to ten bytes."""
    long = widths > _WORD
    any_long = bool(long.any())
    head_widths = np.where(long, widths - _WORD, widths) if any_long else widths
    values, digits = _eight_digits(_words_at(raw, starts), head_widths)
    if any_long:
        where = np.flatnonzero(long)
        tails, tail_digits = _eight_digits(_words_at(raw, ends[where] - _WORD), _WORD)
        joined = values[where] * np.uint64(10**_WORD) + tails
        if not tail_digits.all() or int(joined.max()) > _INT32_MAX:
            return None
        values[where] = joined
    if not digits.all() or (values < _SMALLEST[widths]).any():
        return None
    return values.view(np.int64)


def _words_at(raw: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """The eight bytes from each position as a little-endian uint64 (its first byte
    lowest); bytes past the end of ``raw`` are zero. ``positions`` ascending."""
    if len(raw) < _WORD:
        raw = np.concatenate((raw, np.zeros(_WORD - len(raw), np.uint8)))
    last = len(raw) - _WORD
    # Every 8-byte run of the bytes, overlapping: a void dtype copies without alignment.
    runs = np.ndarray((last + 1,), dtype=np.dtype((np.void, _WORD)), buffer=raw, strides=(1,))
    words = runs[np.minimum(positions, last)].view("<u8")  # (5 times take's speed)
    late = int(np.searchsorted(positions, last, "right"))
    if late < len(positions):  # read from `last`: drop the bytes before the position
        words[late:] >>= ((positions[late:] - last) * 8).astype(np.uint64)
    return words


def _eight_digits(words: np.ndarray, widths: np.ndarray | int) -> tuple[np.ndarray, np.ndarray]:
    """The value of the first ``widths`` (1 to 8) bytes of each word (uint64, ``words``
    overwritten), and whether all of them are ASCII digits."""
    words ^= _ASCII_ZEROS  # a digit's byte becomes its value, 0 to 9; any other, more
    words <<= _SHIFT_UP[widths]  # the bytes past the item out, zeros (leading "0"s) in
    # A byte over 9 has its high bit set, or gets it once 0x76 is added.
    digits = ((words | (words + _OVER_NINE)) & _HIGH_BITS) == 0
    for multiplier, shift, mask in _COMBINE:
        words *= multiplier
        words >>= shift
        if mask is not None:
            words &= mask
    return words, digits


#: Adjacent digits combined in pairs, the pairs in fours, the fours in one value.
_COMBINE = (
    (np.uint64(10 * 256 + 1), np.uint64(8), np.uint64(0x00FF00FF00FF00FF)),
    (np.uint64(100 * 65536 + 1), np.uint64(16), np.uint64(0x0000FFFF0000FFFF)),
    (np.uint64(10000 * (1 << 32) + 1), np.uint64(32), None),
)
