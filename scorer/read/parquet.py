"""Read Parquet files into :class:`~scorer.read.columns.StringTable`, within
:class:`~scorer.read.limits.ReadLimits`.

Arrow decodes the files in a process of its own (:mod:`scorer.read.parquet_decoder`),
whose address space may grow by ``max_decompressed_bytes`` and a small constant only:
whatever a crafted file makes a decoder allocate (a dictionary of millions of values,
pages that claim or expand to gigabytes) or crash on, it does so there, and comes back
as a refusal. The decoder streams each file back batch by batch; here each batch
becomes text, is checked (UTF-8, cell length) and counted against
``max_decompressed_bytes`` before the next is read. One decoder reads every file of a
call, so that a directory of many small parts costs one process start.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import IO

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from scorer.arrays import is_view_type, longest_string
from scorer.errors import HostVisibleError, Problem, ScorerError, format_count
from scorer.read.columns import (
    CellError,
    StringTable,
    Utf8Error,
    binary_as_text,
    check_utf8,
    convert_named,
    empty_nulls,
    is_binary_type,
    to_string_array,
)
from scorer.read.limits import (
    ASK_FOR_A_HIGHER_LIMIT,
    OFFSET_BYTES,
    FileChecks,
    ReadLimits,
    cell_lengths,
)
from scorer.read.parquet_decoder import BROKEN, DONE, OUT_OF_MEMORY, ROWS_KEY

#: The decoder: a script run by the interpreter running this package.
DECODER = Path(__file__).with_name("parquet_decoder.py")
#: Rows the decoder sends at once.
BATCH_ROWS = 1 << 16
#: What the decoder may hold beside ``max_decompressed_bytes``: a batch being decoded
#: and Arrow's reader around it.
DECODER_SLACK_BYTES = 64 << 20

#: Which rows of a batch to keep, given its columns by name (as text).
RowFilter = Callable[[dict[str, pa.Array]], np.ndarray]


def read_parquet(
    sources: Sequence[tuple[str, str]],
    error: type[ScorerError],
    limits: ReadLimits,
    keep: RowFilter | None = None,
) -> list[StringTable]:
    """Each Parquet file of ``sources`` (its name for messages, the path the decoder
    opens) as a table of text, in order.

    Parameters
    ----------
    keep : callable, optional
        Which rows of each batch to keep (one part of a run read from a larger file).
        Every row is read and checked as without it; the decoded size the limits bound
        is then the kept rows'.

    Examples
    --------
    >>> import os, tempfile, pyarrow.parquet as pq
    >>> from scorer.errors import ParticipantVisibleError
    >>> from scorer.read.limits import DEFAULT_LIMITS
    >>> path = os.path.join(tempfile.mkdtemp(), "sub.parquet")
    >>> pq.write_table(pa.table({"id": [7, 8], "items": [["a", "b"], None]}), path)
    >>> (table,) = read_parquet([(path, path)], ParticipantVisibleError, DEFAULT_LIMITS)
    >>> table.names, [column.to_pylist() for column in table.columns]
    (('id', 'items'), [['7', '8'], ['a b', None]])
    """
    budget = limits.max_decompressed_bytes + DECODER_SLACK_BYTES
    with _Decoding([path for _, path in sources], budget) as decoding:
        return [_ParquetReader(name, error, limits, keep).read(decoding) for name, _ in sources]


class _Decoding:
    """The decoder process for some files: their streams, one after the other, and
    why it stopped when one ends early. Leaving the context waits for the process to
    end, or ends it when reading stopped early."""

    def __init__(self, paths: list[str], budget: int) -> None:
        self.budget = budget
        self.stderr: IO[bytes] = tempfile.TemporaryFile()  # noqa: SIM115 (closed on exit)
        command = [sys.executable, str(DECODER), str(budget), str(BATCH_ROWS), *paths]
        try:
            self.process = subprocess.Popen(
                command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=self.stderr
            )
        except OSError as exc:  # out of memory or processes: the host's machine
            self.stderr.close()
            raise _decoder_failed(str(exc)) from None
        self.output: IO[bytes] = self.process.stdout  # type: ignore[assignment]

    def __enter__(self) -> _Decoding:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        # A decoder that sent every file ends of itself; one stopped early is ended here.
        if kind is not None and self.process.poll() is None:
            self.process.kill()
        self.output.close()
        self.process.wait()
        self.stderr.close()

    def stream(self) -> pa.ipc.RecordBatchStreamReader:
        return pa.ipc.open_stream(self.output)

    def stop_reason(self, limit: int) -> Problem:
        """Why the decoder stopped before the end of a stream: the file's problem; or,
        when the decoder itself failed (it could not start, or the system stopped it),
        the host's error."""
        self.output.close()
        code = self.process.wait()
        self.stderr.seek(0)
        said = self.stderr.read().decode("utf-8", "replace").strip().splitlines()
        last = said[-1] if said else ""
        # Arrow may end the process when an allocation fails on one of its threads, not
        # raise: the decoder at its cap all the same.
        crashed_at_the_cap = code < 0 and any(word in line for line in said for word in _OOM)
        if code == OUT_OF_MEMORY or crashed_at_the_cap:
            return _too_big_parquet(
                limit,
                f"pages that need more than the {self.budget:,} bytes the decoder may hold "
                f"({last or 'out of memory'})",
            )
        if code == BROKEN:
            return broken_parquet(last)
        if code < 0 and -code != signal.SIGKILL:  # Arrow crashed on the file
            return broken_parquet(f"the Parquet decoder stopped on it: {_signal_name(-code)}")
        how = _signal_name(-code) if code < 0 else f"exit code {code}"
        raise _decoder_failed(f"{how}: {last}" if last else how)


