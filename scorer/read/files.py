"""Read solution and submission files into :class:`~scorer.read.columns.StringTable`.

Every column is read as a string, with no NA conversion (``NA``, ``null`` and
``nan`` are legitimate ids; an empty cell is an empty string). A UTF-8 byte-order
mark and CRLF line endings are tolerated. The format is chosen by the file's first
bytes, whatever its name: gzip (``.csv.gz``), zip holding one CSV, Parquet, or
else CSV. Every read is bounded by :class:`ReadLimits`, so a hostile file is
refused with a clear message instead of exhausting memory. Outputs are written
with :func:`write_atomic`. This module knows nothing about MAP@K.
"""

from __future__ import annotations

import codecs
import csv
import gzip
import io
import mmap
import os
import re
import stat
import tempfile
import threading
import weakref
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, fields
from typing import TYPE_CHECKING, BinaryIO, NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from scorer.arrays import WORKERS, is_view_type, joined_strings, longest_string, one_chunk
from scorer.errors import (
    MAX_EXAMPLES,
    HostVisibleError,
    InputIsADirectoryError,
    MissingInputError,
    ParticipantVisibleError,
    Problem,
    ScorerError,
    example_row_numbers,
    format_count,
    raise_if_any,
)
from scorer.read.columns import (
    CellError,
    StringTable,
    Utf8Error,
    binary_as_text,
    check_utf8,
    convert_named,
    empty_nulls,
    is_binary_type,
    not_utf8,
    to_string_array,
)
from scorer.read.fixed_lines import split_fixed_lines, split_prefixed_lines
from scorer.read.parquet_pages import (
    DICTIONARY_PAGE,
    BadPageHeader,
    ChunkMeta,
    Page,
    PageWalker,
    check_disjoint,
    chunk_range,
    footer_chunks,
    longest_plain_value,
)

if TYPE_CHECKING:
    import pyarrow.parquet as pq

_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_PARQUET_MAGIC = b"PAR1"
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
# Parquet: each decoded cell costs at least its 8-byte offset; a number or boolean
# decodes to at most this much text; and at most this many rows are decoded at once.
_OFFSET_BYTES = 8
_NUMBER_TEXT_BYTES = 32
_PARQUET_BATCH_ROWS = 1 << 16
# What one batch may decode to at most, beside a sixteenth of the limit: within the
# memory contract's constant, so a small limit does not force batches of a few rows.
_PARQUET_BATCH_BYTES = 64 << 20
_DICTIONARY_VALUE_BYTES = 16
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SNIFF_BYTES = 1 << 16
_CHUNK_BYTES = 1 << 22
_PARSE_BLOCK_BYTES = 1 << 22
_MAX_PARSE_BLOCK_BYTES = (1 << 31) - 1  # the parser's block size is an int32
_LINE_SCAN_BYTES = 1 << 23
_LF, _CR = ord("\n"), ord("\r")
#: The fix of every "too large" problem.
_ASK_FOR_A_HIGHER_LIMIT = (
    "check that this is the right file; if it is, ask the host to raise the limit"
)
# Fewer lines than this are parsed even when they share one layout: the parser is
# fast enough there, and small files keep one reading route.
FIXED_LINES_MIN_ROWS = 50_000
_MiB = 1 << 20
_GiB = 1 << 30
# How long a read waits for Arrow to let go of its input (see _lend_to_arrow): a bound
# only, far above the sub-millisecond it takes.
_ARROW_RETURN_SECONDS = 5.0
_NON_BLANK = re.compile(rb"\S")  # what bytes.strip() keeps: not ASCII whitespace

# The text of a CSV file: bytes, or the file itself mapped into memory (read-only).
Text = bytes | mmap.mmap


@dataclass(frozen=True)
class ReadLimits:
    """Upper bounds on what the scorer accepts from one input file.

    The defaults let an H&M-scale file through with room to spare (1.4 million
    rows, about 240 MB, lines of about 90 characters) and stop a hostile one
    before it costs memory. Each limit is a positive int.

    Parameters
    ----------
    max_input_bytes : int, default 1 GiB
        Size of the file as stored (compressed, for ``.gz``, ``.zip`` and Parquet).
    max_decompressed_bytes : int, default 1 GiB
        Size of the CSV text once decompressed (or of a Parquet file's data,
        uncompressed). A zip member declaring more is refused before it is
        read; a gzip stream is refused as soon as it passes the limit.
    max_line_bytes : int, default 1 MiB
        Length of one line of CSV, line ending excluded.
    max_field_bytes : int, default 512 KiB
        Length of one cell (UTF-8 bytes).
    max_columns : int, default 100
        Number of columns.
    max_compression_ratio : int, default 200
        Decompressed size over compressed size, for gzip and zip (checked once
        more than 1 MiB is out). Real CSV files compress up to about 50 to 1; a
        decompression bomb about 1000 to 1, so it is refused at once rather than
        at ``max_decompressed_bytes``.

    Examples
    --------
    >>> ReadLimits().max_input_bytes == 2**30
    True
    >>> ReadLimits(max_input_bytes=2**31).max_input_bytes
    2147483648
    >>> ReadLimits(max_columns=0)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The 'max_columns' limit must be an int ≥ 1. Got 0 instead.
    """

    max_input_bytes: int = _GiB
    max_decompressed_bytes: int = _GiB
    max_line_bytes: int = _MiB
    max_field_bytes: int = _MiB // 2
    max_columns: int = 100
    max_compression_ratio: int = 200

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise HostVisibleError(
                    f"The {item.name!r} limit must be an int ≥ 1. Got {value!r} instead."
                )


DEFAULT_LIMITS = ReadLimits()


#: Which rows of a batch to keep, given its columns by name (as text).
RowFilter = Callable[[dict[str, pa.Array]], np.ndarray]


def read_table(
    path: str | os.PathLike,
    error: type[ScorerError],
    limits: ReadLimits | None = None,
    keep: RowFilter | None = None,
    runs: bool = False,
    chunked: str | None = None,
) -> StringTable:
    """Read a CSV, gzipped CSV, zipped CSV or Parquet file with every column as a string.

    Parameters
    ----------
    path : str or os.PathLike
        The file. Its format is read from its first bytes, not its name.
    error : type of ScorerError
        Raised, listing the problem, when the file cannot be read or breaks a limit.
    limits : ReadLimits, optional
        Bounds on size, line and field length and column count; the defaults otherwise.
    keep : callable, optional
        Parquet only: which rows of each batch to keep (one part of a run read from a
        larger file). Every row is read and checked as without it; the decoded size
        the limits bound is then the kept rows'.
    runs : bool, default False
        A large CSV body read without the parser may give a column whose equal values
        come in runs (a long file's row ids) run-end encoded
        (:mod:`scorer.read.fixed_lines`): for a caller that takes such a column.
    chunked : str, optional
        A column of this name parsed in several chunks comes back as the parser's
        chunks (a ``pyarrow.ChunkedArray``), not joined into one array: for a caller
        that takes such a column (a wide submission's lists, read a chunk at a time
        by :class:`~scorer.align.item_lists.ListCells`), it saves a copy of the column.

    Examples
    --------
    >>> import gzip, os, tempfile
    >>> from scorer.errors import ParticipantVisibleError
    >>> folder = tempfile.mkdtemp()
    >>> path = os.path.join(folder, "sub.csv.gz")
    >>> with gzip.open(path, "wb") as handle:
    ...     _ = handle.write(b"id,items\\nNA,null nan\\n")
    >>> table = read_table(path, ParticipantVisibleError)
    >>> table.names, table.column("id").to_pylist(), table.column("items").to_pylist()
    (('id', 'items'), ['NA'], ['null nan'])
    """
    reader, handle = _open_input(path, error, limits, keep, runs, chunked)
    with handle:
        return reader.read(handle)


