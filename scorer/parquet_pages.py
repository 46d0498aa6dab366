"""The page sizes of a Parquet column chunk, read from its page headers.

A Parquet file's metadata declares each column chunk's sizes, but the reader trusts the
page headers: each page is decompressed into a buffer of its header's
``uncompressed_page_size``. Walking the headers (Thrift compact protocol) gives what the
pages really decompress to, and the largest of them bounds the length of any one value
decoded from the chunk: a plain value lies within its page, a dictionary value within the
dictionary page, and a delta-encoded value is at most the sum of its page's suffixes.
"""

from __future__ import annotations

from collections.abc import Callable

# Thrift compact protocol types (the low nibble of a field header).
_TRUE, _FALSE, _BYTE, _I16, _I32, _I64, _DOUBLE, _BINARY = 1, 2, 3, 4, 5, 6, 7, 8
_LIST, _SET, _MAP, _STRUCT = 9, 10, 11, 12
_UNCOMPRESSED_SIZE, _COMPRESSED_SIZE = 2, 3  # PageHeader's field ids
_HEADER_WINDOW = 1 << 10
_MAX_HEADER_BYTES = 16 << 20  # as Arrow's reader: a longer page header is refused
_MAX_DEPTH = 16


class BadPageHeader(ValueError):
    """A page header that is not valid Thrift, or a size out of range."""


def page_sizes(read_at: Callable[[int, int], bytes], start: int, length: int) -> list[int]:
    """The uncompressed size of every page of the column chunk at ``start``.

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
    >>> header = bytes([0x15, 0x00, 0x15, 0x28, 0x15, 0x06, 0x00])  # sizes 20 and 3
    >>> data = header + b"abc"
    >>> page_sizes(lambda n, at: data[at : at + n], 0, len(data))
    [20]
    """
    sizes: list[int] = []
    position, end = start, start + length
    while position < end:
        uncompressed, compressed, header_length = _read_header(read_at, position, end)
        sizes.append(uncompressed)
        position += header_length + compressed
        if position > end:
            raise BadPageHeader("a page runs past the end of its column chunk")
    return sizes


def _read_header(
    read_at: Callable[[int, int], bytes], position: int, end: int
) -> tuple[int, int, int]:
    """(uncompressed size, compressed size, header length) of the page at ``position``."""
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
    if uncompressed < 0 or compressed < 0:
        raise BadPageHeader("a page header without valid sizes")
    return uncompressed, compressed, reader.position


class _Compact:
    """Just enough of Thrift's compact protocol to read a struct's integer fields and
    skip the rest. Raises IndexError when the data ends too soon."""

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

    def struct_ints(self, depth: int = 0) -> dict[int, int]:
        """Read one struct; return its i32 and i64 fields by id (nested ones skipped)."""
        if depth > _MAX_DEPTH:
            raise BadPageHeader("page header nested too deep")
        ints: dict[int, int] = {}
        field_id = 0
        while True:
            header = self.byte()
            if header == 0:
                return ints
            kind, delta = header & 0x0F, header >> 4
            field_id = field_id + delta if delta else self.zigzag()
            if kind in (_I32, _I64):
                ints[field_id] = self.zigzag()
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