@dataclass(frozen=True)
class _ParquetReader(FileChecks):
    """One file's stream: its schema checked, then its batches as text."""

    keep: RowFilter | None = None

    def read(self, decoding: _Decoding) -> StringTable:
        limit = self.limits.max_decompressed_bytes
        stream = self.opened(decoding)
        self.check_schema(stream.schema)
        names = stream.schema.names
        parts: list[list[pa.Array]] = [[] for _ in names]
        decoded = rows = 0
        for batch in self.batches(stream, decoding):
            texts = [self.batch_text(batch.column(i), name, rows) for i, name in enumerate(names)]
            decoded += OFFSET_BYTES * sum(_list_values(column) for column in batch.columns)
            if self.keep is not None:  # one part of a run: its rows only are kept
                kept = pa.array(self.keep(dict(zip(names, texts, strict=True))))
                texts = [text.filter(kept) for text in texts]
            for part, text in zip(parts, texts, strict=True):
                decoded += text.nbytes
                part.append(text)
            if decoded > limit:
                self.fail(_too_big_parquet(limit, f"more than {limit:,} bytes once decoded"))
            rows += batch.num_rows
        if decoding.output.read(len(DONE)) != DONE:  # it stopped between two batches
            self.fail(decoding.stop_reason(limit))
        # Each column's batches are joined, then freed, before the next column's.
        columns = [_joined(parts.pop(0)) for _ in range(len(parts))]
        table = StringTable.from_text(names, columns)
        self.check_fields(table)
        return table

    def opened(self, decoding: _Decoding) -> pa.ipc.RecordBatchStreamReader:
        try:
            return decoding.stream()
        except (pa.ArrowException, OSError):
            self.fail(decoding.stop_reason(self.limits.max_decompressed_bytes))

    def batches(
        self, stream: pa.ipc.RecordBatchStreamReader, decoding: _Decoding
    ) -> Iterator[pa.RecordBatch]:
        """The stream's batches; a stream cut short is the decoder's refusal."""
        while True:
            try:
                batch = stream.read_next_batch()
            except StopIteration:
                return
            except (pa.ArrowException, OSError):
                self.fail(decoding.stop_reason(self.limits.max_decompressed_bytes))
            yield batch

    def check_schema(self, schema: pa.Schema) -> None:
        """Refuse too many columns, a type that is no text, or more rows than the limit
        allows (each cell decodes to at least its offset) before any row is used."""
        self.check_columns(len(schema))
        problems = [_unsupported_type(f.name, f.type) for f in schema if not _text_like(f.type)]
        if problems:
            self.fail(*problems)
        rows = int((schema.metadata or {}).get(ROWS_KEY, b"0"))  # as the footer says
        at_least = rows * len(schema) * OFFSET_BYTES
        if at_least > self.limits.max_decompressed_bytes:
            self.fail(
                _too_big_parquet(
                    self.limits.max_decompressed_bytes,
                    f"{format_count(rows, 'row')} of {format_count(len(schema), 'column')}: "
                    f"at least {at_least:,} bytes once decoded ({OFFSET_BYTES} per cell)",
                )
            )

    def batch_text(self, column: pa.Array, name: str, first_row: int) -> pa.Array:
        """One batch of a column as UTF-8 text (refused as any text is when it is not
        valid UTF-8), a cell over ``max_field_bytes`` refused before the next batch."""
        kind = column.type
        try:
            if is_binary_type(kind):
                text = empty_nulls(binary_as_text(column))
            elif pa.types.is_string(kind) or is_view_type(kind, "string"):
                text = column.cast(pa.large_string())
            elif not pa.types.is_large_string(kind):
                text = convert_named(name, to_string_array, column)  # numbers, item lists
            else:
                text = column
            if pa.types.is_large_string(kind) or pa.types.is_string(kind):
                check_utf8(text)
        except CellError as exc:
            exc.column = name
            if isinstance(exc, Utf8Error):
                exc.row += first_row
            self.fail(exc.problem())
        if longest_string(text) > self.limits.max_field_bytes:
            lengths = np.concatenate((np.zeros(first_row, dtype=np.int64), cell_lengths(text)))
            self.refuse_long_cells(lengths, name)
        return text


