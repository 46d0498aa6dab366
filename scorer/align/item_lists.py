"""From cells of whitespace-separated item ids (or list cells) to flat lists of tokens.

Everything here is Arrow compute or numpy over whole columns (or large chunks of
them); nothing loops over rows. Blank cells never become tokens; runs of any ASCII
whitespace separate items. It never decides whether an input is valid:
:mod:`scorer.check.validate` does.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.align.fingerprints import (
    FIXED_WIDTH_MIN_ROWS,
    fixed_width_bytes,
)
from scorer.align.integer_items import decimal_strings, integer_values_of_cells
from scorer.arrays import (
    CHUNK_ROWS,
    all_on_two_cores,
    holds_any_byte,
    joined_as_made,
    one_chunk,
    rows_to_strings,
    string_bytes,
    string_offsets,
    text_column,
    to_arrow,
    to_numpy,
)


class SplitLists:
    """Whitespace-separated lists, flattened.

    Lists split from the fixed-width layout (every cell ``m`` tokens of ``w`` bytes
    joined by single spaces) keep a zero-copy byte view of their tokens instead of
    an Arrow array: most callers read the tokens from that view, and :attr:`tokens`
    is built from it only when asked for. Lists whose items are all canonical
    decimal integers may keep their values instead (:attr:`values`): the tokens are
    their decimal strings, made only when asked for.

    Attributes
    ----------
    lengths : ndarray of int64, shape (n_rows,)
        Number of items in each row (0 for an empty or missing cell).
    tokens : pyarrow.Array
        All items, row after row, in list order.
    uniform : ndarray of uint8, shape (n_rows, m, w), or None
        The bytes of token ``j`` of row ``i`` at ``uniform[i, j]`` (a strided view of
        the cells), when the lists came from the fixed-width layout.
    values : ndarray of int32, or None
        Every token's value, when all are canonical decimal integers read as such
        (:func:`~scorer.align.integer_items.integer_values_of_cells`).
    """

    def __init__(
        self,
        lengths: np.ndarray,
        tokens: pa.Array | None = None,
        uniform: np.ndarray | None = None,
        values: np.ndarray | None = None,
    ) -> None:
        if sum(given is not None for given in (tokens, uniform, values)) != 1:
            raise ValueError("give the tokens, their fixed-width bytes or their values")
        self.lengths = lengths
        self.uniform = uniform
        self.values = values
        if tokens is not None:
            self.tokens = tokens

    @cached_property
    def tokens(self) -> pa.Array:
        """All items, row after row (built from :attr:`uniform` or :attr:`values` on
        first use).

        Examples
        --------
        >>> SplitLists(np.array([2, 1]), values=np.array([12, 0, 7], np.int32)).tokens.to_pylist()
        ['12', '0', '7']
        """
        if self.values is not None:
            return decimal_strings(self.values)
        return rows_to_strings(np.ascontiguousarray(self.uniform).reshape(-1, self.width))

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
        if self.values is not None and "tokens" not in self.__dict__:
            return decimal_strings(self.values[:n])
        if "tokens" in self.__dict__ or self.uniform is None:
            return self.tokens.slice(0, n)
        n_rows = -(-n // max(self.uniform.shape[1], 1))
        rows = np.ascontiguousarray(self.uniform[:n_rows]).reshape(-1, self.width)
        return rows_to_strings(rows[:n])

    def take(self, indices: np.ndarray) -> pa.Array:
        """The tokens at these flat positions, without building all of them.

        Examples
        --------
        >>> split_lists(pa.array(["a b", "c"])).take(np.array([2, 0])).to_pylist()
        ['c', 'a']
        """
        if self.values is not None and "tokens" not in self.__dict__:
            return decimal_strings(self.values[indices])
        if "tokens" in self.__dict__ or self.uniform is None:
            return self.tokens.take(to_arrow(indices))
        rows, columns = np.divmod(indices, self.uniform.shape[1])
        return rows_to_strings(self.uniform[rows, columns])

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
        Text cells, lists of items already split, or a column of text cells in
        chunks (as the reader keeps a wide submission's lists): each chunk is then
        taken on its own, its items read or split a chunk at a time, and the cells
        joined only if :attr:`cells` is read.
    uniform : bool, default True
        Look for the fixed-width layout (every cell ``m`` items of ``w`` bytes), whose
        items are then a view of the cells.

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

    A column in chunks gives what the joined column gives:

    >>> chunked = pa.chunked_array([["a  b", ""], [" 7"]], pa.large_string())
    >>> ListCells(chunked).lengths, ListCells(chunked).split().tokens.to_pylist()
    (array([2, 0, 1]), ['a', 'b', '7'])
    """

    def __init__(self, cells: pa.Array | pa.ChunkedArray, uniform: bool = True) -> None:
        self._parts: list[ListCells] | None = None
        self._already_split: SplitLists | None = None
        if isinstance(cells, pa.ChunkedArray):
            if cells.num_chunks > 1:
                # A column in the parser's chunks: each chunk taken as it is (every
                # cell is rewritten on its own), never joined unless its cells are read.
                self._parts = [ListCells(chunk, uniform=False) for chunk in cells.chunks]
                return
            cells = one_chunk(cells)
        if pa.types.is_large_list(cells.type):  # items already split: a long file pivoted
            self._already_split = _listed(cells)
            self._cells = cells
            return
        printable = _only_spaces(cells)  # False unless a large_string array
        self._already_split = _split_uniform(cells) if printable and uniform else None
        if self._already_split is None:
            if not printable:
                cells = _whitespace_as_spaces(cells.cast(pa.large_string()))
            cells = _single_spaced(cells)
        self._cells = cells

    @property
    def cells(self) -> pa.Array:
        """The cells (single-spaced, an empty one null), or the lists as given; a
        column taken in chunks is joined here, once."""
        if self._parts is not None and not hasattr(self, "_cells"):
            self._cells = one_chunk(pa.chunked_array([part.cells for part in self._parts]))
        return self._cells

    @cached_property
    def lengths(self) -> np.ndarray:
        """The number of items in each cell (int64)."""
        if self._parts is not None:
            return np.concatenate([part.lengths for part in self._parts])
        if self._already_split is not None:
            return self._already_split.lengths
        offsets = string_offsets(self.cells)
        offsets = _from_zero(offsets)
        lengths = np.diff(_true_before(string_bytes(self.cells) == ord(" "), offsets))
        lengths += offsets[1:] > offsets[:-1]  # one item more than spaces, unless empty
        return lengths

    def split(self, integers: bool = False) -> SplitLists:
        """The items of every cell; with ``integers``, items that are all canonical
        decimal integers are kept as their values, never as strings (the tokens are
        then made only if asked for).

        Examples
        --------
        >>> ListCells(pa.array(["12  7", "x"])).split(integers=True).values is None
        True
        >>> ListCells(pa.array(["12  7", "3"])).split(integers=True).values.tolist()
        [12, 7, 3]
        """
        if self._already_split is not None:
            return self._already_split
        if integers:
            cells = self.cells if self._parts is None else [p.cells for p in self._parts]
            found = integer_values_of_cells(cells)
            if found is not None:
                if "lengths" not in self.__dict__:
                    self.lengths = found[0]
                return SplitLists(self.lengths, values=found[1])
        if self._parts is not None:
            return self._split_parts(self._parts)
        # The cells are single-spaced, so every ASCII whitespace byte left is a space
        # between two items: Arrow's whitespace splitter (twice as fast as splitting
        # on a pattern) then cuts exactly there.
        nested = pc.ascii_split_whitespace(self.cells)
        if "lengths" not in self.__dict__:
            self.lengths = to_numpy(pc.list_value_length(nested), fill=0).astype(np.int64)
        return SplitLists(self.lengths, pc.list_flatten(nested))

    def _split_parts(self, parts: list[ListCells]) -> SplitLists:
        """The items of a column in chunks as strings, split a chunk at a time and
        joined as they are made (the chunks' cells are not joined first)."""
        lengths = self.lengths
        n_items = [int(part.lengths.sum()) for part in parts]
        # Single-spaced cells: an item's bytes are its cell's, but for one space
        # between two items.
        n_bytes = [
            _n_bytes(part.cells) - (items - int(np.count_nonzero(part.lengths)))
            for part, items in zip(parts, n_items, strict=True)
        ]
        tokens = joined_as_made(lambda i: parts[i].split().tokens, n_items, n_bytes)
        return SplitLists(lengths, tokens)


