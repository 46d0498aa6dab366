"""From cells of whitespace-separated item ids (or list cells) to flat lists of tokens.

Everything here is Arrow compute or numpy over whole columns (or large chunks of
them); nothing loops over rows. Blank cells never become tokens; runs of any ASCII
whitespace separate items. It never decides whether an input is valid:
:mod:`scorer.check.validate` does.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.integer_items import canonical_integers, decimal_strings, read_canonical
from scorer.arrays import (
    BLOCK_ROWS,
    holds_any_byte,
    joined_strings,
    offsets_of,
    one_chunk,
    parallel_all,
    parallel_map,
    string_bytes,
    string_offsets,
    text_column,
    to_arrow,
    to_numpy,
)


class SplitLists:
    """Whitespace-separated lists, flattened: each row's number of items, and the items
    as strings (:attr:`tokens`) or, when every one is a canonical decimal integer, as
    their values (:attr:`values`), either made from the other when asked for.

    Attributes
    ----------
    lengths : ndarray of int64, shape (n_rows,)
        Number of items in each row (0 for an empty or missing cell).
    tokens : pyarrow.Array
        All items, row after row, in list order (``large_string``).
    values : ndarray of int32, or None
        Every item's value, when all are canonical decimal integers
        (:func:`~scorer.align.integer_items.canonical_integers`); None otherwise.

    Examples
    --------
    >>> lists = SplitLists(np.array([2, 1]), values=np.array([12, 0, 7], np.int32))
    >>> lists.tokens.to_pylist(), lists.row_of_token.tolist(), lists.position_of_token.tolist()
    (['12', '0', '7'], [0, 0, 1], [0, 1, 0])
    >>> SplitLists(np.array([1]), pa.array(["x"], pa.large_string())).values is None
    True
    """

    def __init__(
        self, lengths: np.ndarray, tokens: pa.Array | None = None, values: np.ndarray | None = None
    ) -> None:
        if (tokens is None) == (values is None):
            raise ValueError("give the items' strings or their values")
        self.lengths = lengths
        if tokens is not None:
            self.tokens = tokens
        else:
            self.values = values

    @cached_property
    def tokens(self) -> pa.Array:
        """All items, row after row: the values' decimal strings when read as values."""
        return decimal_strings(self.values)

    @cached_property
    def values(self) -> np.ndarray | None:
        """Every item's value (int32) when all are canonical decimal integers."""
        return canonical_integers(self.tokens)

    def head(self, n: int) -> pa.Array:
        """The first ``n`` items as strings, without making all of them.

        Examples
        --------
        >>> split_lists(pa.array(["a b", "c"])).head(2).to_pylist()
        ['a', 'b']
        """
        if "tokens" not in self.__dict__:
            return decimal_strings(self.values[:n])
        return self.tokens.slice(0, n)

    def take(self, indices: np.ndarray) -> pa.Array:
        """The items at these flat positions, as strings.

        Examples
        --------
        >>> split_lists(pa.array(["a b", "c"])).take(np.array([2, 0])).to_pylist()
        ['c', 'a']
        """
        if "tokens" not in self.__dict__:
            return decimal_strings(self.values[indices])
        return self.tokens.take(to_arrow(indices))

    @property
    def row_of_token(self) -> np.ndarray:
        """The row each token comes from."""
        return np.repeat(np.arange(len(self.lengths), dtype=np.int64), self.lengths)

    @property
    def position_of_token(self) -> np.ndarray:
        """The 0-based rank of each token within its row."""
        starts = np.cumsum(self.lengths) - self.lengths
        return np.arange(int(self.lengths.sum()), dtype=np.int64) - np.repeat(starts, self.lengths)


# Python's str.split() also splits on these; Arrow's ascii splitter does not, and its
# utf8 splitter mishandles some of them at the end of a string (pyarrow 26).
_OTHER_WHITESPACE = (
    "[\\x{1c}-\\x{1f}\\x{85}\\x{a0}\\x{1680}\\x{2000}-\\x{200a}"
    "\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}]"
)


def fill_empty_cells(cells: pa.Array, token: str) -> pa.Array:
    """Each empty cell (missing, or only whitespace) as the one item ``token``: what
    ``empty_token`` means, for the solution's and the submission's cells alike.

    Examples
    --------
    >>> fill_empty_cells(pa.array(["a b", "", None, "  "]), "None").to_pylist()
    ['a b', 'None', 'None', 'None']
    """
    text = text_column(as_text_cells(cells))
    empty = pc.equal(pc.utf8_length(pc.utf8_trim_whitespace(text)), 0)
    return pc.if_else(empty, pa.scalar(token, pa.large_string()), text)


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
    return ListCells(cells).split()


