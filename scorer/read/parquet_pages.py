"""What the pages of a Parquet column chunk decode to, from their headers.

A Parquet file's metadata declares each column chunk's sizes, but the reader trusts the
page headers: each page is decompressed into a buffer of its header's
``uncompressed_page_size``. Walking the headers (Thrift compact protocol) gives what the
pages really decompress to, and bounds what a batch of rows decodes to: a plain value
lies within its page (so a batch's plain values are at most the pages it touches), a
dictionary-encoded value is at most the dictionary's longest value (read from the
dictionary page), and a value of any other encoding is at most its page's size.

pyarrow parses the file's metadata in C++ and reads the pages; it gives no access to
page headers, so those are read here. The walk costs
O(file bytes) in all: column chunks may not overlap (a crafted file can point every row
group at the same bytes), each header is parsed once, from a window bounded once, by a
loop without recursion whose every step consumes a byte; a dictionary page's values are
decoded by Arrow (:func:`longest_plain_value`), never one Python step per value. The
same reader goes once over the footer (:func:`footer_chunks`) for the column chunks'
metadata, which pyarrow describes to Python in code that ends the process on a bad one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# Thrift compact protocol types (the low nibble of a field header).
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
# PageHeader's fields, page types and encodings (parquet.thrift).
_TYPE, _UNCOMPRESSED_SIZE, _COMPRESSED_SIZE = 1, 2, 3
_DATA_PAGE_HEADER, _DICTIONARY_PAGE_HEADER, _DATA_PAGE_HEADER_V2 = 5, 7, 8
DICTIONARY_PAGE = 2
_PLAIN, _PLAIN_DICTIONARY, _RLE_DICTIONARY = 0, 2, 8
_MAX_HEADER_BYTES = 16 << 20  # as Arrow's reader: a longer page header is refused
_MAX_DEPTH = 16
_BYTE_ARRAY = 6  # a Parquet physical type


class BadPageHeader(ValueError):
    """A page header that is not valid Thrift, or a size out of range."""


@dataclass(frozen=True)
class Page:
    """One page of a column chunk, as its header describes it."""

    kind: int
    uncompressed: int
    compressed: int
    body: int  # offset of the page's (compressed) data in the file
    num_values: int
    encoding: int

    @property
    def dictionary_encoded(self) -> bool:
        return self.encoding in (_PLAIN_DICTIONARY, _RLE_DICTIONARY)

    @property
    def plain(self) -> bool:
        return self.encoding == _PLAIN


def chunk_range(chunk: Any) -> tuple[int, int]:
    """Where a column chunk (``pyarrow.parquet.ColumnChunkMetaData``) lies in the file:
    its first page's offset (its dictionary page, if it has one) and its stored size."""
    start = chunk.data_page_offset
    if chunk.has_dictionary_page and 0 < chunk.dictionary_page_offset < start:
        start = chunk.dictionary_page_offset
    return start, chunk.total_compressed_size


def check_disjoint(ranges: Sequence[tuple[int, int]], file_size: int) -> None:
    """Refuse column chunks that overlap or lie outside the file: a file written by any
    Parquet writer stores each chunk once, and sharing bytes would make a file of n bytes
    cost n per row group.

    Examples
    --------
    >>> check_disjoint([(4, 10), (14, 6)], 30)
    >>> check_disjoint([(4, 10), (8, 6)], 30)
    Traceback (most recent call last):
    ...
    scorer.read.parquet_pages.BadPageHeader: column chunks that overlap (bytes 8 to 14 of the file)
    """
    if not ranges:
        return
    bounds = np.array(ranges, dtype=np.int64).reshape(-1, 2)
    starts, ends = bounds[:, 0], bounds[:, 0] + bounds[:, 1]
    if (bounds < 0).any() or (ends > file_size).any():
        raise BadPageHeader("a column chunk that lies outside the file")
    order = np.argsort(starts, kind="stable")
    starts, ends = starts[order], ends[order]
    overlap = np.flatnonzero(starts[1:] < ends[:-1])
    if len(overlap):
        first = int(overlap[0])
        raise BadPageHeader(
            "column chunks that overlap "
            f"(bytes {int(starts[first + 1])} to {int(ends[first])} of the file)"
        )


