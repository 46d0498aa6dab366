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
import contextlib
import csv
import gzip
import io
import mmap
import os
import re
import stat
import subprocess
import sys
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from scorer.arrays import (
    WORKERS,
    address_space_capped,
    joined_strings,
    run_end_encoded,
    to_arrow,
    to_numpy,
)
from scorer.errors import (
    MAX_EXAMPLES,
    InputIsADirectoryError,
    MissingInputError,
    ParticipantVisibleError,
    Problem,
    ScorerError,
    format_count,
)
from scorer.read.columns import StringTable, not_utf8
from scorer.read.csv_parser import BROKEN, parse_options
from scorer.read.limits import (
    ASK_FOR_A_HIGHER_LIMIT,
    DEFAULT_LIMITS,
    OFFSET_BYTES,
    FileChecks,
    ReadLimits,
    too_big,
)
from scorer.read.parquet import RowFilter, read_parquet

_BOM = b"\xef\xbb\xbf"
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_MAGICS = (b"PK\x03\x04", b"PK\x05\x06")
_PARQUET_MAGIC = b"PAR1"
_ZIP_METHODS = (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED)
_UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
_SNIFF_BYTES = 1 << 16
_CHUNK_BYTES = 1 << 22
#: The largest zip directory read (Python's zipfile reads an archive's directory whole,
#: in one read, and makes an object of each entry: about 0.6 KB of memory each).
ZIP_DIRECTORY_BYTES = 1 << 20


class _ReadTooLarge(Exception):
    """A read of more bytes than a :class:`_ReadsBounded` file allows."""


class _ReadsBounded:
    """A seekable binary file whose reads, while :attr:`bounded`, return at most
    ``limit`` bytes each, or raise :class:`_ReadTooLarge`: what bounds the directory
    zipfile reads in one call, by its size, without reading the zip format here.

    Examples
    --------
    >>> file = _ReadsBounded(io.BytesIO(b"abcdef"), 4)
    >>> file.read(3), file.seek(0), file.read(4), file.seek(0)
    (b'abc', 0, b'abcd', 0)
    >>> file.read()
    Traceback (most recent call last):
    ...
    scorer.read.files._ReadTooLarge: a read of more than 4 bytes
    """

    def __init__(self, handle: BinaryIO, limit: int) -> None:
        self.handle, self.limit, self.bounded = handle, limit, True

    def read(self, size: int | None = -1) -> bytes:
        if not self.bounded:
            return self.handle.read(size)
        data = self.handle.read(self.limit + 1 if size is None or size < 0 else size)
        if len(data) > self.limit:
            raise _ReadTooLarge(f"a read of more than {self.limit} bytes")
        return data

    def seek(self, offset: int, whence: int = os.SEEK_SET) -> int:
        return self.handle.seek(offset, whence)

    def tell(self) -> int:
        return self.handle.tell()

    def seekable(self) -> bool:
        return True


_PARSE_BLOCK_BYTES = 1 << 22
_MAX_PARSE_BLOCK_BYTES = (1 << 31) - 1  # the parser's block size is an int32
#: The parse in a process of its own, under a cap on the address space: a script run by
#: the interpreter running this package.
_CSV_PARSER = Path(__file__).with_name("csv_parser.py")
_LINE_SCAN_BYTES = 1 << 23
_LF, _CR = ord("\n"), ord("\r")
_MiB = 1 << 20
_NON_BLANK = re.compile(rb"\S")  # what bytes.strip() keeps: not ASCII whitespace

# The text of a CSV file: bytes, or the file itself mapped into memory (read-only).
Text = bytes | mmap.mmap


