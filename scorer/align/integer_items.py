"""Items written as canonical decimal integers (OTTO's ``aid``s, most numeric ids),
coded by their value instead of by their strings.

Two canonical decimal integers are equal strings exactly when they are equal
numbers, so such items can be coded through a table indexed by value: one gather
per item, with no sort, hash or print of any string. Canonical means what Python's
``str(int(s)) == s`` means for a non-negative ``s``: ASCII digits only, no sign, no
leading zero (``"0"`` alone excepted). Any other token (``"007"``, ``"+7"``,
``" 7"``, ``"7.0"``) sends the whole column to the string path
(:class:`~scorer.align.joins.StringIndex`), so the two paths never disagree.

The table holds one 4-byte entry per value up to the largest, so it is only made
when the largest value is below the number of tokens plus
:data:`TABLE_MIN_ENTRIES`: a few large ids (``"999999999"``) cost a pass over the
tokens and then take the string path, never a table a file could inflate.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.digit_words import cell_integers
from scorer.arrays import (
    CHUNK_ROWS,
    all_on_two_cores,
    on_two_cores,
    string_bytes,
    string_offsets,
    to_arrow,
    to_numpy,
)

#: Longer digit strings may not fit an int64.
MAX_DIGITS = 18

#: The table of values always allowed, whatever the number of tokens (4 MiB).
TABLE_MIN_ENTRIES = 1 << 20

_DIGIT_ZERO, _DIGIT_NINE = ord("0"), ord("9")


def canonical_integers(strings: pa.Array) -> np.ndarray | None:
    """The values of ``strings`` when every one is a canonical decimal integer of at
    most :data:`MAX_DIGITS` digits; ``None`` otherwise (a null included).

    Examples
    --------
    >>> canonical_integers(pa.array(["7", "0", "1234567"], pa.large_string()))
    array([      7,       0, 1234567])
    >>> [canonical_integers(pa.array([text])) for text in ["007", "+7", "-7", "", "7 "]]
    [None, None, None, None, None]
    """
    if strings.null_count:
        return None
    if pa.types.is_string(strings.type):
        strings = strings.cast(pa.large_string())
    offsets = string_offsets(strings)
    if offsets is None:
        return None
    if len(strings) == 0:
        return np.zeros(0, dtype=np.int64)
    raw = string_bytes(strings)
    lengths = np.diff(offsets)
    if lengths.min() < 1 or lengths.max() > MAX_DIGITS:
        return None
    if raw.min() < _DIGIT_ZERO or raw.max() > _DIGIT_NINE:
        return None
    leading_zero = (raw[offsets[:-1] - offsets[0]] == _DIGIT_ZERO) & (lengths > 1)
    if leading_zero.any():
        return None
    # Digits only, at most 18 of them: the cast cannot fail. Read through the buffer
    # (np.asarray of an Arrow array imports pandas on pyarrow 14, and two threads
    # importing it at once can meet a partly initialised module).
    return to_numpy(pc.cast(strings, pa.int64()))


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
    """The codes and dictionary of items known by their values (canonical decimal
    integers, as :func:`integer_values_of_cells` gives them): the distinct items in
    ascending order of value, each item's code its place among them; ``None`` when
    the largest value is too large for a table (at most the number of items plus
    :data:`TABLE_MIN_ENTRIES`), and the items' strings must be encoded instead.

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


def integer_codes(tokens: pa.Array, vocabulary: pa.Array) -> np.ndarray | None:
    """Item codes of ``tokens`` by value, when every token and every vocabulary item
    is a canonical decimal integer and the values are small enough for a table.

    A token in the vocabulary gets its index there; any other token gets
    ``len(vocabulary)`` plus its value: past the vocabulary, equal for equal items,
    as :func:`~scorer.align.rankings.build_rankings` needs. ``None`` when the tokens
    must take the string path.

    Parameters
    ----------
    tokens : pyarrow.Array
        The predicted items, any number.
    vocabulary : pyarrow.Array
        Distinct items (the ground truth's vocabulary).

    Returns
    -------
    ndarray of int32, or None

    Examples
    --------
    >>> integer_codes(pa.array(["5", "12", "9", "5"]), pa.array(["9", "5"]))
    array([ 1, 14,  0,  1], dtype=int32)
    >>> integer_codes(pa.array(["5", "05"]), pa.array(["5"])) is None
    True
    """
    known = canonical_integers(vocabulary)
    if known is None:
        return None
    largest = _largest_value(len(tokens), known)
    if largest is None:
        return None
    codes = np.empty(len(tokens), dtype=np.int32)

    def values_of_chunk(start: int) -> bool:
        """Write a chunk's values into ``codes``, unless one is refused (then False)."""
        values = canonical_integers(tokens.slice(start, CHUNK_ROWS))
        if values is None or int(values.max(initial=-1)) > largest:
            return False
        codes[start : start + len(values)] = values
        return True

    # Two chunks at a time (Arrow's cast and numpy's gathers release the GIL), so that
    # both cores work, and no int64 array of every token is ever held. Items of
    # another kind are known from the first chunk alone.
    if not all_on_two_cores(values_of_chunk, range(0, len(tokens), CHUNK_ROWS)):
        return None
    _look_up(_table(known, int(codes.max(initial=-1))), codes, codes)
    return codes


