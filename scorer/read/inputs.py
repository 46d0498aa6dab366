"""The one entry to reading: a DataFrame, an Arrow table, a :class:`StringTable` or a
path, each turned into a :class:`StringTable` within the same :class:`ReadLimits`.

Files go to :mod:`scorer.read.files`, in-memory tables to :mod:`scorer.read.columns`.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Union

import pyarrow as pa

from scorer.errors import (
    HostVisibleError,
    ParticipantVisibleError,
    Problem,
    ScorerError,
    raise_if_any,
)
from scorer.read.columns import CellError, StringTable, is_pandas, not_utf8
from scorer.read.files import DEFAULT_LIMITS, ReadLimits, read_table

if TYPE_CHECKING:
    import pandas as pd

TableLike = Union["pd.DataFrame", pa.Table, "StringTable", str, os.PathLike]


def as_string_table(
    data: TableLike,
    error: type[ScorerError],
    limits: ReadLimits | None = None,
    runs: bool = False,
) -> StringTable:
    """Accept a DataFrame, an Arrow table, a StringTable or a file path.

    Parameters
    ----------
    data : DataFrame, pyarrow.Table, StringTable, str or os.PathLike
        The input.
    error : type of ScorerError
        The class to raise if the input cannot be read (participant or host).
    limits : ReadLimits, optional
        Bounds on the input (see :class:`scorer.read.files.ReadLimits`); a DataFrame or Arrow
        table is held to ``max_columns`` like a file.
    runs : bool, default False
        A file's column may come back run-end encoded (:func:`~scorer.read.files.read_table`).

    Examples
    --------
    >>> import pandas as pd
    >>> frame = pd.DataFrame({"id": ["u1", "u2"], "items": [["a", "b"], []]})
    >>> as_string_table(frame, HostVisibleError).column("items").to_pylist()
    ['a b', '']
    >>> as_string_table(frame, HostVisibleError, limits={"max_columns": 5})
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: limits must be a scorer.ReadLimits; got dict ...
    """
    if limits is None:
        limits = DEFAULT_LIMITS
    elif not isinstance(limits, ReadLimits):
        raise HostVisibleError(
            f"limits must be a scorer.ReadLimits; got {type(limits).__name__} "
            f"({limits!r:.80}). Write limits=ReadLimits(max_columns=200), for example."
        )
    if isinstance(data, StringTable):
        return data
    subject = "The submission" if issubclass(error, ParticipantVisibleError) else "The solution"
    with cell_refusals(error, subject):
        if is_pandas(data, "DataFrame") or isinstance(data, pa.Table):
            _check_width(data.shape[1], limits.max_columns, error, subject)
            if is_pandas(data, "DataFrame"):
                return StringTable.from_frame(data)
            return StringTable.from_arrow(data)
        if isinstance(data, (str, os.PathLike)):
            return read_table(data, error=error, limits=limits, runs=runs)
    raise error(
        f"Expected a pandas DataFrame, a pyarrow Table or a file path; got {type(data).__name__}."
    )


def is_a_pipe(data: Any) -> bool:
    """Whether ``data`` is the path of something other than a regular file or a folder
    (a pipe, such as ``<(cat solution.csv)``): it can be read once only.

    Examples
    --------
    >>> is_a_pipe("/dev/null"), is_a_pipe("."), is_a_pipe(None), is_a_pipe("missing.csv")
    (True, False, False, False)
    """
    if not isinstance(data, str | os.PathLike):
        return False
    try:
        mode = os.stat(data).st_mode
    except OSError:  # a missing file: its reader says so
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def refuse_piped_qrels(qrels: Any) -> None:
    """Refuse trec_eval's qrels from a pipe where they are read with each run (several
    runs): a pipe can be read once only.

    Examples
    --------
    >>> refuse_piped_qrels("/dev/null")
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The qrels '/dev/null' are a pipe, which can be read once \
only, and trec_eval's qrels are read with each run: write them to a file and give its path.
    """
    if is_a_pipe(qrels):
        raise HostVisibleError(
            f"The qrels {os.fspath(qrels)!r} are a pipe, which can be read once only, and "
            "trec_eval's qrels are read with each run: write them to a file and give its path."
        )


@contextmanager
def cell_refusals(error: type[ScorerError], subject: str) -> Iterator[None]:
    """Cells that cannot be text (a lone surrogate in a Python string, a mapping, bytes
    that are not UTF-8) refused as ``error``, one problem naming the first.

    Examples
    --------
    >>> from scorer.read.columns import to_string_array
    >>> with cell_refusals(HostVisibleError, "The row-id column"):
    ...     to_string_array(["u1", {"u": 2}])
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The row-id column is invalid (1 problem):
    1. Cells that are neither text nor item lists
    ...
    """
    try:
        yield
    except UnicodeEncodeError as exc:
        problem = not_utf8(
            f"a cell with {exc.object[exc.start : exc.end]!r}, which UTF-8 cannot encode "
            f"({exc.reason})"
        )
        raise_if_any([problem], error, subject)
    except CellError as exc:
        raise_if_any([exc.problem()], error, subject)


def _check_width(n_columns: int, limit: int, error: type[ScorerError], subject: str) -> None:
    """Refuse a frame wider than ``limit`` before touching any of its columns."""
    if n_columns > limit:
        problem = Problem(
            "Too many columns",
            f"at most {limit:,} columns",
            f"{n_columns:,} columns",
            "keep only the columns of the sample submission",
        )
        raise_if_any([problem], error, subject)
