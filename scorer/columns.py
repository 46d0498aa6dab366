"""Turn any accepted input into a :class:`StringTable`: named columns of Arrow strings.

Every value the scorer handles is a string. Pandas frames may hold object strings,
the ``string`` dtype, Arrow-backed strings, integers (a row id column that pandas
parsed as numbers) or anything a hostile caller put there; this module is the one
place that turns all of them into ``large_string`` Arrow arrays, with null for a
missing cell. Files are read by :mod:`scorer.io`.
"""

from __future__ import annotations

import math
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.errors import ParticipantVisibleError, Problem, ScorerError, raise_if_any

if TYPE_CHECKING:
    import pandas as pd

    from scorer.io import ReadLimits

TableLike = Union["pd.DataFrame", pa.Table, "StringTable", str, os.PathLike]


@dataclass(frozen=True)
class StringTable:
    """Columns of strings, in file order, duplicate names kept.

    Parameters
    ----------
    names : tuple of str
        Column names as found (duplicates possible: validation reports them).
    columns : tuple of pyarrow.Array
        One ``large_string`` array per name, nulls for missing cells.

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
    columns: tuple[pa.Array, ...]

    @property
    def n_rows(self) -> int:
        """Number of rows (0 for a table without columns)."""
        return len(self.columns[0]) if self.columns else 0

    def column(self, name: str) -> pa.Array:
        """Return the first column called ``name``."""
        return self.columns[self.names.index(name)]

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> StringTable:
        """Convert a DataFrame without modifying it."""
        names = _clean_names(frame.columns)
        columns = tuple(to_string_array(frame.iloc[:, i]) for i in range(frame.shape[1]))
        return cls(names, columns)

    @classmethod
    def from_arrow(cls, table: pa.Table) -> StringTable:
        """Convert an Arrow table, casting every column to strings."""
        columns = tuple(to_string_array(table.column(i)) for i in range(table.num_columns))
        return cls(_clean_names(table.column_names), columns)


def _clean_names(names: Sequence[Any]) -> tuple[str, ...]:
    """Column names as strings, without the byte-order mark a first name may carry."""
    texts = [str(name) for name in names]
    if texts:
        texts[0] = texts[0].removeprefix("\ufeff")
    return tuple(texts)


def as_string_table(
    data: TableLike, error: type[ScorerError], limits: ReadLimits | None = None
) -> StringTable:
    """Accept a DataFrame, an Arrow table, a StringTable or a file path.

    Parameters
    ----------
    data : DataFrame, pyarrow.Table, StringTable, str or os.PathLike
        The input.
    error : type of ScorerError
        The class to raise if the input cannot be read (participant or host).
    limits : ReadLimits, optional
        Bounds applied when ``data`` is a file path (see :class:`scorer.io.ReadLimits`).
    """
    if isinstance(data, StringTable):
        return data
    try:
        if _is_pandas(data, "DataFrame"):
            return StringTable.from_frame(data)
        if isinstance(data, pa.Table):
            return StringTable.from_arrow(data)
    except UnicodeEncodeError as exc:  # a lone surrogate in a Python string
        problem = Problem(
            "Text that is not valid Unicode",
            "every cell valid Unicode text (encodable as UTF-8)",
            f"a cell with {exc.object[exc.start : exc.end]!r} ({exc.reason})",
            "remove or replace the broken characters before scoring",
        )
        subject = "The submission" if issubclass(error, ParticipantVisibleError) else "The solution"
        raise_if_any([problem], error, subject)
    if isinstance(data, (str, os.PathLike)):
        from scorer.io import read_table

        return read_table(data, error=error, limits=limits)
    raise error(
        f"Expected a pandas DataFrame, a pyarrow Table or a file path; got {type(data).__name__}."
    )


def to_string_array(values: Sequence[Any] | pd.Series | pa.Array | pa.ChunkedArray) -> pa.Array:
    """Return ``values`` as a ``large_string`` Arrow array; missing cells become null.

    Integers become their decimal text; floats are written as Arrow writes them, so
    integral ones lose the ``.0`` (pandas turns an integer column with a gap into
    floats); anything else becomes ``str(value)``.

    Examples
    --------
    >>> import pandas as pd
    >>> to_string_array(pd.Series([7, 8])).to_pylist()
    ['7', '8']
    >>> to_string_array(pd.Series([1.0, None, 2.5])).to_pylist()
    ['1', None, '2.5']
    >>> to_string_array(pd.Series(["a", 3, None, b"b"], dtype=object)).to_pylist()
    ['a', '3', None, 'b']
    """
    if _is_pandas(values, "Series") and values.dtype == object:
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            return pa.array([_cell_to_text(v) for v in values], type=pa.large_string())
    elif isinstance(values, (pa.Array, pa.ChunkedArray)):
        array = values
    else:
        try:
            array = pa.array(values, from_pandas=True)
        except (pa.ArrowException, ValueError, TypeError, OverflowError):
            return pa.array([_cell_to_text(v) for v in values], type=pa.large_string())
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks() if array.num_chunks else pa.array([], pa.large_string())
    return _arrow_to_text(array)


def _arrow_to_text(array: pa.Array) -> pa.Array:
    kind = array.type
    if pa.types.is_dictionary(kind):
        return _arrow_to_text(array.dictionary_decode())
    if pa.types.is_large_string(kind):
        return array
    if pa.types.is_string(kind) or _is_string_view(kind):
        return array.cast(pa.large_string())
    if pa.types.is_null(kind):
        return pa.nulls(len(array), pa.large_string())
    if pa.types.is_integer(kind) or pa.types.is_boolean(kind) or pa.types.is_floating(kind):
        return pc.cast(array, pa.large_string())
    return pa.array([_cell_to_text(v) for v in array.to_pylist()], type=pa.large_string())


def _is_string_view(kind: pa.DataType) -> bool:
    """Whether ``kind`` is Arrow's ``string_view`` (a type pyarrow < 16 does not have)."""
    is_string_view = getattr(pa.types, "is_string_view", None)
    return is_string_view is not None and is_string_view(kind)


def _cell_to_text(value: Any) -> str | None:
    if value is None or _is_pandas(value, "NA") or _is_pandas(value, "NaT"):
        return None
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).decode("utf-8", errors="replace")
    if isinstance(value, (float, np.floating)):
        number = float(value)
        return None if math.isnan(number) else pc.cast(pa.scalar(number), pa.string()).as_py()
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    return str(value)


def _is_pandas(value: Any, name: str) -> bool:
    """Whether ``value`` is pandas' ``name`` (a class, or the NA/NaT singleton).

    pandas is looked up, never imported: if no one has imported it, no value can
    come from it, and the command line stays free of its import time.
    """
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return False
    kind = getattr(pandas, name)
    return isinstance(value, kind) if isinstance(kind, type) else value is kind