class PageWalker:
    """The pages of a file's column chunks, each header parsed once.

    Parameters
    ----------
    data : bytes-like
        The whole file (read in place, never copied).

    Examples
    --------
    >>> header = bytes([0x15, 0, 0x15, 0x28, 0x15, 6, 0x2C, 0x15, 4, 0x15, 0, 0, 0])
    >>> data = header + b"abc"  # a data page: 20 bytes once decompressed, 3 stored, 2 values
    >>> [(p.uncompressed, p.compressed, p.body, p.num_values, p.plain)
    ...  for p in PageWalker(data).pages(0, len(data))]
    [(20, 3, 13, 2, True)]
    """

    def __init__(self, data: Any) -> None:
        self.data = memoryview(data).cast("B")
        self.headers: dict[int, Page] = {}

    def chunk_pages(self, chunk: Any) -> list[Page]:
        """The pages of one column chunk, its dictionary page first when it has one."""
        return self.pages(*chunk_range(chunk))

    def pages(self, start: int, length: int) -> list[Page]:
        """The pages of the column chunk at ``start``, of ``length`` stored bytes.

        Raises
        ------
        BadPageHeader
            When a header cannot be read or a page does not fit in the chunk.
        """
        pages: list[Page] = []
        position, end = start, start + length
        while position < end:
            page = self.header(position)
            if page.body > end:
                raise BadPageHeader("a page header runs past the end of its column chunk")
            pages.append(page)
            position = page.body + page.compressed
            if position > end:
                raise BadPageHeader("a page runs past the end of its column chunk")
        return pages

    def header(self, position: int) -> Page:
        """The page whose header starts at ``position`` (parsed once)."""
        page = self.headers.get(position)
        if page is None:
            page = self.headers[position] = _read_header(self.data, position)
        return page


def longest_plain_value(data: Any, count: int) -> int:
    """The length of the longest of ``count`` PLAIN-encoded byte arrays (each a 4-byte
    little-endian length and its bytes), as in a dictionary page.

    Each value's offset depends on the one before, so the values are decoded by Arrow's
    own PLAIN decoder, in C++: the page is wrapped as the one data page of a one-column
    file (:func:`_plain_page_file`) and read back. Arrow never hashes the values there.

    Examples
    --------
    >>> longest_plain_value(b"\\x02\\x00\\x00\\x00ab\\x03\\x00\\x00\\x00abc", 2)
    3
    >>> longest_plain_value(bytes(4 * 1000), 1000)  # a thousand empty values
    0
    """
    import pyarrow as pa
    import pyarrow.compute as pc
    import pyarrow.parquet as pq

    size = len(memoryview(data).cast("B"))
    if count < 0 or 4 * count > size:
        raise BadPageHeader("a dictionary page shorter than its values")
    if count == 0:
        return 0
    try:
        values = pq.read_table(pa.BufferReader(_plain_page_file(data, count))).column(0)
    except (pa.ArrowException, OSError):
        raise BadPageHeader("a dictionary page shorter than its values") from None
    if len(values) != count:
        raise BadPageHeader("a dictionary page shorter than its values")
    return int(pc.max(pc.binary_length(values)).as_py() or 0)


def _plain_page_file(data: Any, count: int) -> bytes:
    """A Parquet file of one required binary column whose one page, PLAIN, uncompressed,
    holds ``data``: ``count`` values."""
    size = len(memoryview(data).cast("B"))
    header = _struct(
        (1, _I32, 0),  # a data page
        (2, _I32, size),
        (3, _I32, size),
        (5, _STRUCT, _struct((1, _I32, count), (2, _I32, _PLAIN), (3, _I32, 3), (4, _I32, 3))),
    )
    page_offset, column_size = 4, len(header) + size
    metadata = _struct(
        (1, _I32, _BYTE_ARRAY),
        (2, _LIST, _list(_I32, [_zigzag(_PLAIN)])),
        (3, _LIST, _list(_BINARY, [b"\x01v"])),
        (4, _I32, 0),  # uncompressed
        (5, _I64, count),
        (6, _I64, column_size),
        (7, _I64, column_size),
        (9, _I64, page_offset),
    )
    column = _struct((2, _I64, page_offset), (3, _STRUCT, metadata))
    group = _struct((1, _LIST, _list(_STRUCT, [column])), (2, _I64, column_size), (3, _I64, count))
    root = _struct((4, _BINARY, b"\x06schema"), (5, _I32, 1))
    leaf = _struct((1, _I32, _BYTE_ARRAY), (3, _I32, 0), (4, _BINARY, b"\x01v"))
    footer = _struct(
        (1, _I32, 1),
        (2, _LIST, _list(_STRUCT, [root, leaf])),
        (3, _I64, count),
        (4, _LIST, _list(_STRUCT, [group])),
    )
    return b"".join((b"PAR1", header, data, footer, len(footer).to_bytes(4, "little"), b"PAR1"))


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _zigzag(value: int) -> bytes:
    return _varint((value << 1) ^ (value >> 63))


def _struct(*fields: tuple[int, int, Any]) -> bytes:
    """A Thrift compact struct of (id, type, value) fields in increasing id order: an
    int, or the already encoded struct, list or binary (length included)."""
    out, last = bytearray(), 0
    for field_id, kind, value in fields:
        out.append((field_id - last) << 4 | kind)
        last = field_id
        out += _zigzag(value) if kind in (_I32, _I64) else value
    return bytes(out) + b"\x00"