def read_table(
    path: str | os.PathLike,
    error: type[ScorerError],
    limits: ReadLimits | None = None,
    keep: RowFilter | None = None,
    runs: bool = False,
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
        CSV only: a column whose values come in runs (a long file's row ids) may come
        back run-end encoded, for a caller that takes such a column.

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
    reader, handle = _open_input(path, error, limits, runs)
    with handle:
        found = reader.read_text(handle)
        if found is not None:
            if keep is not None:
                reader.fail(_not_parquet())
            return reader.parse_csv(*found)
        if isinstance(handle, io.BytesIO):  # a pipe: the decoder reads a copy of it
            with _copied(handle.getvalue(), ".parquet") as copy:
                return read_parquet([(reader.name, copy)], error, reader.limits, keep)[0]
    return read_parquet([(reader.name, reader.name)], error, reader.limits, keep)[0]


def read_parquet_files(
    paths: list[str],
    error: type[ScorerError],
    limits: ReadLimits | None,
    keep: RowFilter | None = None,
) -> list[StringTable]:
    """Each of ``paths``, regular Parquet files (a directory of parts), as a table of
    text, every one read as :func:`read_table` reads it, by one decoder process.

    Examples
    --------
    >>> import os, tempfile, pyarrow as pa, pyarrow.parquet as pq
    >>> from scorer.errors import HostVisibleError
    >>> folder = tempfile.mkdtemp()
    >>> paths = [os.path.join(folder, name) for name in ("a.parquet", "b.parquet")]
    >>> for path, ids in zip(paths, (["u1"], ["u2", "u3"])):
    ...     pq.write_table(pa.table({"id": ids}), path)
    >>> tables = read_parquet_files(paths, HostVisibleError, None)
    >>> [table.column("id").to_pylist() for table in tables]
    [['u1'], ['u2', 'u3']]
    >>> os.mkfifo(os.path.join(folder, "c.parquet"))
    >>> read_parquet_files([os.path.join(folder, "c.parquet")], HostVisibleError, None)
    Traceback (most recent call last):
    ...
    scorer.errors.HostVisibleError: The file 'c.parquet' is invalid (1 problem):
    1. Not a regular file
    ...
    """
    limits = limits or DEFAULT_LIMITS
    for path in paths:
        check_input_path(path, error)
        reader = _Reader(path, error, limits)
        try:
            status = os.stat(path)
            if not stat.S_ISREG(status.st_mode):
                reader.fail(_not_a_regular_file(status.st_mode))
            limit = limits.max_input_bytes
            if status.st_size > limit:
                reader.fail(too_big("File too large", status.st_size, limit, "stored"))
            with open(path, "rb") as handle:
                if handle.read(len(_PARQUET_MAGIC)) != _PARQUET_MAGIC:
                    reader.fail(_not_parquet())
        except OSError as exc:
            reader.fail(_unreadable(exc.strerror or str(exc)))
    return read_parquet([(path, path) for path in paths], error, limits, keep)


def _open_input(
    path: str | os.PathLike,
    error: type[ScorerError],
    limits: ReadLimits | None,
    runs: bool = False,
    lines_of: str | None = None,
) -> tuple[_Reader, BinaryIO]:
    """A reader for ``path`` within ``limits`` and the file opened for it (read into
    memory, bounded, if it is a pipe); an unreadable file is ``error``'s problem."""
    check_input_path(os.fspath(path), error, lines_of)
    reader = _Reader(os.fspath(path), error, limits or DEFAULT_LIMITS, runs, lines_of)
    try:
        handle: BinaryIO = open(reader.name, "rb")  # noqa: SIM115 (closed by the caller)
    except OSError as exc:
        reader.fail(reader.unreadable(exc.strerror or str(exc)))
    if handle.seekable():
        return reader, handle
    with handle:  # a pipe such as /dev/stdin: read it, bounded, into memory
        return reader, io.BytesIO(_read_at_most(handle, reader.limits.max_input_bytes + 1))


@contextlib.contextmanager
def _copied(data: bytes, suffix: str) -> Iterator[str]:
    """The path of a temporary file holding ``data``, removed afterwards."""
    descriptor, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        yield path
    finally:
        os.unlink(path)


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
    reader, handle = _open_input(path, error, limits, lines_of=expected)
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
        reader.fail(reader.not_utf8(_first_invalid_utf8_byte(text, start)))
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


def check_input_path(path: str, error: type[ScorerError], lines_of: str | None = None) -> None:
    """Refuse a path that is missing or a directory: a usage error naming the path.

    Whoever passed the path made the mistake, not the author of the file, so it is
    a :class:`HostVisibleError` (exit 2) for the submission too, and also the
    ``FileNotFoundError`` or ``IsADirectoryError`` a Python user expects.

    Examples
    --------
    >>> from scorer.errors import HostVisibleError
    >>> check_input_path("no/such/file.csv", HostVisibleError)
    Traceback (most recent call last):
    ...
    scorer.errors.MissingInputError: The solution path 'no/such/file.csv' does not exist. ...
    """
    role = "submission" if issubclass(error, ParticipantVisibleError) else "solution"
    if os.path.isdir(path):
        what = f"the {role} file itself (.csv, .csv.gz, .zip or .parquet)"
        if lines_of is not None:  # a headerless file of lines: trec_eval's
            what = f"the {lines_of.removeprefix('a ')} itself (plain, gzipped or zipped)"
        raise InputIsADirectoryError(
            f"The {role} path {path!r} is a directory. Give the path of {what}."
        )
    if not os.path.exists(path):
        raise MissingInputError(
            f"The {role} path {path!r} does not exist. Check the path and the working "
            f"directory ({os.getcwd()!r})."
        )


@dataclass(frozen=True)
class _Reader(FileChecks):
    """A text file's reader: its container (gzip, zip), its text, and the CSV in it."""

    runs: bool = False
    #: What a headerless file of lines is (:func:`read_lines_text`), for its messages;
    #: None for a CSV file.
    lines_of: str | None = None

    @property
    def noun(self) -> str:
        """What the file should be, in its messages ("CSV file" unless :attr:`lines_of`)."""
        return "CSV file" if self.lines_of is None else self.lines_of.removeprefix("a ")

    def not_utf8(self, found: str) -> Problem:
        """:func:`~scorer.read.columns.not_utf8`, worded for this file."""
        return not_utf8(found, self.lines_of)

    def unreadable(self, reason: str, container: str = "") -> Problem:
        """:func:`_unreadable`, worded for this file."""
        return _unreadable(reason, container, None if self.lines_of is None else self.noun)

    def read_text(self, handle: BinaryIO) -> tuple[Text, str] | None:
        """The file's text (decompressed, within the limits) and its container
        (``"gzip"``, ``"zip"`` or ``""``); None for a Parquet file."""
        limit = self.limits.max_input_bytes
        if isinstance(handle, io.BytesIO):  # a pipe, read into memory
            size, mappable = len(handle.getbuffer()), False
        else:
            status = os.fstat(handle.fileno())
            size, mappable = status.st_size, stat.S_ISREG(status.st_mode) and status.st_size > 0
        if size > limit:
            self.fail(too_big("File too large", size, limit, "stored"))
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
            self.fail(too_big("File too large", len(data), limit, "stored"))
        return data, ""

    def check_text(self, head: bytes, final: bool) -> None:
        """Refuse binary or non-UTF-8 content from its first bytes, before any parse."""
        if head.startswith(_UTF16_BOMS):
            self.fail(
                self.not_utf8("the file is UTF-16 text (it starts with a UTF-16 byte-order mark)")
            )
        nul = head.find(b"\x00")
        if nul >= 0:
            line = head.count(b"\n", 0, nul) + 1
            self.fail(self.not_utf8(f"binary data: a NUL byte on line {line:,} (byte {nul + 1:,})"))
        try:
            codecs.getincrementaldecoder("utf-8")().decode(head, final=final)
        except UnicodeDecodeError as exc:
            self.fail(self.not_utf8(_utf8_position(head, exc)))

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
                self.fail(too_big("Decompressed data too large", total, limit, what, more=True))
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
                    f"upload the {self.noun} itself, or compress it with a standard tool",
                )
            )

    def gunzip(self, handle: BinaryIO) -> bytes:
        stream = gzip.GzipFile(fileobj=handle, mode="rb")
        try:
            chunks = iter(lambda: stream.read(_CHUNK_BYTES), b"")
            return self.stream_limited(chunks, handle.tell, "gzip")
        except (OSError, EOFError, zlib.error) as exc:
            self.fail(
                self.unreadable(f"broken gzip data ({exc}); the file may be truncated", "gzip")
            )

    def unzip(self, handle: BinaryIO) -> bytes:
        bounded = _ReadsBounded(handle, ZIP_DIRECTORY_BYTES)
        try:
            archive = zipfile.ZipFile(bounded)  # type: ignore[arg-type]
        except _ReadTooLarge:
            self.fail(
                Problem(
                    "Zip archive directory too large",
                    f"a zip archive holding exactly one {self.noun}, its directory of at "
                    f"most {ZIP_DIRECTORY_BYTES:,} bytes",
                    "a directory larger than that (many thousands of entries, which zip "
                    "reads whole, about 0.6 KB of memory each)",
                    f"zip the single {self.noun} alone, or upload the {self.noun} itself",
                )
            )
        except (zipfile.BadZipFile, OSError, ValueError) as exc:
            self.fail(self.unreadable(f"broken zip archive ({exc})", "zip"))
        bounded.bounded = False  # the member's bytes: counted as they decode
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
                        f"a zip archive holding exactly one {self.noun}",
                        f"{format_count(len(members), 'file')}: {names}",
                        f"zip the single {self.noun} alone, or upload the {self.noun} itself",
                    )
                )
            member = members[0]
            if member.compress_type not in _ZIP_METHODS:
                self.fail(_unsupported_zip_method(member.compress_type, self.noun))
            limit = self.limits.max_decompressed_bytes
            if member.file_size > limit:
                self.fail(
                    too_big("Decompressed data too large", member.file_size, limit, "zip member")
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
                self.fail(self.unreadable(f"broken zip member ({exc})", "zip"))
            except (NotImplementedError, RuntimeError) as exc:  # method or encryption
                self.fail(self.unreadable(f"unsupported zip member ({exc})", "zip"))

    def parse_csv(self, data: Text, container: str = "") -> StringTable:
        start = self.check_content(data, "a CSV file with a header row", "CSV")
        # The header's columns are counted from its bytes (at most a line's worth of
        # them), and it is split only once every line is known to be within the limit.
        first_line = _first_line(data, start, self.limits.max_line_bytes + 1)
        n_columns = _count_columns(first_line)
        self.check_columns(n_columns)
        self.check_lines(data)
        try:
            header = next(csv.reader([first_line.decode("utf-8")]), [])
        except (UnicodeDecodeError, csv.Error) as exc:
            self.fail(_unreadable(f"the header row is not UTF-8 CSV ({exc})", container))
        self.check_columns(len(header))
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
        self.check_decoded_size(data, start, len(header))
        columns = self.parse_columns(data, start, len(header), has_quote, container)
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
            self.fail(self.not_utf8(f"binary data: a NUL byte on line {line:,} (byte {nul + 1:,})"))
        if size > self.limits.max_decompressed_bytes:
            self.fail(too_big("File too large", size, self.limits.max_decompressed_bytes, what))
        return start

    def parse_columns(
        self,
        data: Text,
        start: int,
        n_columns: int,
        has_quote: bool,
        container: str,
    ) -> tuple[pa.Array, ...]:
        """Parse the lines after the header with pyarrow's CSV reader, a block at a time:
        one array per column; with ``runs``, a column whose first block's values come in runs of
        two lines or more on average (a long file's row ids) run-end encoded, block by
        block, so that its repeated values are never held."""
        block_size = min(
            max(_PARSE_BLOCK_BYTES, 2 * self.limits.max_line_bytes), _MAX_PARSE_BLOCK_BYTES
        )
        options = (n_columns, block_size, has_quote)
        text: Text | pa.Buffer = data
        try:
            if address_space_capped():  # where Arrow's parser ends the process
                batches = self.parsed_apart(data, start, *options)
            else:
                # The whole parse, then its blocks one at a time: Arrow's streaming reader
                # (open_csv) hangs when an allocation fails on its read-ahead thread.
                text, start = _arrow_text(data, start, self.name), 0
                batches = pacsv.read_csv(
                    pa.BufferReader(text), **parse_options(*options, WORKERS > 0)
                ).to_batches()
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            self.refuse_parse(exc, text, start, container)
        del text
        chunks: list[list[pa.Array]] = [[] for _ in range(n_columns)]
        as_runs: list[bool] = []
        batches.reverse()
        while batches:  # each block's columns kept (or encoded) and the block let go
            batch = batches.pop()
            as_runs = as_runs or [self.runs and _in_runs(c) for c in batch.columns]
            for column, kept, runs in zip(batch.columns, chunks, as_runs, strict=True):
                kept.append(pc.run_end_encode(column, pa.int64()) if runs else column)
        # Joined column by column, each chunk freed once copied, so that the peak holds
        # the chunks and one column's copy, not every column twice.
        as_runs = as_runs or [False] * n_columns
        return tuple(
            _joined_runs(chunks.pop(0))
            if as_runs[i]
            else joined_strings(chunks.pop(0) or [pa.array([], pa.large_string())])
            for i in range(n_columns)
        )

    def parsed_apart(
        self, data: Text, start: int, n_columns: int, block_size: int, quoted: bool
    ) -> list[pa.RecordBatch]:
        """The parse's blocks, parsed in a process of its own
        (:mod:`scorer.read.csv_parser`), for a run under a cap on its address space:
        Arrow's parser ends its process when an allocation fails there, and that
        process's end is this one's out-of-memory error. The child maps the file (text
        in memory is written to a temporary file for it) and writes the table to a
        temporary file, mapped here."""
        with contextlib.ExitStack() as stack:
            path = self.name if isinstance(data, mmap.mmap) else None
            if path is None:
                path = stack.enter_context(_copied(data, ".csv"))
            output = stack.enter_context(_copied(b"", ".arrow"))
            stderr = stack.enter_context(tempfile.TemporaryFile())
            command = [sys.executable, str(_CSV_PARSER), path, str(start)]
            command += [str(n_columns), str(block_size), str(int(quoted)), output]
            try:
                code = subprocess.run(command, stdin=subprocess.DEVNULL, stderr=stderr).returncode
            except OSError as exc:  # out of memory or of processes: the host's machine
                raise MemoryError(f"cannot start the CSV parser: {exc}") from None
            if code == 0:  # the map outlives the file's name
                if isinstance(data, mmap.mmap):  # the checks' map, let go as in process
                    data.close()
                # A stream: Arrow's reader of the IPC file format starts an I/O thread,
                # for which a capped address space may have no room.
                return list(pa.ipc.open_stream(pa.memory_map(output)))
            stderr.seek(0)
            said = stderr.read().decode("utf-8", "replace").strip()
        if code == BROKEN:
            raise pa.ArrowInvalid(said)
        last = said.splitlines()[-1] if said else f"exit code {code}"
        raise MemoryError(f"the CSV parser ran out of memory: {last}")

    def refuse_parse(
        self, exc: Exception, data: Text | pa.Buffer, start: int, container: str
    ) -> NoReturn:
        """The parser's refusal of the text: where it is not UTF-8, or the parser's
        first line."""
        text = bytes(data[start:])  # for this rare path only
        try:
            text.decode("utf-8")
        except UnicodeDecodeError as bad:
            self.fail(self.not_utf8(_utf8_position(text, bad)))
        self.fail(_unreadable(str(exc).splitlines()[0], container))

    def check_decoded_size(self, data: Text, start: int, n_columns: int) -> None:
        """Refuse text whose table would pass the decompressed-data limit: the text, and
        an offset of 8 bytes for each cell (the cells counted from the line ends, before
        anything is parsed or copied), as a Parquet file's cells are counted. What bounds
        a run's memory is what its inputs decode to (docs/formats-and-limits.md,
        "Resource contract"), and a row of a few bytes decodes to many more. The lines
        are counted only when some count of them could pass the limit."""
        limit = self.limits.max_decompressed_bytes
        size = len(data) - start
        bound = size + OFFSET_BYTES * n_columns * size
        if bound <= limit:
            return  # no count of lines can pass the limit: the pass is not needed
        lines = _count_newlines(data, len(data))
        if not lines:  # a CSV file's lines may end with lone CRs; a file of lines' never do
            lines = _count_bytes(data, _CR) if self.lines_of is None else 1
        decoded = size + OFFSET_BYTES * n_columns * lines
        if decoded > limit:
            self.fail(
                Problem(
                    "Decompressed data too large",
                    f"at most {limit:,} bytes once decoded (the text, and "
                    f"{OFFSET_BYTES} bytes for each cell)",
                    f"{size:,} bytes in {format_count(lines, 'line')} of "
                    f"{format_count(n_columns, 'column')}: up to {decoded:,} bytes",
                    ASK_FOR_A_HIGHER_LIMIT,
                )
            )

    def check_lines(self, data: Text) -> None:
        """Refuse any line longer than the limit (a vectorised pass, no copy of the text).
        A CSV file's line may end with a lone CR, as the CSV parser reads it; a file of
        lines (trec_eval's) ends a line with LF alone, as its parser does, where a CR
        separates fields."""
        limit = self.limits.max_line_bytes
        lone_cr = self.lines_of is None
        if len(data) <= limit or not _may_hold_a_line_over(data, limit, lone_cr):
            return
        count, longest, examples = _lines_over(data, limit, lone_cr)
        if count:
            self.fail(
                Problem(
                    "Line too long",
                    f"lines of at most {limit:,} bytes",
                    f"{format_count(count, 'line')} longer, the longest {longest:,} bytes",
                    f"check that the file is a {self.noun}"
                    + (" with one row per line" if self.lines_of is None else "")
                    + "; if long lines are intended, ask the host to raise the line limit",
                    examples,
                    "line numbers",
                )
            )


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


def _arrow_text(data: Text, start: int, path: str) -> pa.Buffer:
    """The text from ``start`` in memory that Arrow owns, for its CSV parser.

    The parser may let go of its input on one of its own threads a moment after it
    returns; releasing a buffer that holds a Python object takes the GIL there, and
    if the interpreter is exiting by then, the process aborts (``terminate called
    without an active exception``). A file mapped for the checks is mapped again by
    Arrow (its own map closed first: the text is never resident twice) and text in
    memory (decompressed, or from a pipe) is copied once.

    Examples
    --------
    >>> _arrow_text(b"\\xef\\xbb\\xbfa,b", 3, "unused").to_pybytes()
    b'a,b'
    """
    if not isinstance(data, bytes):  # the file, mapped
        size = len(data)
        try:
            with pa.memory_map(os.fsencode(path)) as mapped:
                mapped.seek(start)
                text = mapped.read_buffer(size - start)
        except (OSError, pa.ArrowException):  # cannot be mapped again: copied
            pass
        else:
            data.close()
            return text
    view = np.frombuffer(data, dtype=np.uint8)[start:]
    text = pa.allocate_buffer(len(view))
    np.frombuffer(text, dtype=np.uint8)[:] = view
    return text


def _in_runs(column: pa.Array) -> bool:
    """Whether the column's values come in runs of two or more on average.

    Examples
    --------
    >>> _in_runs(pa.array(["u1", "u1", "u2", "u2"])), _in_runs(pa.array(["u1", "u2", "u1"]))
    (True, False)
    """
    return 2 * len(pc.run_end_encode(column).run_ends) <= len(column)


def _joined_runs(chunks: list[pa.Array]) -> pa.Array:
    """One run-end encoded array of the chunks' runs (each chunk's own ``int64`` runs),
    a run that goes on across a chunk's end made one run.

    Examples
    --------
    >>> chunks = [pc.run_end_encode(pa.array(c), pa.int64()) for c in (["a", "b"], ["b", "c"])]
    >>> joined = _joined_runs(chunks)
    >>> joined.to_pylist(), joined.run_ends.to_pylist()
    (['a', 'b', 'b', 'c'], [1, 3, 4])
    """
    chunks = [chunk for chunk in chunks if len(chunk)]
    if not chunks:
        return run_end_encoded(np.zeros(0, dtype=np.int64), pa.array([], pa.large_string()))
    lengths = np.array([len(chunk) for chunk in chunks], dtype=np.int64)
    starts = np.cumsum(lengths) - lengths
    ends = np.concatenate(
        [to_numpy(chunk.run_ends) + start for chunk, start in zip(chunks, starts, strict=True)]
    )
    values = pa.concat_arrays([chunk.values for chunk in chunks])
    # Each chunk's first run, but the first chunk's: the same value as the run before
    # it goes on from there, and that run's end is no end.
    firsts = np.cumsum([len(chunk.run_ends) for chunk in chunks])[:-1]
    same = to_numpy(pc.equal(values.take(to_arrow(firsts - 1)), values.take(to_arrow(firsts))))
    keep = np.ones(len(ends), dtype=bool)
    keep[(firsts - 1)[same]] = False
    return run_end_encoded(ends[keep], values.filter(to_arrow(keep)))


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


def _may_hold_a_line_over(data: Text, limit: int, lone_cr: bool = True) -> bool:
    """Cheaply rule out lines longer than ``limit``: such a line (a run of at least
    ``limit + 1`` bytes without a line end) covers a whole aligned block of
    ``(limit + 1) // 2`` bytes, so a newline (or, with ``lone_cr``, a carriage return)
    in every block rules it out. Each block costs one ``memchr``, which stops at the
    block's first newline; a carriage return is looked for only in a block without one.

    Examples
    --------
    >>> _may_hold_a_line_over(b"ab\\ncd\\nef\\n" * 9, 10), _may_hold_a_line_over(b"ab\\r" * 9, 10)
    (False, False)
    >>> _may_hold_a_line_over(b"a" * 12 + b"\\n", 10)
    True
    >>> _may_hold_a_line_over(b"ab\\r" * 9, 10, lone_cr=False)  # a file of trec_eval's lines
    True
    """
    block = max((limit + 1) // 2, 1)
    if len(data) // block > 1_000_000:
        return True  # a tiny limit on a big file: let the exact check decide
    return any(
        data.find(b"\n", start, start + block) < 0
        and not (lone_cr and data.find(b"\r", start, start + block) >= 0)
        for start in range(0, len(data), block)
    )


def _lines_over(data: Text, limit: int, lone_cr: bool = True) -> tuple[int, int, tuple[str, ...]]:
    """How many lines are longer than ``limit`` bytes, the longest line's length and up
    to five of their (1-based) line numbers. A line ends with LF, CRLF or (with
    ``lone_cr``) a lone CR, as for the parser; its ending is not counted. Slice by
    slice, so that memory stays a few slices whatever the number of lines.

    Examples
    --------
    >>> _lines_over(b"abc\\r\\nab\\rabcd\\nx\\r\\rabcdef", 2)
    (3, 6, ('1', '3', '6'))
    >>> _lines_over(b"abc\\r\\nab\\rabcd\\nx\\r\\rabcdef", 2, lone_cr=False)
    (3, 9, ('1', '2', '3'))
    """
    view = np.frombuffer(data, dtype=np.uint8)
    count = longest = lines_before = line_start = 0
    examples: list[str] = []
    for offset in range(0, len(view), _LINE_SCAN_BYTES):
        window = view[offset : offset + _LINE_SCAN_BYTES]
        following = view[offset + 1 : offset + 1 + len(window)]
        if len(following) < len(window):  # the file's last byte: nothing follows it
            following = np.append(following, np.uint8(0))
        line_ends = window == _LF
        if lone_cr:
            line_ends |= (window == _CR) & (following != _LF)
        ends = np.flatnonzero(line_ends) + offset
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


def _not_a_regular_file(mode: int) -> Problem:
    """A part that is no regular file: reading a FIFO would wait for a writer for ever.

    Examples
    --------
    >>> _not_a_regular_file(stat.S_IFIFO).found
    'a FIFO (named pipe)'
    """
    kinds = {stat.S_IFIFO: "a FIFO (named pipe)", stat.S_IFSOCK: "a socket"}
    kinds.update({stat.S_IFCHR: "a character device", stat.S_IFBLK: "a block device"})
    return Problem(
        "Not a regular file",
        "Parquet files in a directory of parts (a partitioned dataset)",
        kinds.get(stat.S_IFMT(mode), "a special file"),
        "remove it from the directory, or replace it with the Parquet file it stands for",
    )


def _not_parquet() -> Problem:
    return Problem(
        "Not a Parquet file",
        "Parquet files in a directory of parts (a partitioned dataset)",
        "another format (CSV, gzip or zip)",
        "write the parts as Parquet, or give one file instead of the directory",
    )


def _unsupported_zip_method(method: int, noun: str = "CSV file") -> Problem:
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
        f"zip the {noun} again with the default settings, or upload it unzipped or gzipped",
    )


def _unreadable(reason: str, container: str = "", lines_of: str | None = None) -> Problem:
    """A file that cannot be read: a CSV file's words, or those of a headerless file of
    lines (``lines_of``: what it is, such as "trec_eval run file")."""
    what = f"{container} file holding a " if container else ""
    if lines_of is not None:
        again = (
            f"compress the {lines_of} again, or give it uncompressed"
            if container
            else (f"write the {lines_of} again as UTF-8 text")
        )
        return Problem("Unreadable file", f"a {what}{lines_of} in UTF-8 text", reason, again)
    return Problem(
        "Unreadable file",
        f"a {what}UTF-8 CSV file with a header row and the same number of fields on every line",
        reason,
        "export the file again as UTF-8 CSV (for example with pandas: to_csv(index=False))",
    )