def integer_codes_of_values(values: np.ndarray, vocabulary: pa.Array) -> np.ndarray | None:
    """:func:`integer_codes` of tokens known by their values (canonical decimal
    integers, as :func:`integer_values_of_cells` gives them); ``None`` when the
    vocabulary is not all canonical integers or a value is too large for a table.

    Examples
    --------
    >>> integer_codes_of_values(np.array([5, 12, 9, 5], np.int32), pa.array(["9", "5"]))
    array([ 1, 14,  0,  1], dtype=int32)
    """
    table = code_table(values, vocabulary)
    if table is None:
        return None
    codes = np.empty(len(values), dtype=np.int32)
    _look_up(table, values, codes)
    return codes


def code_table(values: np.ndarray, vocabulary: pa.Array) -> np.ndarray | None:
    """The code of every value up to the largest of ``values`` and the vocabulary's
    (int32, indexed by value): a vocabulary item's index there, any other value
    ``len(vocabulary)`` plus the value; ``None`` when the vocabulary is not all
    canonical integers or a value is too large for a table.

    Examples
    --------
    >>> code_table(np.array([5, 3], np.int32), pa.array(["3", "1"])).tolist()
    [2, 1, 4, 0, 6, 7]
    """
    known = canonical_integers(vocabulary)
    if known is None:
        return None
    largest = _largest_value(len(values), known)
    top = int(values.max(initial=-1))
    return None if largest is None or top > largest else _table(known, top)


def _largest_value(n_tokens: int, known: np.ndarray) -> int | None:
    """The largest value a table may hold for ``n_tokens`` tokens and the vocabulary's
    values ``known``; None when a vocabulary value is already over it."""
    n_known = len(known)
    largest = min(np.iinfo(np.int32).max - n_known, n_tokens + n_known + TABLE_MIN_ENTRIES - 1)
    return None if int(known.max(initial=-1)) > largest else largest


def _table(known: np.ndarray, top_value: int) -> np.ndarray:
    """:func:`code_table` of the vocabulary's values ``known`` up to ``top_value``."""
    n_known = len(known)
    top = max(int(known.max(initial=-1)), top_value)
    table = np.arange(n_known, n_known + top + 1, dtype=np.int32)
    table[known] = np.arange(n_known, dtype=np.int32)
    return table


def _look_up(table: np.ndarray, values: np.ndarray, codes: np.ndarray) -> None:
    """Write each value's code from ``table`` into ``codes`` (may be ``values``
    itself), a chunk at a time on two cores."""

    def look_up(start: int) -> None:
        stop = start + CHUNK_ROWS
        # Every value is within the table: "clip" changes nothing, and unlike the
        # default "raise" writes into ``out`` with no buffer of its own.
        np.take(table, values[start:stop], out=codes[start:stop], mode="clip")

    on_two_cores(look_up, range(0, len(values), CHUNK_ROWS))