class ListCells:
    """Cells of whitespace-separated lists, with every row's number of items known
    before any list is made.

    The cells are rewritten on their bytes as ``" ".join(cell.split())`` (only when
    some whitespace is not a single space between two items), and a cell left empty
    becomes null: a run of whitespace, however long, costs a pass over its bytes and
    never an (empty) item, and :attr:`lengths` counts the items from the bytes, so a
    row with too many can be refused before :meth:`split` makes them.

    Parameters
    ----------
    cells : pyarrow.Array or pyarrow.ChunkedArray
        Text cells (a column in chunks is joined first, each chunk freed once
        copied), or lists of items already split.

    Examples
    --------
    >>> cells = ListCells(pa.array(["  a   b ", "   ", "c\\td"]))
    >>> cells.lengths, cells.cells.to_pylist()
    (array([2, 0, 2]), ['a b', None, 'c d'])

    Lists of items already split (a ``large_list`` of ``large_string`` items, each
    non-empty and free of whitespace, as a long file's pivot makes them) are taken as
    they are, without being joined into text and split again:

    >>> lists = pa.array([["a", "b"], []], pa.large_list(pa.large_string()))
    >>> ListCells(lists).lengths, ListCells(lists).split().tokens.to_pylist()
    (array([2, 0]), ['a', 'b'])
    """

    def __init__(self, cells: pa.Array | pa.ChunkedArray) -> None:
        self._already_split: SplitLists | None = None
        if isinstance(cells, pa.ChunkedArray):
            cells = joined_strings(cells.chunks) if cells.num_chunks > 1 else one_chunk(cells)
        if pa.types.is_large_list(cells.type):  # items already split: a long file pivoted
            self._already_split = _listed(cells)
        else:
            if cells.null_count:  # a missing cell is empty (a null's slot may hold bytes)
                cells = pc.fill_null(cells.cast(pa.large_string()), "")
            if not _only_spaces(cells):  # False unless a large_string array
                cells = _whitespace_as_spaces(cells.cast(pa.large_string()))
            cells = _single_spaced(cells)
        #: The cells (single-spaced, an empty one null), or the lists as given.
        self.cells = cells

    @cached_property
    def lengths(self) -> np.ndarray:
        """The number of items in each cell (int64): a single-spaced cell of ``m`` items
        holds ``m - 1`` spaces, counted a block of cells at a time on the thread pool."""
        if self._already_split is not None:
            return self._already_split.lengths
        offsets, raw = self._offsets_and_bytes()
        lengths = np.empty(len(self.cells), dtype=np.int64)

        def count(block: tuple[int, int]) -> None:
            first, stop = block
            bounds = offsets[first : stop + 1]
            low = int(bounds[0])
            before = _true_before(raw[low : int(bounds[-1])] == ord(" "), bounds - low)
            np.subtract(before[1:], before[:-1], out=lengths[first:stop])
            lengths[first:stop] += bounds[1:] > bounds[:-1]  # one item more, unless empty

        parallel_map(count, self._blocks)
        return lengths

    def _offsets_and_bytes(self) -> tuple[np.ndarray, np.ndarray]:
        """The cells' offsets (from 0) and their bytes."""
        return _from_zero(string_offsets(self.cells)), string_bytes(self.cells)

    @cached_property
    def _blocks(self) -> list[tuple[int, int]]:
        """The cells in blocks (:func:`_cell_blocks`)."""
        return _cell_blocks(self.cells)

    @cached_property
    def _places(self) -> tuple[np.ndarray, np.ndarray]:
        """Where each block's items begin among all the items, and their bytes among all
        the items' bytes, the totals last: counted from each block's spaces on the
        thread pool (a non-empty single-spaced cell of ``m`` items holds ``m - 1``)."""
        offsets, raw = self._offsets_and_bytes()

        def counts(block: tuple[int, int]) -> tuple[int, int]:
            bounds = offsets[block[0] : block[1] + 1]
            spaces = np.count_nonzero(raw[int(bounds[0]) : int(bounds[-1])] == ord(" "))
            return spaces, np.count_nonzero(bounds[1:] > bounds[:-1])

        found = np.array(parallel_map(counts, self._blocks), dtype=np.int64).reshape(-1, 2)
        spaces, filled = found[:, 0], found[:, 1]
        block_starts = offsets[[first for first, _ in self._blocks] + [len(self.cells)]]
        return offsets_of(spaces + filled), block_starts - offsets_of(spaces)

    def split(self) -> SplitLists:
        """The items of every cell: as their values when every item of the first block of
        cells is a canonical decimal integer and every other's too (each block split and
        read on the thread pool, written where it belongs: no string of every item is
        ever held), else as strings (each block split on the thread pool, its items
        written where they belong). Each block's split gives its cells' lengths.

        Examples
        --------
        >>> ListCells(pa.array(["12  7", "3"])).split().values.tolist()
        [12, 7, 3]
        >>> ListCells(pa.array(["12  7", "x"])).split().tokens.to_pylist()
        ['12', '7', 'x']
        """
        if self._already_split is not None:
            return self._already_split
        blocks = self._blocks
        probe = _split_block(self.cells, *blocks[0]) if blocks else None
        lengths = np.empty(len(self.cells), dtype=np.int64)

        def split_of(index: int) -> SplitLists:  # the first block's split made once
            split = probe if index == 0 else _split_block(self.cells, *blocks[index])
            lengths[slice(*blocks[index])] = split.lengths
            return split

        values = tokens = None
        if probe is not None and probe.values is not None:
            values = self._values(split_of)
        if values is None:
            tokens = self._tokens(split_of)
        return SplitLists(self.__dict__.setdefault("lengths", lengths), tokens, values)

    def _tokens(self, split_of: Callable[[int], SplitLists]) -> pa.Array:
        """Every item as a string, each block of cells split on its own and its items'
        offsets and bytes written at their place (:attr:`_places`)."""
        first_item, first_byte = self._places
        item_offsets = np.empty(int(first_item[-1]) + 1, dtype=np.int64)
        item_offsets[0] = 0
        item_bytes = np.empty(int(first_byte[-1]), dtype=np.uint8)

        def split_block(index: int) -> None:
            tokens = split_of(index).tokens
            offsets, raw = string_offsets(tokens), string_bytes(tokens)
            at, end = int(first_item[index]), int(first_item[index + 1])
            item_offsets[at + 1 : end + 1] = offsets[1:] - offsets[0] + first_byte[index]
            item_bytes[int(first_byte[index]) : int(first_byte[index + 1])] = raw

        parallel_map(split_block, range(len(self._blocks)))
        buffers = [None, pa.py_buffer(item_offsets), pa.py_buffer(item_bytes)]
        return pa.Array.from_buffers(pa.large_string(), len(item_offsets) - 1, buffers)

    def _values(self, split_of: Callable[[int], SplitLists]) -> np.ndarray | None:
        """Every item's value, each block of cells split and read on its own and written
        at its place (:attr:`_places`); None if one block's items are not all
        canonical integers."""
        first_item, _ = self._places
        values = np.empty(int(first_item[-1]), dtype=np.int32)

        def read_block(index: int) -> bool:
            out = values[int(first_item[index]) : int(first_item[index + 1])]
            return read_canonical(split_of(index).tokens, out)

        if not parallel_all(read_block, range(len(self._blocks))):
            return None
        return values