def _n_bytes(strings: pa.Array) -> int:
    """The bytes the strings of a ``large_string`` array span."""
    offsets = string_offsets(strings)
    return int(offsets[-1] - offsets[0])


def read_in_chunks(cells: pa.ChunkedArray) -> bool:
    """Whether a column of text cells in chunks is best read a chunk at a time
    (:class:`ListCells`): its first chunk's items are all canonical integers (then
    the items are read as their values, with no joined copy of the column), and the
    column is not of one width throughout (whose fixed-width lists are a view of the
    joined column, cheaper still). Either way the items are the same.

    Examples
    --------
    >>> read_in_chunks(pa.chunked_array([["12 7", ""], ["3"]], pa.large_string()))
    True
    >>> read_in_chunks(pa.chunked_array([["a b"], ["3"]], pa.large_string()))
    False
    """
    if cells.num_chunks < 2:
        return False
    width = _width_of(cells.chunk(0))
    many = len(cells) >= FIXED_WIDTH_MIN_ROWS
    if many and width is not None and all(_width_of(c) == width for c in cells.chunks[1:]):
        return False
    first = ListCells(cells.chunk(0), uniform=False)
    return integer_values_of_cells(first.cells) is not None


def _width_of(strings: pa.Array) -> int | None:
    """The one length of every string (no null), else None."""
    rows = fixed_width_bytes(strings) if len(strings) else None
    return None if rows is None else rows.shape[1]