def integer_values_of_cells(
    cells: pa.Array | Sequence[pa.Array],
) -> tuple[np.ndarray, np.ndarray] | None:
    """The number of items of each single-spaced cell (``large_string``, as
    :class:`~scorer.align.item_lists.ListCells` makes them, an empty cell null) and the
    values of all items in list order, when every item is a canonical decimal integer
    of at most ``2**31 - 1``; ``None`` otherwise. ``cells`` may be one array or the
    chunks of one column, read in turn as one.

    Read a piece of about 2 MiB of cells at a time on two cores (their bytes eight
    digits at a time, :func:`~scorer.align.digit_words.cell_integers`), each
    piece's items written where they belong (counted first from its spaces): no
    string of every item is ever held, and items of another kind are known from the
    first piece alone.

    Examples
    --------
    >>> lengths, values = integer_values_of_cells(pa.array(["12 7", None, "0"], pa.large_string()))
    >>> lengths.tolist(), values.tolist()
    ([2, 0, 1], [12, 7, 0])
    >>> chunks = [pa.array(["1 2"], pa.large_string()), pa.array(["3", "4 5"], pa.large_string())]
    >>> [found.tolist() for found in integer_values_of_cells(chunks)]
    [[2, 1, 2], [1, 2, 3, 4, 5]]
    >>> integer_values_of_cells(pa.array(["12 07"], pa.large_string())) is None
    True
    """
    arrays = [cells] if isinstance(cells, pa.Array) else list(cells)
    pieces = _cell_pieces(arrays)
    if pieces is None:
        return None

    def n_items(piece: _Piece) -> int:  # single-spaced: a space between two items, no other
        offsets = string_offsets(piece.cells)
        text = string_bytes(piece.cells)
        filled = np.count_nonzero(offsets[1:] > offsets[:-1])
        return int(np.count_nonzero(text == ord(" "))) + int(filled)

    firsts = np.concatenate(([0], np.cumsum(on_two_cores(n_items, pieces))))
    lengths = np.empty(sum(len(array) for array in arrays), dtype=np.int64)
    values = np.empty(int(firsts[-1]), dtype=np.int32)

    def read_piece(index: int) -> bool:
        piece = pieces[index]
        found = cell_integers(piece.cells, values[int(firsts[index]) : int(firsts[index + 1])])
        if found is None:
            return False
        lengths[piece.first_row : piece.first_row + len(piece.cells)] = found[0]
        return True

    return (lengths, values) if all_on_two_cores(read_piece, range(len(pieces))) else None


@dataclass(frozen=True)
class _Piece:
    """Some consecutive cells of a column (a slice of one of its arrays), and the row
    of the column its first cell is."""

    cells: pa.Array
    first_row: int


def _cell_pieces(arrays: list[pa.Array]) -> list[_Piece] | None:
    """The cells of ``arrays`` (one column's, in turn) in pieces of about
    :data:`_CELL_BYTES` bytes (a longer cell alone); None unless every array is a
    ``large_string`` array."""
    pieces = []
    first_row = 0
    for array in arrays:
        offsets = string_offsets(array)
        if offsets is None:
            return None
        cuts = np.searchsorted(offsets, np.arange(offsets[0], offsets[-1], _CELL_BYTES), "right")
        bounds = np.unique(np.concatenate(([0], np.maximum(cuts - 1, 0), [len(array)])))
        for a, b in itertools.pairwise(bounds.tolist()):
            pieces.append(_Piece(array.slice(a, b - a), first_row + a))
        first_row += len(array)
    return pieces


_CELL_BYTES = 1 << 21


#: Digit strings at most this long have byte-order keys within an int64.
_KEY_DIGITS = 17


def integer_byte_order_codes(strings: pa.Array) -> tuple[np.ndarray, pa.Array] | None:
    """:func:`~scorer.align.joins.byte_order_codes` of canonical decimal integers of at
    most 17 digits, by value: ``None`` for any other strings.

    Right-padded with zeros to 17 digits, digit strings compare as numbers; a string
    equal to another once padded is a prefix of it, so the shorter comes first. The
    key ``padded * 32 + length`` orders the strings as their bytes do, and equal
    keys are equal strings.

    Examples
    --------
    >>> codes, distinct = integer_byte_order_codes(pa.array(["9", "10", "1", "9", "100"]))
    >>> codes.tolist(), distinct.to_pylist()
    ([3, 1, 0, 3, 2], ['1', '10', '100', '9'])
    """
    keys = _byte_order_keys(strings)
    if keys is None:
        return None
    order = np.argsort(keys)
    ordered = keys[order]
    del keys
    starts_group = np.empty(len(order), dtype=bool)
    starts_group[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts_group[1:])
    del ordered
    first = order[starts_group]  # any row of each key: equal keys are equal strings
    codes = np.empty(len(order), dtype=np.int64)
    codes[order] = np.cumsum(starts_group) - 1
    return codes, strings.take(to_arrow(first))


def _byte_order_keys(strings: pa.Array) -> np.ndarray | None:
    """The int64 keys of :func:`integer_byte_order_codes`, made a chunk at a time (no
    int64 array of the values, lengths or paddings beside them); None unless every
    string is a canonical decimal integer of at most 17 digits."""
    if len(strings) == 0:
        return None
    keys = np.empty(len(strings), dtype=np.int64)
    for start in range(0, len(strings), CHUNK_ROWS):
        chunk = strings.slice(start, CHUNK_ROWS)
        values = canonical_integers(chunk)
        if values is None:
            return None
        lengths = np.diff(string_offsets(chunk.cast(pa.large_string())))
        if lengths.max() > _KEY_DIGITS:
            return None
        np.multiply(values, _PADDING[lengths], out=keys[start : start + len(values)])
        keys[start : start + len(values)] *= 32
        keys[start : start + len(values)] += lengths
    return keys


_PADDING = 10 ** np.arange(_KEY_DIGITS, -1, -1, dtype=np.int64)