def _open_input(
    path: str | os.PathLike,
    error: type[ScorerError],
    limits: ReadLimits | None,
    keep: RowFilter | None = None,
    runs: bool = False,
    chunked: str | None = None,
) -> tuple[_Reader, BinaryIO]:
    """A reader for ``path`` within ``limits`` and the file opened for it (a regular
    file only, checked first); an unreadable file is ``error``'s problem."""
    check_input_path(os.fspath(path), error)
    reader = _Reader(os.fspath(path), error, limits or DEFAULT_LIMITS, keep, runs, chunked)
    try:
        return reader, open(reader.name, "rb")
    except OSError as exc:
        reader.fail(_unreadable(exc.strerror or str(exc)))
        raise  # not reached: fail raises


def read_lines_text(
    path: str | os.PathLike,
    error: type[ScorerError],
    limits: ReadLimits | None,
    fields_per_line: int,
    expected: str,
) -> tuple[Text, int]:
    """The text of a headerless file of lines (plain, gzip or zip), checked as a CSV
    file's text is: not blank, not binary, valid UTF-8, within the size and line limits,
    and within the decompressed-size limit counting ``fields_per_line`` cells a line.

    Returns the text and where its content starts (after a byte-order mark).

    Examples
    --------
    >>> import os, tempfile
    >>> from scorer.errors import ParticipantVisibleError
    >>> path = os.path.join(tempfile.mkdtemp(), "run.txt")
    >>> with open(path, "wb") as handle:
    ...     _ = handle.write(b"\\xef\\xbb\\xbfq1 Q0 d1 1 0.5 tag\\n")
    >>> text, start = read_lines_text(path, ParticipantVisibleError, None, 6, "a run file")
    >>> bytes(text[start:])
    b'q1 Q0 d1 1 0.5 tag\\n'
    """
    reader, handle = _open_input(path, error, limits)
    with handle:
        found = reader.read_text(handle)
    if found is None:
        reader.fail(
            Problem(
                "Not a text file",
                expected,
                "a Parquet file",
                "give the file as plain text (optionally gzipped or zipped)",
            )
        )
    text, container = found
    start = reader.check_content(text, expected, container or "text")
    reader.check_lines(text)
    reader.check_decoded_size(text, start, fields_per_line)
    if not _valid_utf8(text, start):
        reader.fail(not_utf8(_first_invalid_utf8_byte(text, start)))
    return text, start


def _valid_utf8(text: Text, start: int) -> bool:
    """Whether the text from ``start`` is valid UTF-8 (Arrow's check: no copy)."""
    view = np.frombuffer(text, dtype=np.uint8)[start:]
    offsets = np.array([0, len(view)], dtype=np.int64)
    whole = pa.Array.from_buffers(
        pa.large_string(), 1, [None, pa.py_buffer(offsets), pa.py_buffer(view)]
    )
    try:
        whole.validate(full=True)
    except pa.ArrowInvalid:
        return False
    return True