def _cell_blocks(cells: pa.Array) -> list[tuple[int, int]]:
    """The cells in blocks of about :data:`_BLOCK_BYTES` bytes (a longer cell alone) and
    at most :data:`~scorer.arrays.BLOCK_ROWS` cells, as (first, stop) cell numbers.

    Examples
    --------
    >>> _cell_blocks(pa.array(["a b", None, "c"], pa.large_string()))
    [(0, 3)]
    """
    offsets = string_offsets(cells)
    by_bytes = np.searchsorted(offsets, np.arange(offsets[0], offsets[-1], _BLOCK_BYTES), "right")
    cuts = np.concatenate(([0], np.maximum(by_bytes - 1, 0), np.arange(0, len(cells), BLOCK_ROWS)))
    bounds = np.unique(np.append(cuts, len(cells))).tolist()
    return [(a, b) for a, b in itertools.pairwise(bounds) if b > a]


_BLOCK_BYTES = 1 << 21


def _split_block(cells: pa.Array, first: int, stop: int) -> SplitLists:
    """The items of the single-spaced cells ``first`` to ``stop`` as strings."""
    nested = pc.ascii_split_whitespace(cells.slice(first, stop - first))
    lengths = to_numpy(pc.list_value_length(nested), fill=0).astype(np.int64)
    return SplitLists(lengths, pc.list_flatten(nested))


