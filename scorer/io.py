"""Read solution and submission files into :class:`~scorer.columns.StringTable`.

Every column is read as a string, with no NA conversion (``NA``, ``null`` and
``nan`` are legitimate ids; an empty cell is an empty string). A UTF-8 byte-order
mark is tolerated. This module knows nothing about MAP@K.
"""

from __future__ import annotations

import csv
import os

import pyarrow as pa
import pyarrow.csv as pacsv

from scorer.columns import StringTable
from scorer.errors import Problem, ScorerError, raise_if_any

_BOM = b"\xef\xbb\xbf"


def read_table(path: str | os.PathLike, error: type[ScorerError]) -> StringTable:
    """Read a CSV file with every column as a string.

    Parameters
    ----------
    path : str or os.PathLike
        The file.
    error : type of ScorerError
        Raised, listing the problem, when the file cannot be read.
    """
    name = os.fspath(path)
    try:
        with open(name, "rb") as handle:
            data = handle.read()
    except OSError as exc:
        raise_if_any([_unreadable(name, exc.strerror or str(exc))], error, _subject(name))
    return parse_csv(data, name, error)


def parse_csv(data: bytes, name: str, error: type[ScorerError]) -> StringTable:
    """Parse CSV bytes with a header row into all-string columns.

    Examples
    --------
    >>> from scorer.errors import ParticipantVisibleError
    >>> table = parse_csv(b"\\xef\\xbb\\xbfid,items\\r\\n007,NA b\\r\\n008,\\r\\n", "s.csv",
    ...                   ParticipantVisibleError)
    >>> table.names, [c.to_pylist() for c in table.columns]
    (('id', 'items'), [['007', '008'], ['NA b', '']])
    """
    data = data.removeprefix(_BOM)
    if not data.strip():
        raise_if_any(
            [
                Problem(
                    "Empty file",
                    "a CSV file with a header row",
                    f"{len(data):,} bytes with no content",
                    "export the file again; check that it was saved before uploading",
                )
            ],
            error,
            _subject(name),
        )
    header_end = data.find(b"\n")
    header_bytes = data if header_end < 0 else data[:header_end]
    try:
        header = next(csv.reader([header_bytes.decode("utf-8").rstrip("\r")]))
    except (UnicodeDecodeError, csv.Error) as exc:
        raise_if_any(
            [_unreadable(name, f"the header row is not UTF-8 CSV ({exc})")], error, _subject(name)
        )
    placeholders = [f"column_{i}" for i in range(len(header))]
    try:
        table = pacsv.read_csv(
            pa.BufferReader(data),
            read_options=pacsv.ReadOptions(column_names=placeholders, skip_rows=1),
            parse_options=pacsv.ParseOptions(newlines_in_values=True),
            convert_options=pacsv.ConvertOptions(
                column_types=dict.fromkeys(placeholders, pa.large_string()),
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
                check_utf8=True,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
        raise_if_any([_unreadable(name, str(exc).splitlines()[0])], error, _subject(name))
    columns = tuple(table.column(i).combine_chunks() for i in range(table.num_columns))
    return StringTable(tuple(header), columns)


def _subject(name: str) -> str:
    return f"The file {os.path.basename(name)!r}"


def _unreadable(name: str, reason: str) -> Problem:
    return Problem(
        "Unreadable file",
        "a UTF-8 CSV file with a header row and the same number of fields on every line",
        reason,
        "export the file again as UTF-8 CSV (for example with pandas: to_csv(index=False))",
    )