def _first_invalid_utf8_byte(text: Text, start: int) -> str:
    """Where the text stops being UTF-8, found a chunk at a time (no full copy)."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    for offset in range(start, len(text), _CHUNK_BYTES):
        chunk = text[offset : offset + _CHUNK_BYTES]
        try:
            decoder.decode(chunk, final=offset + _CHUNK_BYTES >= len(text))
        except UnicodeDecodeError as exc:
            line = _count_newlines(text, offset + exc.start) + 1
            return f"byte 0x{chunk[exc.start : exc.start + 1].hex()} on line {line:,} is not UTF-8"
    return "the text is not valid UTF-8"


def check_input_path(path: str, error: type[ScorerError]) -> None:
    """Refuse a path that is missing or a directory: a usage error naming the path.

    Whoever passed the path made the mistake, not the author of the file, so it is
    a :class:`HostVisibleError` (exit 2) for the submission too, and also the
    ``FileNotFoundError`` or ``IsADirectoryError`` a Python user expects.

    Examples
    --------
    >>> check_input_path("no/such/file.csv", HostVisibleError)
    Traceback (most recent call last):
    ...
    scorer.errors.MissingInputError: The solution path 'no/such/file.csv' does not exist. ...
    """
    role = "submission" if issubclass(error, ParticipantVisibleError) else "solution"
    if os.path.isdir(path):
        raise InputIsADirectoryError(
            f"The {role} path {path!r} is a directory. Give the path of the {role} file "
            "itself (.csv, .csv.gz, .zip or .parquet)."
        )
    if not os.path.exists(path):
        raise MissingInputError(
            f"The {role} path {path!r} does not exist. Check the path and the working "
            f"directory ({os.getcwd()!r})."
        )


def parse_csv(
    data: bytes, name: str, error: type[ScorerError], limits: ReadLimits | None = None
) -> StringTable:
    """Parse CSV bytes with a header row into all-string columns.

    Examples
    --------
    >>> from scorer.errors import ParticipantVisibleError
    >>> table = parse_csv(b"\\xef\\xbb\\xbfid,items\\r\\n007,NA b\\r\\n008,\\r\\n", "s.csv",
    ...                   ParticipantVisibleError)
    >>> table.names, [c.to_pylist() for c in table.columns]
    (('id', 'items'), [['007', '008'], ['NA b', '']])
    """
    return _Reader(name, error, limits or DEFAULT_LIMITS).parse_csv(data)


@dataclass(frozen=True)
class _Reader:
    name: str
    error: type[ScorerError]
    limits: ReadLimits
    keep: RowFilter | None = None
    runs: bool = False
    chunked: str | None = None

    def fail(self, *problems: Problem) -> NoReturn:
        raise_if_any(problems, self.error, f"The file {os.path.basename(self.name)!r}")
        raise RuntimeError("unreachable: raise_if_any raised")  # pragma: no cover

    def read(self, handle: BinaryIO) -> StringTable:
        found = self.read_text(handle)
        if found is None:
            return self.read_parquet(handle)
        if self.keep is not None:
            self.fail(_not_parquet())
        return self.parse_csv(*found)

    def read_text(self, handle: BinaryIO) -> tuple[Text, str] | None:
        """The file's text (decompressed, within the limits) and its container
        (``"gzip"``, ``"zip"`` or ``""``); None for a Parquet file."""
        limit = self.limits.max_input_bytes
        mappable = False
        if handle.seekable():
            status = os.fstat(handle.fileno())
            size = status.st_size
            mappable = stat.S_ISREG(status.st_mode) and size > 0
        else:  # a pipe such as /dev/stdin: read it, bounded, into memory
            handle = io.BytesIO(_read_at_most(handle, limit + 1))
            size = len(handle.getbuffer())
        if size > limit:
            self.fail(_too_big("File too large", size, limit, "stored"))
        head = handle.read(_SNIFF_BYTES)
        if head.startswith(_PARQUET_MAGIC):
            return None
        if head.startswith(_GZIP_MAGIC):
            handle.seek(0)
            return self.gunzip(handle), "gzip"
        if head.startswith(_ZIP_MAGICS):
            handle.seek(0)
            return self.unzip(handle), "zip"
        self.check_text(head, final=len(head) < _SNIFF_BYTES)
        text = _mapped(handle, size) if mappable else None
        if text is not None:
            return text, ""
        handle.seek(0)
        data = _read_at_most(handle, limit + 1)
        if len(data) > limit:  # the file grew while being read
            self.fail(_too_big("File too large", len(data), limit, "stored"))
        return data, ""

    def check_text(self, head: bytes, final: bool) -> None:
        """Refuse binary or non-UTF-8 content from its first bytes, before any parse."""
        if head.startswith(_UTF16_BOMS):
            self.fail(not_utf8("the file is UTF-16 text (it starts with a UTF-16 byte-order mark)"))
        nul = head.find(b"\x00")
        if nul >= 0:
            line = head.count(b"\n", 0, nul) + 1
            self.fail(not_utf8(f"binary data: a NUL byte on line {line:,} (byte {nul + 1:,})"))
        try:
            codecs.getincrementaldecoder("utf-8")().decode(head, final=final)
        except UnicodeDecodeError as exc:
            self.fail(not_utf8(_utf8_position(head, exc)))

    def stream_limited(
        self, chunks: Iterator[bytes], consumed: Callable[[], int], what: str
    ) -> bytes:
        """Join decompressed chunks, stopping as soon as a limit is passed."""
        limit = self.limits.max_decompressed_bytes
        parts: list[bytes] = []
        total = 0
        for chunk in chunks:
            if not parts:
                self.check_text(chunk, final=len(chunk) < _SNIFF_BYTES)
            total += len(chunk)
            if total > limit:
                self.fail(_too_big("Decompressed data too large", total, limit, what, more=True))
            if total > _MiB:
                self.check_ratio(total, consumed(), what)
            parts.append(chunk)
        return b"".join(parts)

    def check_ratio(self, decompressed: int, compressed: int, what: str) -> None:
        limit = self.limits.max_compression_ratio
        if decompressed > limit * max(compressed, 1):
            self.fail(
                Problem(
                    "Compression ratio too high",
                    f"{what} data that expands at most {limit:,} times",
                    f"{compressed:,} compressed bytes expanding to "
                    f"{decompressed:,} bytes so far, as a decompression bomb does",
                    "upload the CSV file itself, or compress it with a standard tool",
                )
            )

    def gunzip(self, handle: BinaryIO) -> bytes:
        stream = gzip.GzipFile(fileobj=handle, mode="rb")
        try:
            chunks = iter(lambda: stream.read(_CHUNK_BYTES), b"")
            return self.stream_limited(chunks, handle.tell, "gzip")
        except (OSError, EOFError, zlib.error) as exc:
            self.fail(_unreadable(f"broken gzip data ({exc}); the file may be truncated", "gzip"))

    def unzip(self, handle: BinaryIO) -> bytes:
        try:
            archive = zipfile.ZipFile(handle)
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            self.fail(_unreadable(f"broken zip archive ({exc})", "zip"))
        with archive:
            members = [
                info
                for info in archive.infolist()
                if not info.is_dir()
                and not info.filename.startswith("__MACOSX/")
                and not os.path.basename(info.filename).startswith(".")
            ]
            if len(members) != 1:
                names = ", ".join(repr(m.filename) for m in members[:MAX_EXAMPLES]) or "none"
                self.fail(
                    Problem(
                        "Not exactly one file in the zip archive",
                        "a zip archive holding exactly one CSV file",
                        f"{format_count(len(members), 'file')}: {names}",
                        "zip the single CSV file alone, or upload the CSV file itself",
                    )
                )
            member = members[0]
            if member.compress_type not in _ZIP_METHODS:
                self.fail(_unsupported_zip_method(member.compress_type))
            limit = self.limits.max_decompressed_bytes
            if member.file_size > limit:
                self.fail(
                    _too_big("Decompressed data too large", member.file_size, limit, "zip member")
                )
            # The member's stored bytes lie within the archive, whatever it declares.
            compressed = min(member.compress_size, handle.seek(0, os.SEEK_END))
            if member.file_size > _MiB:
                self.check_ratio(member.file_size, compressed, "zip member")
            try:
                # Deflate and stored members are read with a bound on each read's output,
                # so every byte they decode to is counted (stream_limited) as it comes.
                with archive.open(member) as stream:
                    chunks = iter(lambda: stream.read(_CHUNK_BYTES), b"")
                    return self.stream_limited(chunks, lambda: compressed, "zip member")
            except (zipfile.BadZipFile, OSError, EOFError, zlib.error) as exc:
                self.fail(_unreadable(f"broken zip member ({exc})", "zip"))
            except (NotImplementedError, RuntimeError) as exc:  # method or encryption
                self.fail(_unreadable(f"unsupported zip member ({exc})", "zip"))

    def read_parquet(self, handle: BinaryIO) -> StringTable:
        """Read a Parquet file batch by batch, counting what it decodes to.

        Before any page is decoded: the column types, the row count times the columns
        (each cell decodes to at least an 8-byte offset) and the sizes the pages
        decompress to (from their headers) are checked against the limits. Batches of
        rows are then small enough that one batch, even of the longest values the pages
        allow, stays a small part of the limit, and reading stops as soon as the
        decoded text passes it: a dictionary or run-length encoded page cannot expand
        unseen.
        """
        import pyarrow.parquet as pq  # only for Parquet input: 15 ms of import

        handle.seek(0)
        buffer = _owned_buffer(handle.read())
        source = pa.BufferReader(buffer)
        try:
            parquet = pq.ParquetFile(source)
            meta, schema = parquet.metadata, parquet.schema_arrow
        except (pa.ArrowException, OSError, ValueError) as exc:
            self.fail(_broken_parquet(exc))
        if meta.num_columns > self.limits.max_columns:
            self.fail(_too_many_columns(meta.num_columns, self.limits.max_columns))
        problems = [_unsupported_type(f.name, f.type) for f in schema if not _text_like(f.type)]
        if problems:
            self.fail(*problems)
        limit = self.limits.max_decompressed_bytes
        at_least = meta.num_rows * len(schema) * _OFFSET_BYTES
        if at_least > limit:
            self.fail(
                _too_big_parquet(
                    limit,
                    f"{format_count(meta.num_rows, 'row')} of "
                    f"{format_count(len(schema), 'column')}: at least {at_least:,} bytes "
                    f"once decoded ({_OFFSET_BYTES} per cell)",
                )
            )
        try:
            batch_rows = self.parquet_batch_rows(buffer, parquet)
        except (BadPageHeader, pa.ArrowException, OSError) as exc:
            self.fail(_broken_parquet(exc))
        parts: list[list[pa.Array]] = [[] for _ in schema]
        decoded = rows = 0
        try:
            for batch in parquet.iter_batches(batch_size=batch_rows, use_threads=WORKERS > 0):
                texts = []
                for index, field in enumerate(schema):
                    cells = batch.column(index)
                    text = self.parquet_text(cells, field.name, rows)
                    self.check_batch_fields(text, field.name, rows)
                    decoded += _list_values(cells) * _OFFSET_BYTES
                    texts.append(text)
                if self.keep is not None:  # one part of a run: its rows only are kept
                    kept = pa.array(self.keep(dict(zip(schema.names, texts, strict=True))))
                    texts = [text.filter(kept) for text in texts]
                for index, text in enumerate(texts):
                    decoded += text.nbytes
                    parts[index].append(text)
                if decoded > limit:
                    self.fail(_too_big_parquet(limit, f"more than {limit:,} bytes once decoded"))
                rows += batch.num_rows
        except (pa.ArrowException, OSError, ValueError) as exc:
            self.fail(_broken_parquet(exc))
        # Each column's batches are joined, then freed, before the next column's.
        columns = [_joined(parts.pop(0)) for _ in range(len(parts))]
        table = StringTable.from_text(schema.names, columns)
        self.check_fields(table)
        return table

    def parquet_batch_rows(self, buffer: pa.Buffer, parquet: pq.ParquetFile) -> int:
        """How many rows to decode at once, so that any batch stays within a bounded size
        whatever its pages hold (see :mod:`scorer.read.parquet_pages`); on the way, the
        pages' total uncompressed size is checked against the limit, and a dictionary
        value longer than a cell may be is refused before any page is decoded."""
        meta, limit = parquet.metadata, self.limits.max_decompressed_bytes
        # The chunks' metadata from the footer: pyarrow's own description of a chunk may
        # end the process on a crafted one (see footer_chunks).
        chunks = footer_chunks(buffer, meta.num_row_groups, meta.num_columns)
        check_disjoint([chunk_range(chunk) for chunk in chunks], buffer.size)
        walker = PageWalker(buffer)
        costs: list[list[np.ndarray]] = [[] for _ in range(meta.num_columns)]
        total = 0
        for position, chunk in enumerate(chunks):
            index = position % meta.num_columns
            pages = walker.chunk_pages(chunk)
            total += sum(_page_bytes(page) for page in pages)
            if total > limit:
                found = f"pages decompressing and decoding to {total:,} bytes"
                self.fail(_too_big_parquet(limit, found))
            column = parquet.schema.column(index)
            if chunk.physical_type != column.physical_type:  # Arrow decodes by the schema
                raise BadPageHeader("a column chunk whose type is not its column's")
            costs[index].append(self.page_costs(pages, chunk, column, buffer))
        columns, lists = [], []  # each column's page costs; item-list columns apart
        for index, parts in enumerate(costs):
            if parts:
                is_list = parquet.schema.column(index).max_repetition_level > 0
                (lists if is_list else columns).append(np.concatenate(parts, axis=1))
        # An item-list column's rows hold any number of values, so no batch of rows
        # bounds what it decodes to: the whole column's worst case must fit the limit.
        at_most = sum(float((whole + n * per_value).sum()) for n, whole, per_value, _ in lists)
        if at_most > limit:
            found = f"item-list columns that may decode to {at_most:,.0f} bytes"
            self.fail(_too_big_parquet(limit, found))
        budget = max(limit // 16, _PARQUET_BATCH_BYTES)
        rows = _PARQUET_BATCH_ROWS
        while rows > 1 and sum(_worst_batch(cost, rows) for cost in columns) > budget:
            rows //= 2
        return rows

    def page_costs(
        self,
        pages: list[Page],
        chunk: ChunkMeta,
        column: pq.ColumnSchema,
        buffer: pa.Buffer,
    ) -> np.ndarray:
        """:func:`_page_costs`, once a dictionary value longer than a cell may be has
        been refused."""
        field_limit = self.limits.max_field_bytes
        longest = 0
        if chunk.physical_type == "BYTE_ARRAY" and any(p.dictionary_encoded for p in pages):
            dictionaries = [page for page in pages if page.kind == DICTIONARY_PAGE]
            found = [_longest_dictionary_value(p, chunk, buffer) for p in dictionaries]
            longest = max((length for length, _ in found), default=0)
            if any(exact and length > field_limit for length, exact in found):
                self.fail(
                    Problem(
                        "Cell too long",
                        f"cells of at most {field_limit:,} bytes",
                        f"a dictionary value of {longest:,} bytes in column "
                        f"{column.name!r} (refused before any cell was decoded)",
                        "check the column's content; if long cells are intended, "
                        "ask the host to raise the cell limit",
                    )
                )
        return _page_costs(pages, chunk, column, longest, field_limit)

    def check_batch_fields(self, column: pa.Array, name: str, first_row: int) -> None:
        """Refuse a cell over ``max_field_bytes`` in the batch that decodes it, before
        any other batch is read."""
        limit = self.limits.max_field_bytes
        if pa.types.is_large_string(column.type) and longest_string(column) > limit:
            lengths = pc.fill_null(pc.binary_length(column), 0).to_numpy(zero_copy_only=False)
            lengths = np.concatenate((np.zeros(first_row, dtype=lengths.dtype), lengths))
            self.refuse_long_cells(lengths, name)

    def parquet_text(self, column: pa.Array, name: str, first_row: int) -> pa.Array:
        """One batch of a Parquet column as UTF-8 text, refused as any text is when it
        is not valid UTF-8 (:func:`~scorer.read.columns.check_utf8`)."""
        kind = column.type
        if pa.types.is_dictionary(kind):
            column, kind = column.dictionary_decode(), kind.value_type
        try:
            if is_binary_type(kind):
                return empty_nulls(binary_as_text(column))
            if pa.types.is_string(kind) or is_view_type(kind, "string"):
                column = column.cast(pa.large_string())
            elif not pa.types.is_large_string(kind):
                return convert_named(name, to_string_array, column)  # numbers, item lists
            check_utf8(column)
        except CellError as exc:
            exc.column = name
            if isinstance(exc, Utf8Error):
                exc.row += first_row
            self.fail(exc.problem())
        return column

    def parse_csv(self, data: Text, container: str = "") -> StringTable:
        start = self.check_content(data, "a CSV file with a header row", "CSV")
        # The header's columns are counted from its bytes (at most a line's worth of
        # them), and it is split only once every line is known to be within the limit.
        first_line = _first_line(data, start, self.limits.max_line_bytes + 1)
        n_columns = _count_columns(first_line)
        if n_columns > self.limits.max_columns:
            self.fail(_too_many_columns(n_columns, self.limits.max_columns))
        self.check_lines(data)
        try:
            header = next(csv.reader([first_line.decode("utf-8")]), [])
        except (UnicodeDecodeError, csv.Error) as exc:
            self.fail(_unreadable(f"the header row is not UTF-8 CSV ({exc})", container))
        if len(header) > self.limits.max_columns:
            self.fail(_too_many_columns(len(header), self.limits.max_columns))
        if not any(header):
            self.fail(
                Problem(
                    "No header row",
                    "a first line naming the columns, e.g. as in the sample submission",
                    "an empty first line",
                    "remove the blank line(s) before the header, or add the header row",
                )
            )
        # Quotes in the header alone (as pyarrow and other writers put them) cannot put
        # a line end inside a value: the body's quotes decide how it is parsed.
        header_end = data.find(b"\n", start)
        has_quote = data.find(b'"', start if header_end < 0 else header_end + 1) >= 0
        width = len(header)

        def check_body(body_lines: int) -> None:  # the header is a line too
            self.check_decoded_size(data, start, width, body_lines + 1)

        columns = None if has_quote else _fixed_lines(data, start, width, check_body, self.runs)
        if columns is None:
            self.check_decoded_size(data, start, width)
            chunked = tuple(name == self.chunked for name in header)
            columns = self.parse_columns(data, start, width, has_quote, container, chunked)
        result = StringTable(tuple(header), columns)
        self.check_fields(result)
        return result

    def check_content(self, data: Text, expected: str, what: str) -> int:
        """Refuse text that is blank, binary, not UTF-8 (from its first bytes) or over
        the decompressed-size limit; return where the text starts (after a BOM)."""
        start = len(_BOM) if data[: len(_BOM)] == _BOM else 0
        size = len(data) - start
        if _NON_BLANK.search(data, start) is None:
            self.fail(
                Problem(
                    "Empty file",
                    expected,
                    f"{size:,} bytes with no content",
                    "export the file again; check that it was saved before uploading",
                )
            )
        self.check_text(data[start : start + _SNIFF_BYTES], final=size <= _SNIFF_BYTES)
        nul = data.find(b"\x00", start)  # one memchr: a NUL anywhere means binary
        if nul >= 0:
            line = _count_newlines(data, nul) + 1
            self.fail(not_utf8(f"binary data: a NUL byte on line {line:,} (byte {nul + 1:,})"))
        if size > self.limits.max_decompressed_bytes:
            self.fail(_too_big("File too large", size, self.limits.max_decompressed_bytes, what))
        return start

    def parse_columns(
        self,
        data: Text,
        start: int,
        n_columns: int,
        has_quote: bool,
        container: str,
        chunked: tuple[bool, ...] = (),
    ) -> tuple[pa.Array | pa.ChunkedArray, ...]:
        """Parse the lines after the header with pyarrow: one array per column (the
        parser's chunks as they are for a column flagged in ``chunked``)."""
        placeholders = [f"column_{i}" for i in range(n_columns)]
        returned = threading.Event()
        try:
            table = pacsv.read_csv(
                pa.BufferReader(_lend_to_arrow(np.frombuffer(data, np.uint8)[start:], returned)),
                read_options=pacsv.ReadOptions(
                    use_threads=WORKERS > 0,  # no thread under a capped address space
                    column_names=placeholders,
                    skip_rows=1,
                    # Small blocks keep the parser's working memory small: measured at
                    # H&M scale, as fast as 64 MiB blocks or one block, and with the
                    # lowest peak memory of the three.
                    block_size=min(
                        max(_PARSE_BLOCK_BYTES, 2 * self.limits.max_line_bytes),
                        _MAX_PARSE_BLOCK_BYTES,
                    ),
                ),
                # Without a quote character no value can hold a newline, and the
                # parser can split blocks at any line end: a faster parse, same result.
                parse_options=pacsv.ParseOptions(newlines_in_values=has_quote),
                convert_options=pacsv.ConvertOptions(
                    column_types=dict.fromkeys(placeholders, pa.large_string()),
                    null_values=[],
                    strings_can_be_null=False,
                    quoted_strings_can_be_null=False,
                    check_utf8=True,
                ),
            )
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            text = data[:]  # bytes, for this rare path only
            try:
                text.decode("utf-8")
            except UnicodeDecodeError as bad:
                self.fail(not_utf8(_utf8_position(text, bad)))
            self.fail(_unreadable(str(exc).splitlines()[0], container))
        finally:
            returned.wait(_ARROW_RETURN_SECONDS)
        # Join the chunks column by column, each chunk freed once copied, so that the
        # peak holds the table and one chunk, not a column twice.
        chunks = [table.column(i).chunks for i in range(table.num_columns)]
        del table
        keep = list(chunked) + [False] * (len(chunks) - len(chunked))
        return tuple(
            pa.chunked_array(chunks.pop(0), pa.large_string())
            if keep[i]
            else joined_strings(chunks.pop(0))
            for i in range(len(keep))
        )

    def check_decoded_size(
        self, data: Text, start: int, n_columns: int, lines: int | None = None
    ) -> None:
        """Refuse text whose table would pass the decompressed-data limit: the text, and
        an offset of 8 bytes for each cell (the cells counted from the line ends, unless
        ``lines`` is known, before anything is parsed or copied), as a Parquet file's
        cells are counted. What bounds a run's memory is what its inputs decode to
        (docs/formats-and-limits.md, "Resource contract"), and a row of a few bytes
        decodes to many more."""
        limit = self.limits.max_decompressed_bytes
        size = len(data) - start
        if size + _OFFSET_BYTES * n_columns * size <= limit:
            return  # no count of lines can pass the limit: the pass is not needed
        if lines is None:
            lines = _count_newlines(data, len(data)) or _count_bytes(data, _CR)
        decoded = size + _OFFSET_BYTES * n_columns * lines
        if decoded > limit:
            self.fail(
                Problem(
                    "Decompressed data too large",
                    f"at most {limit:,} bytes once decoded (the text, and "
                    f"{_OFFSET_BYTES} bytes for each cell)",
                    f"{size:,} bytes in {format_count(lines, 'line')} of "
                    f"{format_count(n_columns, 'column')}: up to {decoded:,} bytes",
                    _ASK_FOR_A_HIGHER_LIMIT,
                )
            )

    def check_lines(self, data: Text) -> None:
        """Refuse any line longer than the limit (a vectorised pass, no copy of the text)."""
        limit = self.limits.max_line_bytes
        if len(data) <= limit or not _may_hold_a_line_over(data, limit):
            return
        count, longest, examples = _lines_over(data, limit)
        if count:
            self.fail(
                Problem(
                    "Line too long",
                    f"lines of at most {limit:,} bytes",
                    f"{format_count(count, 'line')} longer, the longest {longest:,} bytes",
                    "check that the file is a CSV with one row per line; "
                    "if long lines are intended, ask the host to raise the line limit",
                    examples,
                    "line numbers",
                )
            )

    def check_fields(self, table: StringTable) -> None:
        limit = self.limits.max_field_bytes
        for name, column in zip(table.names, table.columns, strict=True):
            if isinstance(column, pa.ChunkedArray):
                if max(map(longest_string, column.chunks), default=0) <= limit:
                    continue
                column = one_chunk(column)  # a cell too long: its row is told
            encoded = pa.types.is_run_end_encoded(column.type)
            if longest_string(column.values if encoded else column) <= limit:
                continue
            if encoded:
                column = pc.run_end_decode(column)
            lengths = pc.fill_null(pc.binary_length(column), 0).to_numpy(zero_copy_only=False)
            self.refuse_long_cells(lengths, name)

    def refuse_long_cells(self, lengths: np.ndarray, name: str) -> None:
        problem = _too_long_problem(
            lengths,
            self.limits.max_field_bytes,
            "Cell too long",
            "cell",
            f" in column {name!r}",
            "check the column's content; if long cells are intended, "
            "ask the host to raise the cell limit",
            "data row numbers, 1 = first row after the header",
        )
        if problem:
            self.fail(problem)


def _read_at_most(handle: BinaryIO, count: int) -> bytes:
    """Up to ``count`` bytes of ``handle``, read in chunks: a limit far above the
    input's size (a valid host option) never becomes one huge allocation.

    Examples
    --------
    >>> _read_at_most(io.BytesIO(b"abc"), 2**62), _read_at_most(io.BytesIO(b"abc"), 2)
    (b'abc', b'ab')
    """
    parts: list[bytes] = []
    while count > 0:
        part = handle.read(min(count, _CHUNK_BYTES))
        if not part:
            break
        parts.append(part)
        count -= len(part)
    return b"".join(parts)


def _mapped(handle: BinaryIO, size: int) -> mmap.mmap | None:
    """The first ``size`` bytes of the file, mapped read-only; None where it cannot be.

    Mapping the file, rather than reading it into a bytes object, saves a copy of it
    and, at H&M scale, up to a second of page faults. The map covers the size seen
    when the limits were checked, so a file that grows meanwhile cannot pass them.
    """
    try:
        return mmap.mmap(handle.fileno(), size, access=mmap.ACCESS_READ)
    except (OSError, ValueError):  # a file system that cannot map: read it instead
        return None


def _lend_to_arrow(view: np.ndarray, returned: threading.Event) -> pa.Buffer:
    """An Arrow buffer over ``view`` (which it keeps alive); ``returned`` is set once
    Arrow has let go of it. Pass the result straight to the reader, keeping no
    reference to it, then wait for ``returned``.

    pyarrow's CSV reader may let go of its input a moment after it returns, on one of
    its own threads, and releasing a buffer that holds a Python object takes the GIL
    there. If the interpreter is exiting by then, that thread cannot have the GIL and
    the process aborts ("terminate called without an active exception", exit code
    134: one command-line run in five to twenty on the shipped example). Waiting for
    ``returned`` with the GIL released lets Arrow finish first: measured, it takes
    well under a millisecond.

    Examples
    --------
    >>> returned = threading.Event()
    >>> buffer = _lend_to_arrow(np.frombuffer(b"a,b", dtype=np.uint8), returned)
    >>> buffer.to_pybytes(), returned.is_set()
    (b'a,b', False)
    >>> del buffer
    >>> returned.is_set()
    True
    """
    weakref.finalize(view, returned.set)
    return pa.foreign_buffer(view.ctypes.data, view.nbytes, base=view)


def _owned_buffer(data: bytes) -> pa.Buffer:
    """A copy of ``data`` in memory that Arrow owns, for readers such as Parquet's,
    whose tables may point into their input: no Python object to release at any
    time (see :func:`_lend_to_arrow`).

    Examples
    --------
    >>> _owned_buffer(b"PAR1").to_pybytes()
    b'PAR1'
    """
    buffer = pa.allocate_buffer(len(data))
    np.frombuffer(buffer, dtype=np.uint8)[:] = np.frombuffer(data, dtype=np.uint8)
    return buffer


def _fixed_lines(
    data: Text, start: int, n_columns: int, before_copy: Callable[[int], None], runs: bool
) -> tuple[pa.Array, ...] | None:
    """The columns of a large CSV body whose lines all share one layout, read without
    the parser (:func:`scorer.read.fixed_lines.split_fixed_lines`, or, the last column's
    width aside, :func:`~scorer.read.fixed_lines.split_prefixed_lines`); None for any
    other. ``before_copy`` is given the body's number of lines once the layout is
    proven and before any column is copied."""
    newline = data.find(b"\n", start)
    if newline < 0 or len(_first_line(data, start)) not in (newline - start, newline - start - 1):
        return None  # no line after the header, or a lone carriage return ends it
    body = np.frombuffer(data, dtype=np.uint8)[newline + 1 :]
    # The caller parses only a body without quotes this way: none is looked for again.
    found = split_fixed_lines(
        body, n_columns, FIXED_LINES_MIN_ROWS, before_copy, runs, unquoted=True
    )
    if found is None:
        found = split_prefixed_lines(
            body, n_columns, FIXED_LINES_MIN_ROWS, before_copy, runs, unquoted=True
        )
    return found


def _first_line(data: Text, start: int = 0, at_most: int | None = None) -> bytes:
    """The first line from ``start``, ended by LF, CRLF or a lone CR (classic Mac files);
    only its first ``at_most`` bytes when given.

    Examples
    --------
    >>> _first_line(b"a,b\\r\\nc,d"), _first_line(b"a,b\\rc,d"), _first_line(b"xa,b", 1)
    (b'a,b', b'a,b', b'a,b')
    >>> _first_line(b"abcdef\\n", at_most=3)
    b'abc'
    """
    end = len(data) if at_most is None else min(len(data), start + at_most)
    newline = data.find(b"\n", start, end)
    stop = end if newline < 0 else newline
    carriage_return = data.find(b"\r", start, stop)  # only up to the newline: cheap
    return data[start : stop if carriage_return < 0 else carriage_return]


def _too_long_problem(
    lengths: np.ndarray, limit: int, title: str, noun: str, where: str, fix: str, label: str
) -> Problem | None:
    """The problem of the ``noun``s (lines, cells) longer than ``limit``, if any."""
    too_long = lengths > limit
    if not too_long.any():
        return None
    return Problem(
        title,
        f"{noun}s of at most {limit:,} bytes",
        f"{format_count(int(too_long.sum()), noun)} longer{where}, "
        f"the longest {int(lengths.max()):,} bytes",
        fix,
        example_row_numbers(too_long),
        label,
    )


def _may_hold_a_line_over(data: Text, limit: int) -> bool:
    """Cheaply rule out lines longer than ``limit``: such a line (a run of at least
    ``limit + 1`` bytes without a line end) covers a whole aligned block of
    ``(limit + 1) // 2`` bytes, so a newline (or a carriage return) in every block
    rules it out. Each block costs one ``memchr``, which stops at the block's first
    newline; a carriage return is looked for only in a block without one.

    Examples
    --------
    >>> _may_hold_a_line_over(b"ab\\ncd\\nef\\n" * 9, 10), _may_hold_a_line_over(b"ab\\r" * 9, 10)
    (False, False)
    >>> _may_hold_a_line_over(b"a" * 12 + b"\\n", 10)
    True
    """
    block = max((limit + 1) // 2, 1)
    if len(data) // block > 1_000_000:
        return True  # a tiny limit on a big file: let the exact check decide
    return any(
        data.find(b"\n", start, start + block) < 0 and data.find(b"\r", start, start + block) < 0
        for start in range(0, len(data), block)
    )


def _lines_over(data: Text, limit: int) -> tuple[int, int, tuple[str, ...]]:
    """How many lines are longer than ``limit`` bytes, the longest line's length and up
    to five of their (1-based) line numbers. A line ends with LF, CRLF or a lone CR
    (as for the parser); its ending is not counted. Slice by slice, so that memory
    stays a few slices whatever the number of lines.

    Examples
    --------
    >>> _lines_over(b"abc\\r\\nab\\rabcd\\nx\\r\\rabcdef", 2)
    (3, 6, ('1', '3', '6'))
    """
    view = np.frombuffer(data, dtype=np.uint8)
    count = longest = lines_before = line_start = 0
    examples: list[str] = []
    for offset in range(0, len(view), _LINE_SCAN_BYTES):
        window = view[offset : offset + _LINE_SCAN_BYTES]
        following = view[offset + 1 : offset + 1 + len(window)]
        if len(following) < len(window):  # the file's last byte: nothing follows it
            following = np.append(following, np.uint8(0))
        ends = np.flatnonzero((window == _LF) | ((window == _CR) & (following != _LF))) + offset
        last_window = offset + len(window) == len(view)
        if last_window and (not len(ends) or ends[-1] != len(view) - 1):
            ends = np.append(ends, len(view))  # the last line, without a line end
        if not len(ends):
            continue
        starts = np.concatenate(([line_start], ends[:-1] + 1))
        # CRLF: the LF ends the line, and its CR is no part of it.
        is_lf = view[np.minimum(ends, len(view) - 1)] == _LF
        crlf = is_lf & (ends > starts) & (view[np.maximum(ends - 1, 0)] == _CR)
        lengths = ends - starts - crlf
        over = np.flatnonzero(lengths > limit)
        count += len(over)
        longest = max(longest, int(lengths.max()))
        examples += [str(lines_before + i + 1) for i in over[: MAX_EXAMPLES - len(examples)]]
        lines_before += len(ends)
        line_start = int(ends[-1]) + 1
    return count, longest, tuple(examples)


def _count_newlines(data: Text, stop: int) -> int:
    """The number of LF bytes before ``stop`` (slice by slice: a map has no ``count``).

    Examples
    --------
    >>> _count_newlines(b"a\\nb\\nc\\n", 4)
    2
    """
    return _count_bytes(data, _LF, stop)


def _count_bytes(data: Text, byte: int, stop: int | None = None) -> int:
    """The number of bytes equal to ``byte`` before ``stop`` (the end by default)."""
    view = np.frombuffer(data, dtype=np.uint8)[:stop]
    return sum(
        int(np.count_nonzero(view[i : i + _LINE_SCAN_BYTES] == byte))
        for i in range(0, len(view), _LINE_SCAN_BYTES)
    )


def _count_columns(header: bytes) -> int:
    """The number of columns of a CSV header line, counted from its bytes (commas
    outside quotes), before any string is made of it.

    Examples
    --------
    >>> _count_columns(b"id,items"), _count_columns(b'"a,b",c'), _count_columns(b"")
    (2, 2, 1)
    """
    if b'"' not in header:
        return header.count(b",") + 1
    view = np.frombuffer(header, dtype=np.uint8)
    quoted = np.logical_xor.accumulate(view == ord('"'))
    return int(np.count_nonzero((view == ord(",")) & ~quoted)) + 1


def _utf8_position(data: bytes, exc: UnicodeDecodeError) -> str:
    line = data.count(b"\n", 0, exc.start) + 1
    byte = data[exc.start : exc.start + 1].hex()
    return f"byte 0x{byte} on line {line:,} is not valid UTF-8"


def write_atomic(path: str | os.PathLike, text: str | bytes) -> None:
    """Write ``text`` (UTF-8; or bytes as they are) to ``path`` atomically: a temporary
    file, then a rename.

    A reader of ``path`` sees the old content or the new, never a partial file;
    if writing fails, ``path`` is left as it was and the temporary file is removed.

    Examples
    --------
    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "scores.json")
    >>> write_atomic(path, '{"map_at_10": 0.5}\\n')
    >>> open(path).read(), sorted(os.listdir(os.path.dirname(path)))
    ('{"map_at_10": 0.5}\\n', ['scores.json'])
    """
    target = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(target))
    descriptor, temporary = tempfile.mkstemp(
        prefix=f".{os.path.basename(target)}.", suffix=".tmp", dir=folder
    )
    try:
        data = text.encode("utf-8") if isinstance(text, str) else text
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, 0o644)
        os.replace(temporary, target)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise


def _too_big(title: str, size: int, limit: int, what: str, more: bool = False) -> Problem:
    found = f"more than {limit:,} bytes" if more else f"{size:,} bytes"
    return Problem(
        title,
        f"at most {limit:,} bytes ({what})",
        found,
        _ASK_FOR_A_HIGHER_LIMIT,
    )


def _too_many_columns(count: int, limit: int) -> Problem:
    return Problem(
        "Too many columns",
        f"at most {limit:,} columns",
        f"{count:,} columns in the header",
        "keep only the columns of the sample submission",
    )


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


def _page_costs(
    pages: list[Page],
    chunk: ChunkMeta,
    column: pq.ColumnSchema,
    longest: int,
    field_limit: int,
) -> np.ndarray:
    """Four rows, one column per data page: its rows, the bytes it decodes to whatever
    the number of its rows in a batch, the bytes each of its rows adds, and the bytes
    each of its rows adds at most while every cell is within ``field_limit``.

    A number or boolean is a few dozen characters, a fixed-length value its length; plain
    values lie within their page (and are cells, each at most ``field_limit``, refused
    in the batch that decodes one longer); a dictionary-encoded value is at most the
    dictionary's ``longest``; a value of another encoding at most its page (such a value
    may repeat what came before, so ``field_limit`` is no bound on what it decodes to
    before it is checked). Each cell adds its offset.
    """
    data = [page for page in pages if page.kind != DICTIONARY_PAGE]
    n_rows = np.array([page.num_values for page in data], dtype=np.float64)
    whole = np.zeros(len(data))
    if chunk.physical_type not in ("BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"):
        per_row = np.full(len(data), float(_NUMBER_TEXT_BYTES))
        capped = per_row
    elif chunk.physical_type == "FIXED_LEN_BYTE_ARRAY":
        per_row = np.full(len(data), float(max(column.length, _NUMBER_TEXT_BYTES)))
        capped = per_row
    else:
        size = np.array([page.uncompressed for page in data], dtype=np.float64)
        plain = np.array([page.plain for page in data], dtype=bool)
        dictionary = np.array([page.dictionary_encoded for page in data], dtype=bool)
        whole = np.where(plain, size, 0.0)
        per_row = np.where(plain, 0.0, np.where(dictionary, float(longest), size))
        capped = np.where(plain, np.minimum(size, field_limit), per_row)
    return np.stack([n_rows, whole, per_row + _OFFSET_BYTES, capped + _OFFSET_BYTES])