def _listed(lists: pa.LargeListArray) -> SplitLists:
    """Lists of items already split, flattened."""
    if lists.null_count:
        raise ValueError("lists of items hold no missing list")
    offsets = to_numpy(lists.offsets)
    tokens = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    return SplitLists(np.diff(offsets), text_column(tokens))


def joined_lists(lists: pa.LargeListArray) -> pa.Array:
    """Lists of items as cells of text: items separated by single spaces.

    Examples
    --------
    >>> joined_lists(pa.array([["a", "b"], []], pa.large_list(pa.large_string()))).to_pylist()
    ['a b', '']
    """
    return pc.binary_join(lists, pa.scalar(" ", pa.large_string()))


def as_text_cells(cells: pa.Array) -> pa.Array:
    """Cells as text: lists of items joined by single spaces, any other cells as they
    are (for what reads a cell's text: empty cells, scored pairs).

    Examples
    --------
    >>> as_text_cells(pa.array([["a", "b"]], pa.large_list(pa.large_string()))).to_pylist()
    ['a b']
    """
    return joined_lists(cells) if pa.types.is_large_list(cells.type) else cells


def _whitespace_as_spaces(cells: pa.Array) -> pa.Array:
    """The cells with every character ``str.split()`` splits on replaced by a space
    (one per character)."""
    if _may_hold_other_whitespace(cells):
        cells = pc.replace_substring_regex(cells, _OTHER_WHITESPACE, " ")
    raw = string_bytes(cells)
    if raw.size == 0 or int(raw.min()) >= 0x20:
        return cells
    # ASCII bytes never occur inside a multi-byte UTF-8 character: map them in place.
    return _with_bytes(cells, string_offsets(cells), _ASCII_WHITESPACE_AS_SPACE[raw])


_ASCII_WHITESPACE_AS_SPACE = np.arange(256, dtype=np.uint8)


_ASCII_WHITESPACE_AS_SPACE[[9, 10, 11, 12, 13]] = ord(" ")


def _single_spaced(cells: pa.Array) -> pa.Array:
    """``" ".join(cell.split())`` of every cell whose only whitespace is the space,
    computed on the bytes; empty cells become null (so they split into no item)."""
    offsets = string_offsets(cells)
    raw = string_bytes(cells)
    offsets = _from_zero(offsets)
    nonempty = offsets[1:] > offsets[:-1]
    # No space at all (one item a cell, say): nothing badly spaced, and no cell's
    # bounds copied to find out.
    if holds_any_byte(raw, b" ") and _badly_spaced(
        raw, offsets[:-1][nonempty], offsets[1:][nonempty]
    ):
        raw, offsets = _squeeze_spaces(raw, offsets, raw == ord(" "))
        nonempty = offsets[1:] > offsets[:-1]
    elif nonempty.all():
        return cells  # already single-spaced, and no cell to make null
    valid = nonempty if cells.null_count == 0 else nonempty & to_numpy(cells.is_valid())
    return _with_bytes(cells, offsets, raw, valid)