def _listed(lists: pa.LargeListArray) -> SplitLists:
    """Lists of items already split, flattened: their tokens a zero-copy byte view when
    every list has ``m`` items of ``w`` bytes (as :func:`_split_uniform` gives)."""
    if lists.null_count:
        raise ValueError("lists of items hold no missing list")
    offsets = to_numpy(lists.offsets)
    lengths = np.diff(offsets)
    tokens = lists.values.slice(int(offsets[0]), int(offsets[-1] - offsets[0]))
    rows = fixed_width_bytes(tokens) if len(lists) >= FIXED_WIDTH_MIN_ROWS else None
    if rows is not None and (lengths == lengths[0]).all():
        return SplitLists(lengths, uniform=rows.reshape(len(lists), int(lengths[0]), -1))
    return SplitLists(lengths, text_column(tokens))


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
    if _badly_spaced(raw, offsets[:-1][nonempty], offsets[1:][nonempty]):
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
    step = CHUNK_ROWS * 16
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
    for start in range(0, max(len(raw) - 1, 0), CHUNK_ROWS):
        stop = min(start + CHUNK_ROWS, len(raw) - 1)
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
    (positions from 0 to ``len(mask)``): a running count made chunk by chunk, so it
    never takes 8 bytes per value of ``mask``.

    Examples
    --------
    >>> _true_before(np.array([True, False, True, True]), np.array([0, 1, 3, 4]))
    array([0, 1, 2, 3])
    """
    counts = np.empty(len(positions), dtype=np.int64)
    total = 0
    for start in range(0, len(mask) + 1, CHUNK_ROWS):
        chunk = mask[start : start + CHUNK_ROWS]
        first, last = np.searchsorted(positions, [start, start + CHUNK_ROWS])
        running = np.zeros(len(chunk) + 1, dtype=np.int64)
        np.cumsum(chunk, out=running[1:])
        counts[first:last] = total + running[positions[first:last] - start]
        total += int(running[-1])
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


def _split_uniform(cells: pa.Array) -> SplitLists | None:
    """Split many printable-ASCII cells that all hold ``m`` tokens of ``w`` bytes
    joined by single spaces (what ``" ".join`` of fixed-width ids writes).

    The layout is checked byte for byte (a space at every separator, none inside a
    token); the tokens are then a strided view of the cells: no copy, no search for
    separators. ``None`` for any other layout.
    """
    if len(cells) < FIXED_WIDTH_MIN_ROWS:
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
    step = max(CHUNK_ROWS * 16 // cell_width, 1)

    def spaced_as_lists(start: int) -> bool:
        chunk = rows[start : start + step]
        # Every separator is a space and there is no other space: tokens hold none.
        if n_tokens > 1 and not (chunk[:, width :: width + 1] == ord(" ")).all():
            return False
        return np.count_nonzero(chunk == ord(" ")) == len(chunk) * (n_tokens - 1)

    if not all_on_two_cores(spaced_as_lists, range(0, n_cells, step)):
        return None
    uniform = np.lib.stride_tricks.as_strided(
        rows, shape=(n_cells, n_tokens, width), strides=(cell_width, width + 1, 1), writeable=False
    )
    # Every count the same: one value seen n_cells times, not an array of them (read only).
    lengths = np.broadcast_to(np.int64(n_tokens), (n_cells,))
    return SplitLists(lengths, uniform=uniform)


def _only_spaces(cells: pa.Array) -> bool:
    """Whether every byte is printable ASCII, so the only whitespace is the space.

    Then splitting on single spaces and dropping empty tokens is exactly
    ``str.split()``, and several times faster than Unicode-aware splitting.
    """
    values = string_bytes(cells) if len(cells) else None
    if values is None:
        return False
    return values.size == 0 or (int(values.min()) >= 0x20 and int(values.max()) < 0x80)