def _list(kind: int, items: list[bytes]) -> bytes:
    return bytes([len(items) << 4 | kind]) + b"".join(items)


_PHYSICAL_TYPES = (
    "BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"
)  # fmt: skip
_CODEC_NAMES = ("UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW")


@dataclass(frozen=True)
class ChunkMeta:
    """What the reader needs of a column chunk's metadata, named as pyarrow names it."""

    physical_type: str
    compression: str
    data_page_offset: int
    dictionary_page_offset: int | None
    total_compressed_size: int

    @property
    def has_dictionary_page(self) -> bool:
        return self.dictionary_page_offset is not None


def footer_chunks(data: Any, n_row_groups: int, n_columns: int) -> list[ChunkMeta]:
    """Every column chunk's metadata, row group after row group, read from the footer.

    pyarrow parses the footer too, but describes a column chunk to Python in code that
    ends the process (SIGABRT) instead of raising when the chunk's metadata disagrees
    with the schema (a level histogram of the wrong length, size statistics for a
    column of numbers, an unknown codec: found by fuzzing). Its own reader raises a
    catchable error for the same file, so only this description is read here.

    Raises
    ------
    BadPageHeader
        A footer that ends too soon, or a column chunk without the fields a reader needs.
    """
    view = memoryview(data).cast("B")
    footer_size = int.from_bytes(view[-8:-4], "little")
    start = len(view) - 8 - footer_size
    if start < 4:
        raise BadPageHeader("a footer longer than the file")
    try:
        footer = _Compact(view, start, len(view) - 8).struct_fields(_chunk_metadata)
    except IndexError:
        raise BadPageHeader("a footer that ends too soon") from None
    groups = _structs(footer.get(4))
    if len(groups) != n_row_groups:
        raise BadPageHeader("a footer whose row groups are not those it declares")
    chunks = []
    for group in groups:
        columns = _structs(group.get(1))
        if len(columns) != n_columns:
            raise BadPageHeader("a row group without a column chunk for every column")
        chunks.extend(_chunk_meta(column.get(3)) for column in columns)
    return chunks


def _chunk_meta(meta: Any) -> ChunkMeta:
    fields = meta if isinstance(meta, dict) else {}
    kind, codec = fields.get(1), fields.get(4)
    data_offset, size, dictionary = fields.get(9), fields.get(7), fields.get(11)
    if not (
        isinstance(kind, int)
        and 0 <= kind < len(_PHYSICAL_TYPES)
        and isinstance(codec, int)
        and 0 <= codec < len(_CODEC_NAMES)
        and isinstance(data_offset, int)
        and isinstance(size, int)
        and (dictionary is None or isinstance(dictionary, int))
    ):
        raise BadPageHeader("a column chunk without a valid type, codec, offset or size")
    return ChunkMeta(_PHYSICAL_TYPES[kind], _CODEC_NAMES[codec], data_offset, dictionary, size)


def _structs(value: Any) -> list[dict]:
    return value if isinstance(value, list) else []


def _read_header(data: memoryview, position: int) -> Page:
    """The page whose header starts at ``position``, read from at most 16 MiB of data."""
    window_end = min(len(data), position + _MAX_HEADER_BYTES)
    reader = _Compact(data, position, window_end)
    try:
        fields = reader.struct_fields()
    except IndexError:
        if window_end == position + _MAX_HEADER_BYTES:
            raise BadPageHeader("a page header longer than 16 MiB") from None
        raise BadPageHeader("a page header runs past the end of its column chunk") from None
    uncompressed = fields.get(_UNCOMPRESSED_SIZE, -1)
    compressed = fields.get(_COMPRESSED_SIZE, -1)
    if not isinstance(uncompressed, int) or not isinstance(compressed, int):
        raise BadPageHeader("a page header without valid sizes")
    if uncompressed < 0 or compressed < 0:
        raise BadPageHeader("a page header without valid sizes")
    details: dict = {}
    encoding_field = 2
    for field, encoding in (
        (_DATA_PAGE_HEADER, 2),
        (_DICTIONARY_PAGE_HEADER, 2),
        (_DATA_PAGE_HEADER_V2, 4),
    ):
        if isinstance(fields.get(field), dict):
            details, encoding_field = fields[field], encoding
    num_values = details.get(1, 0)
    encoding = details.get(encoding_field, -1)
    kind = fields.get(_TYPE, -1)
    if not all(isinstance(v, int) for v in (num_values, encoding, kind)) or num_values < 0:
        raise BadPageHeader("a page header without a valid value count")
    return Page(kind, uncompressed, compressed, reader.position, num_values, encoding)