def _page_bytes(page: Page) -> int:
    """What a page costs once read: its decompressed size, and for a dictionary page the
    16 bytes Arrow's decoder keeps for each value (a pointer and a length), however
    short: millions of empty values take a few bytes of a file.

    Examples
    --------
    >>> _page_bytes(Page(DICTIONARY_PAGE, 400, 12, 0, 100, 0))
    2000
    """
    if page.kind == DICTIONARY_PAGE:
        return page.uncompressed + _DICTIONARY_VALUE_BYTES * page.num_values
    return page.uncompressed


def _worst_batch(costs: np.ndarray, batch_rows: int) -> float:
    """The most ``batch_rows`` consecutive rows can decode to: a batch that starts at a
    page's last row touches that page and the next ones up to ``batch_rows`` rows on.

    Examples
    --------
    >>> costs = np.array([[10, 10, 10], [100, 0, 100], [8, 8, 8], [50, 8, 50]], dtype=float)
    >>> _worst_batch(costs, 1), _worst_batch(costs, 2), _worst_batch(costs, 11)
    (50.0, 116.0, 260.0)
    """
    n_rows, whole, per_row, capped = costs
    if not len(n_rows):
        return 0.0
    taken = np.minimum(n_rows, batch_rows)
    page_cost = np.minimum(whole + taken * per_row, taken * capped)
    sums = np.concatenate(([0.0], np.cumsum(page_cost)))
    ends = np.cumsum(n_rows)
    last = np.searchsorted(ends, ends - 1 + batch_rows - 1, side="right")
    last = np.minimum(last, len(n_rows) - 1)
    return float(np.max(sums[last + 1] - sums[np.arange(len(n_rows))]))


