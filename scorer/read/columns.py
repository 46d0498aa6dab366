"""Turn in-memory tables into a :class:`StringTable`: named columns of Arrow strings.

Every value the scorer handles is a string. Pandas frames may hold object strings,
the ``string`` dtype, Arrow-backed strings, integers (a row id column that pandas
parsed as numbers) or anything a hostile caller put there; this module is the one
place that turns all of them into ``large_string`` Arrow arrays, with null for a
missing cell. Files are read by :mod:`scorer.read.files`; :mod:`scorer.read.inputs`
accepts either.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import is_view_type, one_chunk, string_bytes, string_offsets, to_numpy
from scorer.errors import (
    ROW_NUMBERS,
    Problem,
    example_row_numbers,
    format_count,
    format_example,
)

if TYPE_CHECKING:
    import pandas as pd

# Python's str.split() splits on exactly these (checked by a test over every code point).
_WHITESPACE = (
    "[\\t\\n\\x{0b}\\x{0c}\\r \\x{1c}-\\x{1f}\\x{85}\\x{a0}\\x{1680}"
    "\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}\\x{205f}\\x{3000}]"
)
_ITEM_LISTS = (list, tuple, np.ndarray)
_ITEM_CHUNK = 1 << 20
_FIX_ITEM_LIST = (
    "give each cell as text with item ids separated by spaces, or as a list "
    "(list, tuple, numpy array, Arrow list) of item ids that are strings or integers"
)


class CellError(Exception):
    """A column whose cells cannot be read as text or as item lists.

    Raised while converting; :func:`~scorer.read.inputs.as_string_table` names the
    column and turns it into the caller's error class (participant for the
    submission, host otherwise).
    """

    def __init__(
        self, title: str, expected: str, found: str, fix: str, rows: np.ndarray | None = None
    ) -> None:
        super().__init__(found)
        self.title, self.expected, self.found, self.fix = title, expected, found, fix
        self.examples = () if rows is None else example_row_numbers(rows)
        self.column: str | None = None

    def problem(self) -> Problem:
        """The problem, naming the column when it is known."""
        where = "" if self.column is None else f" in column {self.column!r}"
        return Problem(
            f"{self.title}{where}", self.expected, self.found, self.fix, self.examples, ROW_NUMBERS
        )


def not_utf8(found: str, lines_of: str | None = None) -> Problem:
    """The one refusal of text that is not UTF-8, whatever route it took: a CSV file
    (plain, gzipped or zipped), a Parquet column of text or of item lists, an Arrow
    table, a pandas column of strings, Arrow strings or bytes; or, worded as such, a
    headerless file of lines (``lines_of``: what it is, such as trec_eval's run).

    Examples
    --------
    >>> not_utf8("byte 0xff on line 2 is not valid UTF-8").title
    'Not UTF-8 text'
    >>> not_utf8("byte 0xff on line 2 is not valid UTF-8", "a trec_eval run file").expected
    'a trec_eval run file, encoded as UTF-8 (gzipped, zipped or not)'
    """
    if lines_of is not None:
        return Problem(
            "Not UTF-8 text",
            f"{lines_of}, encoded as UTF-8 (gzipped, zipped or not)",
            found,
            "write the file again as UTF-8 text",
        )
    return Problem(
        "Not UTF-8 text",
        "text encoded as UTF-8 (a CSV file, gzipped, zipped or not, a Parquet file or a "
        "table of strings)",
        found,
        "export the data again as UTF-8 (for example with pandas: to_csv(index=False)), "
        "or decode bytes as UTF-8 before scoring",
    )


class Utf8Error(CellError):
    """A cell that is not UTF-8 text; :meth:`problem` is :func:`not_utf8`'s."""

    def __init__(self, row: int, detail: str = "is not valid UTF-8") -> None:
        super().__init__("", "", detail, "")
        self.row, self.detail = row, detail

    def problem(self) -> Problem:
        column = "" if self.column is None else f" of column {self.column!r}"
        return not_utf8(
            f"the cell{column} in data row {self.row + 1:,} (1 = first row) {self.detail}"
        )


def check_utf8(text: pa.Array, first_row: int = 0, rows: np.ndarray | None = None) -> None:
    """Refuse a string array (any layout) holding a cell that is not valid UTF-8,
    naming the first one: its row is ``first_row`` plus its index, or ``rows[index]``.

    Examples
    --------
    >>> bad = pa.array([b"ok", b"\\xff"], pa.binary()).view(pa.string())
    >>> check_utf8(bad, first_row=10)
    Traceback (most recent call last):
    ...
    scorer.read.columns.Utf8Error: is not valid UTF-8
    """
    try:
        text.validate(full=True)
        return
    except pa.ArrowInvalid:
        pass
    low, high = 0, len(text)
    while high - low > 1:  # bisection: each step one vectorised validation of half
        middle = (low + high) // 2
        try:
            text.slice(low, middle - low).validate(full=True)
            low = middle
        except pa.ArrowInvalid:
            high = middle
    raise Utf8Error(first_row + low if rows is None else int(rows[low]))


def binary_as_text(values: pa.Array) -> pa.Array:
    """Bytes of any binary layout as ``large_string``, refused where not UTF-8."""
    text = values.cast(pa.large_binary()).view(pa.large_string())
    check_utf8(text)
    return text


def empty_nulls(text: pa.Array) -> pa.Array:
    """``text`` (``large_string``) with no byte behind a null cell: Arrow allows them
    (a fixed-size binary column keeps its width there), and every later pass reads the
    cells' bytes through their offsets.

    Examples
    --------
    >>> fixed = pa.array([b"ab", None, b"cd"], pa.binary(2))
    >>> text = empty_nulls(fixed.cast(pa.large_binary()).view(pa.large_string()))
    >>> text.to_pylist(), string_offsets(text).tolist()
    (['ab', None, 'cd'], [0, 2, 2, 4])
    """
    if not text.null_count:
        return text
    valid = to_numpy(pc.is_valid(text), fill=False)
    offsets = string_offsets(text)
    if offsets is not None and not np.diff(offsets)[~valid].any():
        return text
    positions = pa.array(np.cumsum(valid) - 1, mask=~valid)
    return pc.take(text.filter(pa.array(valid)), positions)


@dataclass(frozen=True)
class StringTable:
    """Columns of strings, in file order, duplicate names kept.

    Parameters
    ----------
    names : tuple of str
        Column names as found (duplicates possible: validation reports them).
    columns : tuple of pyarrow.Array
        One ``large_string`` array per name, nulls for missing cells (a long
        submission pivoted to the wide form keeps its items as a ``large_list`` of
        ``large_string``: :class:`~scorer.align.item_lists.ListCells` takes either).

    Examples
    --------
    >>> import pandas as pd
    >>> table = StringTable.from_frame(pd.DataFrame({"id": [1, 2], "items": ["a b", None]}))
    >>> table.names, table.n_rows
    (('id', 'items'), 2)
    >>> table.column("id").to_pylist()
    ['1', '2']
    """

    names: tuple[str, ...]
    columns: tuple[pa.Array | pa.ChunkedArray, ...]

    @property
    def n_rows(self) -> int:
        """Number of rows (0 for a table without columns)."""
        return len(self.columns[0]) if self.columns else 0

    def column(self, name: str) -> pa.Array | pa.ChunkedArray:
        """Return the first column called ``name``."""
        return self.columns[self.names.index(name)]

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> StringTable:
        """Convert a DataFrame without modifying it."""
        names = _clean_names(frame.columns)
        columns = tuple(
            convert_named(names[i], to_string_array, frame.iloc[:, i])
            for i in range(frame.shape[1])
        )
        return cls(names, columns)

    @classmethod
    def from_text(cls, names: Sequence[Any], columns: Sequence[pa.Array]) -> StringTable:
        """Columns already made ``large_string`` and checked (a file's, as read)."""
        return cls(_clean_names(names), tuple(columns))

    @classmethod
    def from_arrow(cls, table: pa.Table) -> StringTable:
        """Convert an Arrow table, casting every column to strings."""
        names = _clean_names(table.column_names)
        columns = tuple(
            convert_named(names[i], to_string_array, table.column(i))
            for i in range(table.num_columns)
        )
        return cls(names, columns)


def convert_named(name: str, convert: Any, values: Any) -> pa.Array:
    """``convert(values)``, naming the column in any :class:`CellError`."""
    try:
        return convert(values)
    except CellError as exc:
        exc.column = name
        raise


def _clean_names(names: Sequence[Any]) -> tuple[str, ...]:
    """Column names as strings, without the byte-order mark a first name may carry."""
    texts = [_safe_str(name, "column name") for name in names]
    if texts:
        texts[0] = texts[0].removeprefix("\ufeff")
    return tuple(texts)


def to_string_array(values: Sequence[Any] | pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array:
    """Return ``values`` as a ``large_string`` Arrow array; missing cells become null.

    Integers become their decimal text; floats are written as Arrow writes them, so
    integral ones lose the ``.0`` (pandas turns an integer column with a gap into
    floats); item lists (lists, tuples, numpy arrays, Arrow lists of strings or
    integers) are joined by single spaces; anything else becomes ``str(value)``.

    Raises
    ------
    CellError
        A cell that cannot be an item list or text: a set, a mapping, a list of
        floats or of lists, an item that is empty, missing or holds whitespace, an
        integer too long to write out, an object whose ``str()`` fails.

    Examples
    --------
    >>> import pandas as pd
    >>> to_string_array(pd.Series([7, 8])).to_pylist()
    ['7', '8']
    >>> to_string_array(pd.Series([1.0, None, 2.5])).to_pylist()
    ['1', None, '2.5']
    >>> to_string_array(pd.Series(["a", 3, None, b"b"], dtype=object)).to_pylist()
    ['a', '3', None, 'b']
    >>> to_string_array(pd.Series([["a", "b"], ("c",), [], None, ["d", 7]])).to_pylist()
    ['a b', 'c', '', None, 'd 7']
    >>> to_string_array(pd.Series([["a b"]]))
    Traceback (most recent call last):
    ...
    scorer.read.columns.CellError: 1 item holding whitespace, e.g. 'a b'
    """
    if is_pandas(values, "Series") and values.dtype == object:
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            return _cells_to_text(values)
        if _is_list_type(array.type) and any(isinstance(v, _UNORDERED) for v in values):
            return _cells_to_text(values)  # pyarrow reads a set as a list: refuse it there
    elif isinstance(values, (pa.Array, pa.ChunkedArray)):
        array = values
    else:
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            return _cells_to_text(values)
    if isinstance(array, pa.ChunkedArray):
        array = one_chunk(array)
    return _arrow_to_text(array)


def _arrow_to_text(array: pa.Array) -> pa.Array:
    kind = array.type
    if pa.types.is_dictionary(kind):
        return _arrow_to_text(array.dictionary_decode())
    if pa.types.is_large_string(kind) or pa.types.is_string(kind) or is_view_type(kind, "string"):
        check_utf8(array)
        text = array if pa.types.is_large_string(kind) else array.cast(pa.large_string())
        return empty_nulls(text)
    if is_binary_type(kind):
        return empty_nulls(binary_as_text(array))
    if pa.types.is_null(kind):
        return pa.nulls(len(array), pa.large_string())
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind) or pa.types.is_floating(kind):
        return pc.cast(array, pa.large_string())
    if _is_list_type(kind):
        return _join_item_lists(array)
    if pa.types.is_struct(kind) or pa.types.is_map(kind) or pa.types.is_union(kind):
        raise _not_item_lists(f"{kind} values", ~np.asarray(array.is_null()))
    return _cells_to_text(array.to_pylist())


def is_binary_type(kind: pa.DataType) -> bool:
    """Bytes of any layout: binary, large, fixed-size or view."""
    return (
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_fixed_size_binary(kind)
        or is_view_type(kind, "binary")
    )


def _is_list_type(kind: pa.DataType) -> bool:
    """Lists of any layout: list, large_list, fixed_size_list, list_view, large_list_view."""
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return True
    if pa.types.is_fixed_size_list(kind):
        return True
    return any(
        getattr(pa.types, name, lambda _: False)(kind)
        for name in ("is_list_view", "is_large_list_view")
    )


def _join_item_lists(array: pa.Array, rows: np.ndarray | None = None) -> pa.Array:
    """Arrow lists of item ids as space-separated text; a null list stays null.

    Every item must be a non-empty string (or integer) without whitespace, so that
    the text splits back into exactly the same items. ``rows`` gives each list's row
    number in the column (for error examples) when ``array`` holds only some rows.

    Examples
    --------
    >>> _join_item_lists(pa.array([["a", "b"], [], None])).to_pylist()
    ['a b', '', None]
    >>> _join_item_lists(pa.array([[1, 20]], pa.list_(pa.int32(), 2))).to_pylist()
    ['1 20']
    """
    rows = np.arange(len(array)) if rows is None else rows
    items = pc.list_flatten(array)  # list_flatten and list_value_length work for every
    lengths = to_numpy(pc.list_value_length(array), fill=0).astype(np.int64)  # layout
    kind = items.type
    if pa.types.is_dictionary(kind):
        items, kind = items.dictionary_decode(), kind.value_type
    if pa.types.is_null(kind) and len(items):
        items, kind = pa.nulls(len(items), pa.large_string()), pa.large_string()
    text_items = (
        pa.types.is_string(kind) or pa.types.is_large_string(kind) or is_view_type(kind, "string")
    )
    if not (text_items or pa.types.is_integer(kind) or pa.types.is_null(kind)):
        raise _not_item_lists(f"lists of {kind}", _mark(rows, lengths > 0))
    starts = np.concatenate(([0], np.cumsum(lengths)))
    space, no_space = pa.scalar(" ", pa.large_string()), pa.scalar("", pa.large_string())
    row_bytes = np.zeros(len(array), dtype=np.int64)
    pieces: list[np.ndarray] = []
    # A bounded number of items at a time: a row may hold millions (a list<int8> of a
    # few bytes on disk), and each item's text, offset and row are made per chunk only.
    for begin in range(0, len(items), _ITEM_CHUNK):
        chunk = items.slice(begin, _ITEM_CHUNK)
        parents = np.searchsorted(starts, np.arange(begin, begin + len(chunk)), "right") - 1
        if text_items:
            check_utf8(chunk, rows=rows[parents])
        text = pc.cast(chunk, pa.large_string())
        _check_items(text, parents, rows)
        last = np.arange(begin + 1, begin + len(chunk) + 1) == starts[parents + 1]
        separators = pc.if_else(pa.array(last), no_space, space)
        joined = pc.binary_join_element_wise(text, separators, no_space)
        offsets = string_offsets(joined)
        row_bytes += np.bincount(parents, weights=np.diff(offsets), minlength=len(array)).astype(
            np.int64
        )
        pieces.append(string_bytes(joined).copy())
    data = np.concatenate(pieces) if pieces else np.zeros(0, dtype=np.uint8)
    offsets = np.concatenate(([0], np.cumsum(row_bytes))).astype(np.int64)
    joined = pa.LargeStringArray.from_buffers(len(array), pa.py_buffer(offsets), pa.py_buffer(data))
    if array.null_count:
        joined = pc.if_else(pc.is_null(array), pa.scalar(None, pa.large_string()), joined)
    return joined


def _check_items(items: pa.Array, parents: np.ndarray, rows: np.ndarray) -> None:
    """Refuse items that would not come back from splitting the joined text."""
    missing = to_numpy(pc.is_null(items), fill=True)
    texts = pc.fill_null(items, "")
    offsets = string_offsets(texts)
    lengths = np.diff(offsets) if offsets is not None else to_numpy(pc.binary_length(texts), 0)
    empty = ~missing & (lengths == 0)
    spaced = _holds_whitespace(texts)
    for bad, what, fix in (
        (missing, "missing item (None or NaN)", "remove the missing items from the lists"),
        (empty, "empty item", "remove the empty strings from the lists"),
        (
            spaced,
            "item holding whitespace",
            "make each id its own list item; an item id cannot hold whitespace, as the "
            "text form would split it into several ids",
        ),
    ):
        if bad.any():
            first = texts[int(np.flatnonzero(bad)[0])].as_py()
            example = f", e.g. {format_example(first)}" if what.endswith("whitespace") else ""
            raise CellError(
                "Item lists with unusable items",
                "lists whose items are non-empty item ids without whitespace",
                f"{format_count(int(bad.sum()), what)}{example}",
                fix,
                _mark(rows, np.isin(np.arange(len(rows)), parents[bad])),
            )


def _holds_whitespace(texts: pa.Array) -> np.ndarray:
    """Which strings hold whitespace; two reductions over the raw bytes rule it out for
    the usual printable-ASCII ids, and the regex decides only otherwise.

    Examples
    --------
    >>> _holds_whitespace(pa.array(["ab", "a b", "é", "a\u3000b"], pa.large_string()))
    array([False,  True, False,  True])
    """
    raw = string_bytes(texts)
    # Every byte str.split() may split on is at most 0x20 (ASCII whitespace, 0x1c-0x1f)
    # or a non-ASCII byte (the other whitespace characters are multi-byte in UTF-8).
    if raw is not None and (len(raw) == 0 or (raw.min() > 0x20 and raw.max() < 0x80)):
        return np.zeros(len(texts), dtype=bool)
    return to_numpy(pc.match_substring_regex(texts, _WHITESPACE), fill=False)


def _mark(rows: np.ndarray, among: np.ndarray) -> np.ndarray:
    """A mask over the column's rows: ``rows[among]`` set."""
    mask = np.zeros(int(rows.max(initial=-1)) + 1, dtype=bool)
    mask[rows[among]] = True
    return mask


def _not_item_lists(found: str, rows: np.ndarray) -> CellError:
    n_cells = int(np.count_nonzero(rows))
    return CellError(
        "Cells that are neither text nor item lists",
        "text (item ids separated by spaces), a number, or a list of item ids",
        f"{format_count(n_cells, 'cell')} holding {found}",
        _FIX_ITEM_LIST,
        rows,
    )


_UNORDERED = (set, frozenset, dict)


def _cells_to_text(values: Sequence[Any] | pd.Series) -> pa.Array:
    """Cell by cell, for columns Arrow cannot convert at once (mixed types)."""
    texts: list[str | None] = []
    list_rows: list[int] = []
    lists: list[list[str | None]] = []
    for row, value in enumerate(values):
        if isinstance(value, (bytes, bytearray, memoryview)):
            try:
                texts.append(bytes(value).decode("utf-8"))
            except UnicodeDecodeError:
                raise Utf8Error(row) from None
        elif isinstance(value, _ITEM_LISTS):
            list_rows.append(row)
            lists.append([_item_to_text(item, row) for item in value])
            texts.append(None)
        elif isinstance(value, _UNORDERED) or is_pandas(value, "Series"):
            mask = np.zeros(row + 1, dtype=bool)
            mask[row] = True
            raise _not_item_lists(f"a {type(value).__name__}", mask)
        else:
            texts.append(_cell_to_text(value))
    if list_rows:
        joined = _join_item_lists(
            pa.array(lists, type=pa.large_list(pa.large_string())), np.array(list_rows)
        )
        for row, text in zip(list_rows, joined.to_pylist(), strict=True):
            texts[row] = text
    return pa.array(texts, type=pa.large_string())


def _item_to_text(item: Any, row: int) -> str | None:
    """One item of a list cell: a string, or an integer written in decimal."""
    if item is None or isinstance(item, str):
        return item
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        return _safe_str(int(item), "item")
    if isinstance(item, (float, np.floating)) and math.isnan(item):
        return None
    mask = np.zeros(row + 1, dtype=bool)
    mask[row] = True
    raise _not_item_lists(f"a list with a {type(item).__name__} item", mask)


def _cell_to_text(value: Any) -> str | None:
    if value is None or is_pandas(value, "NA") or is_pandas(value, "NaT"):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return None if math.isnan(number) else pc.cast(pa.scalar(number), pa.string()).as_py()
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return _safe_str(int(value), "cell")
    return _safe_str(value, "cell")


def _safe_str(value: Any, what: str) -> str:
    """``str(value)``, or a :class:`CellError` saying why it cannot be had.

    Examples
    --------
    >>> _safe_str(10**5000, "cell")
    Traceback (most recent call last):
    ...
    scorer.read.columns.CellError: a cell holding an integer of 5,001 digits
    """
    try:
        return str(value)
    except ValueError as exc:
        if isinstance(value, int):  # Python refuses to write ints over 4,300 digits
            digits = int(value.bit_length() * math.log10(2)) + 1
            raise CellError(
                "Integer too long to write as text",
                "integers of at most 4,300 digits",
                f"a {what} holding an integer of {digits:,} digits",
                "give ids as strings; an id this long is almost certainly a mistake",
            ) from exc
        raise _str_failed(value, what, exc) from exc
    except Exception as exc:
        raise _str_failed(value, what, exc) from exc


def _str_failed(value: Any, what: str, exc: Exception) -> CellError:
    return CellError(
        "Value that cannot be written as text",
        "text, numbers or lists of item ids",
        f"a {what} holding a {type(value).__name__} whose str() raised {type(exc).__name__}",
        "convert the column to strings before scoring",
    )


def is_pandas(value: Any, name: str) -> bool:
    """Whether ``value`` is pandas' ``name`` (a class, or the NA/NaT singleton).

    pandas is looked up, never imported: if no one has imported it, no value can
    come from it, and the command line stays free of its import time. Nor can a value
    come from a pandas still being imported (pyarrow imports it on first use, perhaps
    on another thread), whose ``name`` may not be bound yet.
    """
    pandas = sys.modules.get("pandas")
    kind = getattr(pandas, name, None)
    if kind is None:
        return False
    return isinstance(value, kind) if isinstance(kind, type) else value is kind
