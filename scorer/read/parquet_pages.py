"""What the pages of a Parquet column chunk decode to, from their headers.

A Parquet file's metadata declares each column chunk's sizes, but the reader trusts the
page headers: each page is decompressed into a buffer of its header's
``uncompressed_page_size``. Walking the headers (Thrift compact protocol) gives what the
pages really decompress to, and bounds what a batch of rows decodes to: a plain value
lies within its page (so a batch's plain values are at most the pages it touches), a
dictionary-encoded value is at most the dictionary's longest value (read from the
dictionary page), and a value of any other encoding is at most its page's size.
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

# Thrift compact protocol types (the low nibble of a field header).
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
# PageHeader's fields, page types and encodings (parquet.thrift).
_TYPE, _UNCOMPRESSED_SIZE, _COMPRESSED_SIZE = 1, 2, 3
_DATA_PAGE_HEADER, _DICTIONARY_PAGE_HEADER, _DATA_PAGE_HEADER_V2 = 5, 7, 8
DICTIONARY_PAGE = 2
_PLAIN, _PLAIN_DICTIONARY, _RLE_DICTIONARY = 0, 2, 8
_HEADER_WINDOW = 1 << 10
_MAX_HEADER_BYTES = 16 << 20  # as Arrow's reader: a longer page header is refused
_MAX_DEPTH = 16
_LENGTH = struct.Struct("<I")


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


def chunk_pages(read_at: Callable[[int, int], bytes], chunk) -> list[Page]:
    """The pages of one column chunk (``pyarrow.parquet.ColumnChunkMetaData``), its
    dictionary page first when it has one."""
    start = chunk.data_page_offset
    if chunk.has_dictionary_page and 0 < chunk.dictionary_page_offset < start:
        start = chunk.dictionary_page_offset
    return read_pages(read_at, start, chunk.total_compressed_size)


def read_pages(read_at: Callable[[int, int], bytes], start: int, length: int) -> list[Page]:
    """The pages of the column chunk at ``start``, from their headers.

    Parameters
    ----------
    read_at : callable
        ``read_at(count, offset)``: up to ``count`` bytes of the file from ``offset``.
    start : int
        Offset of the chunk's first page (its dictionary page, if it has one).
    length : int
        The chunk's compressed size: its pages' headers and bodies.

    Raises
    ------
    BadPageHeader
        When a header cannot be read or a page does not fit in the chunk.

    Examples
    --------
    >>> header = bytes([0x15, 0, 0x15, 0x28, 0x15, 6, 0x2C, 0x15, 4, 0x15, 0, 0, 0])
    >>> data = header + b"abc"  # a data page: 20 bytes once decompressed, 3 stored, 2 values
    >>> [(p.uncompressed, p.compressed, p.body, p.num_values, p.plain)
    ...  for p in read_pages(lambda n, at: data[at : at + n], 0, len(data))]
    [(20, 3, 13, 2, True)]
    """
    pages: list[Page] = []
    position, end = start, start + length
    while position < end:
        page = _read_header(read_at, position, end)
        pages.append(page)
        position = page.body + page.compressed
        if position > end:
            raise BadPageHeader("a page runs past the end of its column chunk")
    return pages


def longest_plain_value(data: bytes, count: int) -> int:
    """The length of the longest of ``count`` PLAIN-encoded byte arrays (each a 4-byte
    little-endian length and its bytes), as in a dictionary page.

    Examples
    --------
    >>> longest_plain_value(b"\\x02\\x00\\x00\\x00ab\\x03\\x00\\x00\\x00abc", 2)
    3
    """
    unpack = _LENGTH.unpack_from
    position = longest = 0
    try:
        for _ in range(count):
            (length,) = unpack(data, position)
            position += 4 + length
            longest = max(longest, length)
    except struct.error:
        raise BadPageHeader("a dictionary page shorter than its values") from None
    if position > len(data):
        raise BadPageHeader("a dictionary page shorter than its values")
    return longest


def _read_header(read_at: Callable[[int, int], bytes], position: int, end: int) -> Page:
    """The page whose header starts at ``position``."""
    window = _HEADER_WINDOW
    while True:
        data = read_at(min(window, end - position), position)
        try:
            reader = _Compact(data)
            fields = reader.struct_ints()
            break
        except IndexError:
            if len(data) < window:  # the chunk ends inside the header
                raise BadPageHeader("a page header runs past the end of its column chunk") from None
            if window >= _MAX_HEADER_BYTES:
                raise BadPageHeader("a page header longer than 16 MiB") from None
            window *= 4
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
    return Page(kind, uncompressed, compressed, position + reader.position, num_values, encoding)


class _Compact:
    """Just enough of Thrift's compact protocol to read a struct's integer fields (and
    those of the structs it holds) and skip the rest. Raises IndexError when the data
    ends too soon."""

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.position = 0

    def byte(self) -> int:
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

    def struct_ints(self, depth: int = 0) -> dict:
        """Read one struct: its i32 and i64 fields, and its structs' (as dicts), by id."""
        if depth > _MAX_DEPTH:
            raise BadPageHeader("page header nested too deep")
        ints: dict = {}
        field_id = 0
        while True:
            header = self.byte()
            if header == 0:
                return ints
            kind, delta = header & 0x0F, header >> 4
            field_id = field_id + delta if delta else self.zigzag()
            if kind in (_I32, _I64):
                ints[field_id] = self.zigzag()
            elif kind == _STRUCT:
                ints[field_id] = self.struct_ints(depth + 1)
            else:
                self.skip(kind, depth)

    def skip(self, kind: int, depth: int) -> None:
        if kind in (_TRUE, _FALSE):
            return
        if kind == _BYTE:
            self.position += 1
        elif kind in (_I16, _I32, _I64):
            self.varint()
        elif kind == _DOUBLE:
            self.position += 8
        elif kind == _BINARY:
            length = self.varint()  # read first: it moves the position
            self.position += length
        elif kind in (_LIST, _SET):
            header = self.byte()
            size = header >> 4 if header >> 4 != 15 else self.varint()
            for _ in range(size):
                self.skip_element(header & 0x0F, depth)
        elif kind == _MAP:
            size = self.varint()
            if size:
                types = self.byte()
                for _ in range(size):
                    self.skip_element(types >> 4, depth)
                    self.skip_element(types & 0x0F, depth)
        elif kind == _STRUCT:
            self.struct_ints(depth + 1)
        else:
            raise BadPageHeader(f"unknown Thrift type {kind}")
        if self.position > len(self.data):
            raise IndexError("past the end")

    def skip_element(self, kind: int, depth: int) -> None:
        """A list, set or map element: booleans take one byte there."""
        if kind in (_TRUE, _FALSE):
            self.position += 1
        else:
            self.skip(kind, depth)
        if self.position > len(self.data):  # every element takes a byte: a bounded loop
            raise IndexError("past the end")