_CODECS = {"SNAPPY": "snappy", "GZIP": "gzip", "ZSTD": "zstd", "BROTLI": "brotli"}


def _longest_dictionary_value(page: Page, chunk: ChunkMeta, buffer: pa.Buffer) -> tuple[int, bool]:
    """The longest value of a dictionary page and True; or the page's size and False
    where it cannot be read here (a codec without a one-shot decompressor): still a
    bound."""
    body = buffer.slice(page.body, page.compressed)
    try:
        if chunk.compression != "UNCOMPRESSED":
            codec = _CODECS.get(chunk.compression)
            if codec is None:
                return page.uncompressed, False
            body = pa.decompress(body, page.uncompressed, codec=codec)
        return longest_plain_value(body, page.num_values), True
    except (pa.ArrowException, BadPageHeader, ValueError):
        return page.uncompressed, False


def _list_values(cells: pa.Array) -> int:
    """How many values an item-list column's cells hold (0 for other columns): each
    counts as a cell towards the decoded size, as Arrow decodes it with its offset.

    Examples
    --------
    >>> _list_values(pa.array([[1, 2], None, [3]])), _list_values(pa.array(["a b"]))
    (3, 0)
    """
    kind = cells.type.value_type if pa.types.is_dictionary(cells.type) else cells.type
    if not (pa.types.is_list(kind) or pa.types.is_large_list(kind)):
        return 0
    return int(pc.sum(pc.list_value_length(cells)).as_py() or 0)