def _shallow(path: tuple[int, ...]) -> bool:
    """A page header's own fields and those of its page-type headers."""
    return len(path) <= 1


def _chunk_metadata(path: tuple[int, ...]) -> bool:
    """FileMetaData's row groups (4), their column chunks (1) and each chunk's
    metadata (3)."""
    return path == (4, 1, 3)[: len(path)]


class _Compact:
    """Just enough of Thrift's compact protocol to read a struct's integer fields (and
    those of the structs it holds) and skip the rest, without recursion: nested
    structs, lists, sets and maps are frames on a stack at most 16 deep, and every step
    reads at least one byte. Raises IndexError when the data ends too soon."""

    def __init__(self, data: memoryview, position: int, end: int) -> None:
        self.data, self.position, self.end = data, position, end

    def byte(self) -> int:
        if self.position >= self.end:
            raise IndexError("past the end")
        value = self.data[self.position]
        self.position += 1
        return value

    def varint(self) -> int:
        result = shift = 0
        while True:
            byte = self.byte()
            result |= (byte & 0x7F) << shift
            if byte < 0x80:
                return result
            shift += 7
            if shift > 63:
                raise BadPageHeader("a varint longer than 64 bits")

    def zigzag(self) -> int:
        value = self.varint()
        return (value >> 1) ^ -(value & 1)

    def advance(self, count: int) -> None:
        self.position += count
        if self.position > self.end:
            raise IndexError("past the end")

    def struct_fields(self, keep: Callable[[tuple[int, ...]], bool] = _shallow) -> dict:
        """Read one struct: its i32 and i64 fields, by id, and those of the structs
        ``keep`` asks for by their path of field ids (a list of structs as a list of
        their fields, a list of anything else as ``(count,)``); any other field is
        recorded as present (True), and what the others hold is skipped."""
        top: dict = {}
        # A frame: [fields or None (skipped), last field id, path] for a struct, or
        # [kept structs or None, elements left, element types (one, or two for a map),
        # path] for a container.
        stack: list[list] = [[top, 0, ()]]
        while stack:
            frame = stack[-1]
            if len(frame) == 3:  # a struct: its next field
                header = self.byte()
                if header == 0:
                    stack.pop()
                    continue
                kind, delta = header & 0x0F, header >> 4
                frame[1] = frame[1] + delta if delta else self.zigzag()
                fields, field_id = frame[0], frame[1]
                path = (*frame[2], field_id)
                kept = fields is not None and keep(path)
                if kind in (_I32, _I64):
                    value = self.zigzag()
                    if fields is not None:
                        fields[field_id] = value
                elif kind == _STRUCT:
                    child = {} if kept else None
                    if fields is not None:
                        fields[field_id] = child if kept else True
                    self.push(stack, [child, 0, path])
                elif kind == _LIST and fields is not None:
                    header = self.byte()
                    size = header >> 4 if header >> 4 != 15 else self.varint()
                    structs = [] if header & 0x0F == _STRUCT and kept else None
                    fields[field_id] = (size,) if structs is None else structs
                    self.push(stack, [structs, size, (header & 0x0F,), path])
                else:
                    if fields is not None:
                        fields[field_id] = True
                    self.value(stack, kind, in_container=False)
            elif frame[1] == 0:  # a container with no element left
                stack.pop()
            else:
                frame[1] -= 1
                if frame[0] is not None:  # a struct of a kept list
                    frame[0].append({})
                    self.push(stack, [frame[0][-1], 0, frame[3]])
                    continue
                types = frame[2]
                self.value(stack, types[(frame[1] + 1) % len(types)], in_container=True)
        return top

    def value(self, stack: list[list], kind: int, in_container: bool) -> None:
        """Skip a value of ``kind``, or push the frame that will."""
        if kind in (_TRUE, _FALSE):
            if in_container:  # booleans take a byte in a container, none in a field
                self.advance(1)
        elif kind == _BYTE:
            self.advance(1)
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.advance(8)
        elif kind == _BINARY:
            self.advance(self.varint())
        elif kind == _STRUCT:
            self.push(stack, [None, 0, ()])
        elif kind in (_LIST, _SET):
            header = self.byte()
            size = header >> 4 if header >> 4 != 15 else self.varint()
            self.push(stack, [None, size, (header & 0x0F,), ()])
        elif kind == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                # Keys and values alternate: 2 * size elements, the key's type first.
                self.push(stack, [None, 2 * size, (types >> 4, types & 0x0F), ()])
        else:
            raise BadPageHeader(f"unknown Thrift type {kind}")

    def push(self, stack: list[list], frame: list) -> None:
        if len(stack) > _MAX_DEPTH:
            raise BadPageHeader("page header nested too deep")
        stack.append(frame)