#: What a process that ran out of memory says as it ends (Arrow, the C++ runtime).
_OOM = ("Out of memory", "bad_alloc", "Cannot allocate memory")


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _text_like(kind: pa.DataType, item_lists: bool = True) -> bool:
    """Whether a Parquet column of this type is read: text, bytes, numbers, booleans
    or nulls (each cell a bounded text), or a list of text or integers (an item list);
    not nested lists, temporal or decimal types."""
    if pa.types.is_dictionary(kind):
        kind = kind.value_type
    if item_lists and (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        items = kind.value_type
        return pa.types.is_integer(items) or (
            _text_like(items, item_lists=False) and not _is_number_or_flag(items)
        )
    return (
        pa.types.is_string(kind)
        or pa.types.is_large_string(kind)
        or is_view_type(kind, "string")
        or is_binary_type(kind)
        or pa.types.is_integer(kind)
        or pa.types.is_floating(kind)
        or pa.types.is_boolean(kind)
        or pa.types.is_null(kind)
    )


def _is_number_or_flag(kind: pa.DataType) -> bool:
    """Floats and booleans read as cells, but are no item ids (``1.0`` is not ``1``)."""
    return pa.types.is_floating(kind) or pa.types.is_boolean(kind) or pa.types.is_null(kind)


def _list_values(cells: pa.Array) -> int:
    """How many values an item-list column's cells hold (0 for other columns): each
    counts as a cell towards the decoded size, as Arrow decodes it with its offset.

    Examples
    --------
    >>> _list_values(pa.array([[1, 2], None, [3]])), _list_values(pa.array(["a b"]))
    (3, 0)
    """
    if not (pa.types.is_list(cells.type) or pa.types.is_large_list(cells.type)):
        return 0
    return int(pc.sum(pc.list_value_length(cells)).as_py() or 0)


def _joined(batches: list[pa.Array]) -> pa.Array:
    """One array of the batches' text, which are let go of as they are copied."""
    if not batches:
        return pa.array([], pa.large_string())
    joined = pa.concat_arrays(batches)
    batches.clear()
    return joined


def _decoder_failed(how: str) -> HostVisibleError:
    return HostVisibleError(
        f"The process that decodes Parquet files failed ({how}): out of memory or of "
        "processes, most likely. Give the scorer more memory, or the inputs as CSV."
    )


def broken_parquet(reason: str) -> Problem:
    return Problem(
        "Unreadable file",
        "a Parquet file as a Parquet writer makes it (pandas' to_parquet, say)",
        f"broken Parquet file ({reason})",
        "write the file again with pandas (df.to_parquet(path)) or pyarrow, or upload "
        "the data as UTF-8 CSV",
    )


def _too_big_parquet(limit: int, found: str) -> Problem:
    return Problem(
        "Decompressed data too large",
        f"at most {limit:,} bytes (Parquet data)",
        found,
        ASK_FOR_A_HIGHER_LIMIT,
    )


def _unsupported_type(name: str, kind: pa.DataType) -> Problem:
    return Problem(
        "Unsupported column type",
        "Parquet columns of text (or of integers, floats or booleans)",
        f"column {name!r} of type {kind}",
        "write every column as text, e.g. with pandas: df.astype(str).to_parquet(...)",
    )
