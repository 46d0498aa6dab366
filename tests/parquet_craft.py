"""Parquet files written byte by byte, for the hostile tests and the fuzz target.

pyarrow writes only valid files; a hostile participant writes anything. These helpers
encode the Thrift compact protocol and Parquet's page headers and footer (parquet.thrift)
directly, so that a test can make column chunks share their bytes, a page header hold
3,000 nested lists, or a dictionary page hold millions of values that no writer would.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from dataclasses import dataclass, field

import pyarrow as pa

# Thrift compact types.
I32, I64, BINARY, LIST, STRUCT = 5, 6, 8, 9, 12
# Parquet enums.
DATA_PAGE, DICTIONARY_PAGE = 0, 2
PLAIN, RLE, RLE_DICTIONARY = 0, 3, 8
BYTE_ARRAY, REQUIRED, UTF8 = 6, 0, 0
CODECS = {"none": 0, "snappy": 1, "gzip": 2, "zstd": 6}


def varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)


def zigzag(value: int) -> bytes:
    return varint((value << 1) ^ (value >> 63))


class Struct:
    """A Thrift struct in the compact protocol, its fields added in increasing id order."""

    def __init__(self) -> None:
        self.out = bytearray()
        self.last = 0

    def header(self, field_id: int, kind: int) -> Struct:
        delta = field_id - self.last
        if 0 < delta <= 15:
            self.out.append(delta << 4 | kind)
        else:
            self.out.append(kind)
            self.out += zigzag(field_id)
        self.last = field_id
        return self

    def int(self, field_id: int, value: int, kind: int = I32) -> Struct:
        self.header(field_id, kind).out.extend(zigzag(value))
        return self

    def binary(self, field_id: int, value: bytes) -> Struct:
        self.header(field_id, BINARY).out.extend(varint(len(value)) + value)
        return self

    def struct(self, field_id: int, value: Struct) -> Struct:
        self.header(field_id, STRUCT).out.extend(value.end())
        return self

    def raw(self, field_id: int, kind: int, encoded: bytes) -> Struct:
        """A field whose value is already encoded (a list, say)."""
        self.header(field_id, kind).out.extend(encoded)
        return self

    def end(self) -> bytes:
        return bytes(self.out) + b"\x00"


def list_of(kind: int, items: Sequence[bytes]) -> bytes:
    size = len(items)
    head = bytes([size << 4 | kind]) if size < 15 else bytes([0xF0 | kind]) + varint(size)
    return head + b"".join(items)


def nested_lists(depth: int) -> bytes:
    """``depth`` lists, each holding the next; the innermost is empty."""
    return bytes([1 << 4 | LIST]) * (depth - 1) + bytes([LIST])


def page_header(
    kind: int,
    uncompressed: int,
    compressed: int,
    num_values: int,
    encoding: int,
    padding: bytes = b"",
    extra: bytes = b"",
) -> bytes:
    """A page header; ``padding`` adds an unknown binary field (readers skip it) and
    ``extra`` an unknown field whose value is already encoded (a list, say)."""
    header = Struct().int(1, kind).int(2, uncompressed).int(3, compressed)
    details = Struct().int(1, num_values).int(2, encoding)
    if kind == DATA_PAGE:
        details.int(3, RLE).int(4, RLE)
        header.struct(5, details)
    else:
        header.struct(7, details)
    if padding:
        header.binary(20, padding)
    if extra:
        header.raw(21, LIST, extra)
    return header.end()


def plain_values(values: Sequence[bytes]) -> bytes:
    return b"".join(struct.pack("<I", len(v)) + v for v in values)


def rle_indices(runs: Sequence[tuple[int, int]]) -> bytes:
    """Dictionary indices as run-length runs of (count, index)."""
    bit_width = max(max(index for _, index in runs).bit_length(), 1)
    width = (bit_width + 7) // 8
    return bytes([bit_width]) + b"".join(
        varint(count << 1) + index.to_bytes(width, "little") for count, index in runs
    )


def compress(data: bytes, codec: str) -> bytes:
    return data if codec == "none" else pa.compress(data, codec=codec, asbytes=True)


@dataclass
class Chunk:
    """Where a column chunk lies, and what its metadata declares."""

    start: int
    size: int
    num_values: int
    dictionary_offset: int | None = None
    data_offset: int | None = None
    uncompressed: int | None = None


@dataclass
class CraftedFile:
    """A file of one required UTF-8 column (``id``), laid out page by page."""

    codec: str = "none"
    body: bytearray = field(default_factory=lambda: bytearray(b"PAR1"))

    def page(self, kind: int, data: bytes, num_values: int, encoding: int, **header_options) -> int:
        """Append a page; return its offset."""
        offset = len(self.body)
        stored = compress(data, self.codec)
        self.body += page_header(
            kind, len(data), len(stored), num_values, encoding, **header_options
        )
        self.body += stored
        return offset

    def finish(
        self,
        row_groups: Sequence[Chunk],
        num_rows_each: Sequence[int],
        declared_rows: int | None = None,
    ) -> bytes:
        """The file: its pages, then a footer describing ``row_groups``, whose row count
        is theirs or ``declared_rows``."""
        groups = []
        for chunk, rows in zip(row_groups, num_rows_each, strict=True):
            meta = (
                Struct()
                .int(1, BYTE_ARRAY)
                .raw(2, LIST, list_of(I32, [zigzag(PLAIN), zigzag(RLE), zigzag(RLE_DICTIONARY)]))
                .raw(3, LIST, list_of(BINARY, [varint(2) + b"id"]))
                .int(4, CODECS[self.codec])
                .int(5, chunk.num_values, I64)
                .int(6, chunk.uncompressed or chunk.size, I64)
                .int(7, chunk.size, I64)
                .int(9, chunk.data_offset or chunk.start, I64)
            )
            if chunk.dictionary_offset is not None:
                meta.int(11, chunk.dictionary_offset, I64)
            column = Struct().int(2, chunk.start, I64).struct(3, meta)
            group = (
                Struct()
                .raw(1, LIST, list_of(STRUCT, [column.end()]))
                .int(2, chunk.uncompressed or chunk.size, I64)
                .int(3, rows, I64)
            )
            groups.append(group.end())
        root = Struct().binary(4, b"schema").int(5, 1)
        leaf = Struct().int(1, BYTE_ARRAY).int(3, REQUIRED).binary(4, b"id").int(6, UTF8)
        footer = (
            Struct()
            .int(1, 1)
            .raw(2, LIST, list_of(STRUCT, [root.end(), leaf.end()]))
            .int(3, sum(num_rows_each) if declared_rows is None else declared_rows, I64)
            .raw(4, LIST, list_of(STRUCT, groups))
            .end()
        )
        return bytes(self.body) + footer + struct.pack("<I", len(footer)) + b"PAR1"


def plain_file(
    values: Sequence[bytes],
    codec: str = "none",
    declared_rows: int | None = None,
    **header_options,
) -> bytes:
    """One row group, one plain data page holding ``values``; the footer's row count
    theirs or ``declared_rows``."""
    crafted = CraftedFile(codec)
    start = crafted.page(DATA_PAGE, plain_values(values), len(values), PLAIN, **header_options)
    size = len(crafted.body) - start
    return crafted.finish([Chunk(start, size, len(values))], [len(values)], declared_rows)


def shared_pages_file(values: Sequence[bytes], row_groups: int, padding: int) -> bytes:
    """``row_groups`` row groups whose column chunks are all the same bytes: one plain
    page whose header carries ``padding`` bytes of an unknown field."""
    crafted = CraftedFile()
    start = crafted.page(
        DATA_PAGE, plain_values(values), len(values), PLAIN, padding=b"p" * padding
    )
    chunk = Chunk(start, len(crafted.body) - start, len(values))
    return crafted.finish([chunk] * row_groups, [len(values)] * row_groups)


def dictionary_file(
    dictionary: Sequence[bytes] | tuple[int, int],
    runs: Sequence[tuple[int, int]],
    codec: str = "zstd",
) -> bytes:
    """One row group: a dictionary page (its values, or ``(count, length)`` for
    ``count`` values of ``length`` zero bytes each) and one data page of run-length
    encoded indices."""
    crafted = CraftedFile(codec)
    if isinstance(dictionary, tuple):
        count, length = dictionary
        data = (struct.pack("<I", length) + bytes(length)) * count
    else:
        count, data = len(dictionary), plain_values(dictionary)
    start = crafted.page(DICTIONARY_PAGE, data, count, PLAIN)
    rows = sum(n for n, _ in runs)
    data_offset = crafted.page(DATA_PAGE, rle_indices(runs), rows, RLE_DICTIONARY)
    chunk = Chunk(start, len(crafted.body) - start, rows, start, data_offset)
    return crafted.finish([chunk], [rows])