def _joined(batches: list[pa.Array]) -> pa.Array:
    """One array of the batches' text, which are let go of as they are copied."""
    if not batches:
        return pa.array([], pa.large_string())
    joined = pa.concat_arrays(batches)
    batches.clear()
    return joined


def _broken_parquet(exc: BaseException) -> Problem:
    return Problem(
        "Unreadable file",
        "a Parquet file as a Parquet writer makes it (pandas' to_parquet, say)",
        f"broken Parquet file ({str(exc).splitlines()[0]})",
        "write the file again with pandas (df.to_parquet(path)) or pyarrow, or upload "
        "the data as UTF-8 CSV",
    )


def _too_big_parquet(limit: int, found: str) -> Problem:
    return Problem(
        "Decompressed data too large",
        f"at most {limit:,} bytes (Parquet data)",
        found,
        _ASK_FOR_A_HIGHER_LIMIT,
    )


def _unsupported_type(name: str, kind: pa.DataType) -> Problem:
    return Problem(
        "Unsupported column type",
        "Parquet columns of text (or of integers, floats or booleans)",
        f"column {name!r} of type {kind}",
        "write every column as text, e.g. with pandas: df.astype(str).to_parquet(...)",
    )


def _not_parquet() -> Problem:
    return Problem(
        "Not a Parquet file",
        "Parquet files in a directory of parts (a partitioned dataset)",
        "another format (CSV, gzip or zip)",
        "write the parts as Parquet, or give one file instead of the directory",
    )


def _unsupported_zip_method(method: int) -> Problem:
    """Only stored and deflated members are read: Python's bzip2 and LZMA readers
    decode a whole compressed block at once, whatever it expands to.

    Examples
    --------
    >>> _unsupported_zip_method(12).found
    'a member compressed with bzip2 (method 12)'
    """
    name = {zipfile.ZIP_BZIP2: "bzip2", zipfile.ZIP_LZMA: "LZMA"}.get(method, "another method")
    return Problem(
        "Unsupported compression method",
        "a zip member that is stored or compressed with deflate (the default of zip tools)",
        f"a member compressed with {name} (method {method})",
        "zip the CSV file again with the default settings, or upload it as .csv or .csv.gz",
    )


def _unreadable(reason: str, container: str = "") -> Problem:
    what = f"{container} file holding a " if container else ""
    return Problem(
        "Unreadable file",
        f"a {what}UTF-8 CSV file with a header row and the same number of fields on every line",
        reason,
        "export the file again as UTF-8 CSV (for example with pandas: to_csv(index=False))",
    )