def _badly_spaced(raw: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> bool:
    """Whether a (non-empty) cell starts or ends with a space, or two spaces meet
    anywhere: the bytes are compared a chunk at a time, so that well-spaced cells (the
    usual case) cost no temporary of their size.

    Examples
    --------
    >>> cells = np.frombuffer(b"a bcd", dtype=np.uint8)  # "a b" and "cd"
    >>> _badly_spaced(cells, np.array([0, 3]), np.array([3, 5]))
    False
    >>> _badly_spaced(np.frombuffer(b"a  b", dtype=np.uint8), np.array([0]), np.array([4]))
    True
    """
    space = ord(" ")
    if (raw[starts] == space).any() or (raw[ends - 1] == space).any():
        return True
    step = BLOCK_ROWS * 16
    for start in range(0, max(len(raw) - 1, 0), step):
        spaces = raw[start : start + step + 1] == space  # one byte past: pairs across chunks
        if (spaces[1:] & spaces[:-1]).any():
            return True
    return False


def _squeeze_spaces(
    raw: np.ndarray, offsets: np.ndarray, space: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The bytes and offsets of cells with only the spaces that separate two items
    kept (one per run): one pass over the bytes, a chunk of them at a time, so that
    the positions of the kept spaces (8 bytes each, as many as the items) are never
    all held at once.

    Examples
    --------
    >>> raw = np.frombuffer(b" a  b c " b"  d", dtype=np.uint8)
    >>> kept, offsets = _squeeze_spaces(raw, np.array([0, 8, 11]), raw == ord(" "))
    >>> bytes(kept), offsets.tolist()
    (b'a b cd', [0, 5, 6])
    """
    keep = ~space
    last_cell = -1  # the cell of the previous chunk's last kept space
    for start in range(0, max(len(raw) - 1, 0), BLOCK_ROWS):
        stop = min(start + BLOCK_ROWS, len(raw) - 1)
        # The last space of each run followed by an item of the same cell ...
        before_item = start + np.flatnonzero(space[start:stop] & ~space[start + 1 : stop + 1])
        cell = np.searchsorted(offsets, before_item, side="right") - 1
        inside = before_item + 1 < offsets[cell + 1]
        before_item, cell = before_item[inside], cell[inside]
        # ... but for the cell's first item, when spaces lead the cell.
        first_of_cell = np.ones(len(cell), dtype=bool)
        first_of_cell[1:] = cell[1:] != cell[:-1]
        if len(cell):
            first_of_cell[0] = cell[0] != last_cell
            last_cell = int(cell[-1])
        leading = first_of_cell & space[offsets[cell]]
        keep[before_item[~leading]] = True
    return raw[keep], _true_before(keep, offsets)


def _true_before(mask: np.ndarray, positions: np.ndarray) -> np.ndarray:
    """How many values of ``mask`` before each of the sorted ``positions`` are True
    (positions from 0 to ``len(mask)``): the True values of a block of ``mask`` found,
    then each position's place among them, block by block, so it never takes more than
    8 bytes per True value of a block.

    Examples
    --------
    >>> _true_before(np.array([True, False, True, True]), np.array([0, 1, 3, 4]))
    array([0, 1, 2, 3])
    """
    counts = np.empty(len(positions), dtype=np.int64)
    total = 0
    for start in range(0, len(mask) + 1, BLOCK_ROWS):
        found = np.flatnonzero(mask[start : start + BLOCK_ROWS])
        first, last = np.searchsorted(positions, [start, start + BLOCK_ROWS])
        counts[first:last] = total + np.searchsorted(found, positions[first:last] - start)
        total += len(found)
    return counts


def _with_bytes(
    cells: pa.Array, offsets: np.ndarray, raw: np.ndarray, valid: np.ndarray | None = None
) -> pa.Array:
    """A ``large_string`` array of ``len(cells)`` values from these offsets and bytes
    (offsets as in ``raw``), null where ``valid`` is False (else where ``cells`` is)."""
    offsets = np.ascontiguousarray(_from_zero(offsets), dtype=np.int64)
    if valid is None:
        valid = to_numpy(cells.is_valid()) if cells.null_count else None
    bitmap = None if valid is None else pa.py_buffer(np.packbits(valid, bitorder="little"))
    buffers = [bitmap, pa.py_buffer(offsets), pa.py_buffer(np.ascontiguousarray(raw))]
    return pa.Array.from_buffers(pa.large_string(), len(cells), buffers)


def _from_zero(offsets: np.ndarray) -> np.ndarray:
    """Offsets shifted to start at 0: the same array when they already do (a cell
    column's offsets are 8 bytes a row, not to be copied lightly)."""
    return offsets if len(offsets) == 0 or offsets[0] == 0 else offsets - offsets[0]


def _may_hold_other_whitespace(cells: pa.Array) -> bool:
    """True unless every byte is ASCII outside 0x1c-0x1f (a cheap scan of the raw bytes)."""
    if pc.all(pc.string_is_ascii(cells)).as_py() is False:
        return True
    raw = string_bytes(cells)
    if raw is None:
        return True  # not a large_string array: let the regex decide
    return holds_any_byte(raw, range(0x1C, 0x20))


def _only_spaces(cells: pa.Array) -> bool:
    """Whether every byte is printable ASCII, so the only whitespace is the space.

    Then splitting on single spaces and dropping empty tokens is exactly
    ``str.split()``, and several times faster than Unicode-aware splitting.
    """
    values = string_bytes(cells) if len(cells) else None
    if values is None:
        return False
    return values.size == 0 or (int(values.min()) >= 0x20 and int(values.max()) < 0x80)
