"""Items written as canonical decimal integers (OTTO's ``aid``s, most numeric ids),
coded by their value.

Two canonical decimal integers are equal strings exactly when they are equal numbers,
so such items are numbered through a table indexed by value: one gather per item, with
no print, sort or hash of any string (at OTTO's scale, 90 million predicted items,
the difference between matching polars and not: docs/performance.md). Canonical means
what Python's ``str(int(s)) == s`` means for a non-negative ``s``: ASCII digits only,
no sign, no leading zero (``"0"`` alone excepted). The items are Arrow's (split by
:class:`~scorer.align.item_lists.ListCells` a block of cells at a time), checked on
their bytes and read by Arrow's cast; any other token (``"007"``, ``"+7"``, ``"7.0"``)
sends the whole column to the join of strings
(:class:`~scorer.align.joins.StringIndex`), so the two never disagree.

The table holds one 4-byte entry per value up to the largest, so it is only made
when the largest value is below the number of tokens plus :data:`TABLE_MIN_ENTRIES`:
a few large ids (``"999999999"``) cost a pass over the tokens and then take the
string join, never a table a file could inflate.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import (
    BLOCK_ROWS,
    parallel_all,
    parallel_map,
    string_bytes,
    string_offsets,
    to_arrow,
    to_numpy,
)

#: The most digits a value read here has: every one fits an int32.
MAX_DIGITS = 9

#: The table of values always allowed, whatever the number of tokens (4 MiB).
TABLE_MIN_ENTRIES = 1 << 20

_DIGIT_ZERO, _DIGIT_NINE = ord("0"), ord("9")


def canonical_integers(strings: pa.Array) -> np.ndarray | None:
    """The values of ``strings`` (int32) when every one is a canonical decimal integer
    of at most :data:`MAX_DIGITS` digits; ``None`` otherwise (a null included).

    Read a block of strings at a time on the thread pool (:func:`read_canonical`);
    strings of another kind are known from the first block.

    Examples
    --------
    >>> canonical_integers(pa.array(["7", "0", "1234567"], pa.large_string()))
    array([      7,       0, 1234567], dtype=int32)
    >>> [canonical_integers(pa.array([text])) for text in ["007", "+7", "-7", "", "7 "]]
    [None, None, None, None, None]
    """
    if not (pa.types.is_string(strings.type) or pa.types.is_large_string(strings.type)):
        return None
    values = np.empty(len(strings), dtype=np.int32)

    def read_block(start: int) -> bool:
        block = strings.slice(start, BLOCK_ROWS)
        return read_canonical(block, values[start : start + len(block)])

    return values if parallel_all(read_block, range(0, len(strings), BLOCK_ROWS)) else None


def read_canonical(strings: pa.Array, out: np.ndarray) -> bool:
    """Write the values of ``strings`` into ``out`` (int32, as long) when every one is
    a canonical decimal integer of at most :data:`MAX_DIGITS` digits; else False.
    Checked on the bytes (digits only, no leading zero, one to nine of them), then
    read by Arrow's cast, which then cannot fail.

    Examples
    --------
    >>> out = np.zeros(2, np.int32)
    >>> read_canonical(pa.array(["12", "0"]), out), out.tolist()
    (True, [12, 0])
    >>> read_canonical(pa.array(["12", "03"]), out), read_canonical(pa.array(["1", None]), out)
    (False, False)
    """
    if strings.null_count or len(strings) != len(out):
        return False
    if len(strings) == 0:
        return True
    strings = strings.cast(pa.large_string())
    offsets = string_offsets(strings)
    lengths = np.diff(offsets)
    if lengths.min() < 1 or lengths.max() > MAX_DIGITS:
        return False
    raw = string_bytes(strings)
    if raw.min() < _DIGIT_ZERO or raw.max() > _DIGIT_NINE:
        return False
    if ((raw[offsets[:-1] - offsets[0]] == _DIGIT_ZERO) & (lengths > 1)).any():
        return False  # a leading zero
    out[:] = to_numpy(pc.cast(strings, pa.int32()))
    return True


def decimal_strings(values: np.ndarray) -> pa.Array:
    """Integers as their decimal strings (``large_string``): the tokens they were read
    from, when those were canonical.

    Examples
    --------
    >>> decimal_strings(np.array([12, 0, 7], np.int32)).to_pylist()
    ['12', '0', '7']
    """
    return pc.cast(to_arrow(np.ascontiguousarray(values)), pa.large_string())


def encode_values(values: np.ndarray) -> tuple[np.ndarray, pa.Array] | None:
    """The codes and dictionary of items known by their values (:func:`canonical_integers`):
    the distinct items in ascending order of value, each item's code its place among
    them; ``None`` when the largest value is too large for a table (at most the number
    of items plus :data:`TABLE_MIN_ENTRIES`).

    Examples
    --------
    >>> codes, dictionary = encode_values(np.array([12, 3, 12, 0], np.int32))
    >>> codes.tolist(), dictionary.to_pylist()
    ([2, 1, 2, 0], ['0', '3', '12'])
    """
    top = int(values.max(initial=-1))
    if top >= len(values) + TABLE_MIN_ENTRIES:
        return None
    seen = np.zeros(top + 1, dtype=bool)
    seen[values] = True
    code_of_value = np.cumsum(seen, dtype=np.int32)
    code_of_value -= 1
    return code_of_value[values], decimal_strings(np.flatnonzero(seen))


def integer_codes(values: np.ndarray, vocabulary: pa.Array) -> np.ndarray | None:
    """Item codes of items known by their values (:func:`canonical_integers`), when the
    values are small enough for a table.

    An item equal to a vocabulary item gets its index there (only the vocabulary's
    canonical decimal integers can equal one); any other item gets ``len(vocabulary)``
    plus its value: past the vocabulary, equal for equal items, as
    :func:`~scorer.align.rankings.build_rankings` needs. ``None`` when the items must
    take the join of strings.

    Examples
    --------
    >>> integer_codes(np.array([5, 12, 9, 5], np.int32), pa.array(["9", "5"]))
    array([ 1, 14,  0,  1], dtype=int32)
    >>> integer_codes(np.array([5, 7], np.int32), pa.array(["05", "x", "7"]))
    array([8, 2], dtype=int32)
    """
    vocabulary = vocabulary.cast(pa.large_string())
    canonical = to_numpy(pc.match_substring_regex(vocabulary, _CANONICAL), fill=False)
    known = to_numpy(pc.cast(vocabulary.filter(to_arrow(canonical)), pa.int32()))
    n_known = len(vocabulary)
    top = max(int(values.max(initial=-1)), int(known.max(initial=-1)))
    if top >= len(values) + n_known + TABLE_MIN_ENTRIES:
        return None
    table = np.arange(n_known, n_known + top + 1, dtype=np.int32)
    table[known] = np.flatnonzero(canonical).astype(np.int32)
    codes = np.empty(len(values), dtype=np.int32)

    def look_up(start: int) -> None:
        # Every value is within the table: "clip" changes nothing, and unlike the
        # default "raise" writes into ``out`` with no buffer of its own.
        stop = start + BLOCK_ROWS
        np.take(table, values[start:stop], out=codes[start:stop], mode="clip")

    parallel_map(look_up, range(0, len(values), BLOCK_ROWS))
    return codes


#: A canonical decimal integer of at most :data:`MAX_DIGITS` digits.
_CANONICAL = f"^(0|[1-9][0-9]{{0,{MAX_DIGITS - 1}}})$"
