"""Hostile-cost suite for containers and encodings (docs/formats-and-limits.md, "Resource
contract").

Each test runs the command line as a child under an address-space cap (``tests/cost.py``)
on a crafted input and on a random input of the same stored size, in the same test. It
asserts the documented outcome and exit code (1 for the submission, never 3 or a signal),
peak memory within the contract's bound for what the limits let the child decode, and CPU
time within a small multiple of the random input's (a ratio, never an absolute time).
"""

from __future__ import annotations

import functools
import gzip
import io
import os
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from tests import container_cases
from tests.container_cases import (
    LIMIT,
    SOLUTION,
    TIME_RATIO,
    assert_bounded,
    assert_refused_at_the_limit,
    capped,
    parquet_bytes,
    random_csv,
    random_parquet,
)
from tests.cost import memory_bound, write_bytes

solution = container_cases.solution  # the fixture, for this module's tests


def same_size_random(tmp_path: Path, size: int, wrap) -> Path:
    """A random submission stored as ``size`` bytes or more, wrapped like the crafted one."""
    return write_bytes(tmp_path, "random.sub", wrap(random_csv(size)))


def zipped(data: bytes, method: int, declared_size: int | None = None) -> bytes:
    """``data`` as the one member of a zip, optionally declaring another uncompressed size."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", method) as archive:
        archive.writestr("submission.csv", data)
    raw = bytearray(buffer.getvalue())
    if declared_size is not None:  # patch the local and the central header
        local = raw.index(b"PK\x03\x04")
        raw[local + 22 : local + 26] = declared_size.to_bytes(4, "little")
        central = raw.index(b"PK\x01\x02")
        raw[central + 24 : central + 28] = declared_size.to_bytes(4, "little")
    return bytes(raw)


@functools.cache
def bomb_text() -> bytes:
    """64 MiB of CSV, one row repeated: twice the limit, compressing about 1000 to 1."""
    return b"id,items\n" + b"u,a\n" * (1 << 24)


@functools.cache
def one_item_bomb_text() -> bytes:
    """64 MiB of CSV, one row whose one item repeats one byte: it compresses as well as
    :func:`bomb_text`, and bzip2 takes 0.6 s of CPU to compress it, not the 15 s it takes
    over a repeated row."""
    return b"id,items\nu," + b"a" * (1 << 26) + b"\n"


def test_gzip_bomb_is_refused_by_its_ratio(tmp_path, solution):
    bomb = write_bytes(tmp_path, "bomb.csv.gz", gzip.compress(bomb_text(), 9))
    baseline = same_size_random(tmp_path, bomb.stat().st_size, gzip.compress)
    assert_refused_at_the_limit(solution, bomb, baseline, "Compression ratio too high")


def test_gzip_bomb_under_a_raised_ratio_stops_at_the_decompressed_limit(tmp_path, solution):
    bomb = write_bytes(tmp_path, "bomb.csv.gz", gzip.compress(bomb_text(), 9))
    baseline = same_size_random(tmp_path, bomb.stat().st_size, gzip.compress)
    assert_refused_at_the_limit(
        solution, bomb, baseline, "Decompressed data too large", "--max-compression-ratio", "100000"
    )


@pytest.mark.parametrize(
    ("method", "message"),
    [
        (zipfile.ZIP_BZIP2, "Unsupported compression method"),
        (zipfile.ZIP_LZMA, "Unsupported compression method"),
        (zipfile.ZIP_DEFLATED, "broken zip member (Bad CRC-32"),
    ],
)
def test_zip_member_declaring_a_small_size_is_measured_by_what_it_decodes_to(
    tmp_path, solution, method, message
):
    text = one_item_bomb_text()
    bomb = write_bytes(tmp_path, "bomb.zip", zipped(text, method, declared_size=1000))
    baseline = same_size_random(tmp_path, bomb.stat().st_size, lambda d: zipped(d, method))
    assert_refused_at_the_limit(solution, bomb, baseline, message)


def test_zip_deflate_bomb_is_refused_by_its_ratio(tmp_path, solution):
    bomb = write_bytes(tmp_path, "bomb.zip", zipped(bomb_text(), zipfile.ZIP_DEFLATED))
    baseline = same_size_random(
        tmp_path, bomb.stat().st_size, lambda d: zipped(d, zipfile.ZIP_DEFLATED)
    )
    assert_bounded(
        capped(solution, bomb),
        capped(solution, baseline),
        1,
        "Compression ratio too high",
        LIMIT,
    )


def test_zip_stored_member_over_the_limit_stops_there(tmp_path, solution):
    big = random_csv(2 * LIMIT)
    stored = write_bytes(tmp_path, "big.zip", zipped(big, zipfile.ZIP_STORED, declared_size=1000))
    baseline = write_bytes(tmp_path, "random.csv", big)
    assert_refused_at_the_limit(
        solution,
        stored,
        baseline,
        "broken zip member (Bad CRC-32",
        "--max-input-bytes",
        str(4 * LIMIT),
    )


def assert_parquet_bounded(tmp_path, solution, table: pa.Table, message: str) -> None:
    bomb = write_bytes(tmp_path, "bomb.parquet", parquet_bytes(table, compression="zstd"))
    baseline = write_bytes(tmp_path, "random.parquet", random_parquet(bomb.stat().st_size))
    assert_refused_at_the_limit(solution, bomb, baseline, message)


def test_parquet_dictionary_bomb_stops_at_the_decompressed_limit(tmp_path, solution):
    # One 100 KB item list, repeated 40,000 times: 4 GB of strings from a dictionary.
    rows = 40_000
    items = pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(rows, dtype=np.int32)), pa.array(["a " * 50_000])
    )
    ids = pa.array([f"u{i}" for i in range(rows)])
    assert_parquet_bounded(
        tmp_path, solution, pa.table({"id": ids, "items": items}), "Decompressed data too large"
    )


def test_parquet_run_length_bomb_is_refused_from_its_row_count(tmp_path, solution):
    # 50 million rows of one dictionary index: run-length encoded pages of a few KB.
    rows = 50_000_000
    indices = pa.array(np.zeros(rows, dtype=np.int8))
    items = pa.DictionaryArray.from_arrays(indices, pa.array(["a"]))
    assert_parquet_bounded(
        tmp_path, solution, pa.table({"id": items}), "Decompressed data too large"
    )


def test_parquet_item_list_bomb_is_refused_at_the_decoders_cap(tmp_path, solution):
    # One row whose item list is 2 million references to one 100-byte dictionary value:
    # a batch of one row decodes to 200 MB, past what the decoder may hold.
    n_items = 2_000_000
    values = pa.DictionaryArray.from_arrays(
        pa.array(np.zeros(n_items, dtype=np.int32)), pa.array(["x" * 100])
    ).cast(pa.string())
    lists = pa.ListArray.from_arrays(pa.array([0, n_items], pa.int32()), values)
    table = pa.table({"id": ["u1"], "items": lists})
    assert_parquet_bounded(tmp_path, solution, table, "pages that need more than the 100,663,296")


def test_parquet_null_type_bomb_is_refused_from_its_row_count(tmp_path, solution):
    rows = 100_000_000
    table = pa.table({"id": pa.nulls(rows), "items": pa.nulls(rows)})
    assert_parquet_bounded(tmp_path, solution, table, "Decompressed data too large")


def test_cr_only_file_over_1_mib_is_read_line_by_line(tmp_path, solution):
    text = SOLUTION.replace(b"\n", b"\r")
    # Unknown ids (ignored), over 1 MiB in all: long rows, so that the per-row cost of
    # validation stays small next to the reading this test is about.
    items = b" ".join(b"item-%08d" % j for j in range(8))
    padding = b"".join(b"x%d,%s\r" % (i, items) for i in range(12_000))
    cr_only = write_bytes(tmp_path, "cr.csv", text + padding)
    baseline = write_bytes(tmp_path, "lf.csv", (text + padding).replace(b"\r", b"\n"))
    hostile = capped(solution, cr_only, "--unknown-row-ids", "ignore")
    expected = capped(solution, baseline, "--unknown-row-ids", "ignore")
    assert (hostile.returncode, expected.returncode) == (0, 0), hostile.stderr[-2000:]
    assert hostile.stdout == expected.stdout
    assert hostile.peak_rss_bytes <= memory_bound(len(text + padding) + len(SOLUTION))
    assert hostile.cpu_seconds <= TIME_RATIO * expected.cpu_seconds


def test_nul_byte_late_in_the_file_means_binary(tmp_path, solution):
    text = SOLUTION + b"".join(b"x%d,a\n" % i for i in range(20_000)) + b"x,\x00\n"
    late_nul = write_bytes(tmp_path, "nul.csv", text)
    baseline = write_bytes(tmp_path, "random.csv", random_csv(len(text)))
    assert_bounded(
        capped(solution, late_nul),
        capped(solution, baseline),
        1,
        "binary data: a NUL byte on line 21,002",
        len(text),
    )


def test_header_with_millions_of_columns_is_refused_before_it_is_split(tmp_path, solution):
    header = b"id,items" + b",cc" * (5 * 2**20)  # 15 MiB, 5 million columns
    wide = write_bytes(tmp_path, "wide.csv", header + b"\nu1,a\n")
    baseline = write_bytes(tmp_path, "random.csv", random_csv(len(header)))
    options = ("--max-line-bytes", "64MiB")
    assert_bounded(
        capped(solution, wide, *options),
        capped(solution, baseline, *options),
        1,
        "Too many columns",
        len(header),
    )


def test_random_bytes_are_a_fair_baseline(tmp_path, solution):
    """The random inputs above are read, validated and refused or scored like any file."""
    run = capped(solution, same_size_random(tmp_path, 1 << 20, lambda d: d))
    assert run.returncode == 1, run.stderr
    assert "Unknown row ids" in run.stderr or "unknown" in run.stderr.lower()
    assert os.path.getsize(tmp_path / "random.sub") >= 1 << 20


def _many_member_zip(data: bytes, n_ignored: int) -> bytes:
    """A zip (stored) of one submission and ``n_ignored`` empty ``__MACOSX/`` members,
    which the reader leaves out: written as bytes, one entry header at a time, since
    zipfile takes seconds for a million members."""
    entries = [(b"submission.csv", data)] + [
        (b"__MACOSX/._%07d" % i, b"") for i in range(n_ignored)
    ]
    local, central, offset = [], [], 0
    for name, body in entries:
        crc, size, n = zlib.crc32(body), len(body), len(name)
        head = b"PK\x03\x04" + struct.pack("<5H3I2H", 20, 0, 0, 0, 0, crc, size, size, n, 0)
        local.append(head + name + body)
        central.append(
            b"PK\x01\x02"
            + struct.pack(
                "<6H3I5H2I", 20, 20, 0, 0, 0, 0, crc, size, size, n, 0, 0, 0, 0, 0, offset
            )
            + name
        )
        offset += len(local[-1])
    directory = b"".join(central)
    count = min(len(entries), 0xFFFF)
    end = b"PK\x05\x06" + struct.pack("<4H2IH", 0, 0, count, count, len(directory), offset, 0)
    return b"".join(local) + directory + end


def test_a_zip_of_a_million_ignored_members_is_refused_by_its_directory(tmp_path, solution):
    """Python's zipfile reads an archive's directory whole and makes an object of every
    entry (about 0.6 KB each): a directory past ZIP_DIRECTORY_BYTES is refused from the
    size of that one read, before any entry is made."""
    crafted = write_bytes(tmp_path, "many.zip", _many_member_zip(random_csv(1000), 1_000_000))
    baseline = same_size_random(
        tmp_path, crafted.stat().st_size, lambda d: zipped(d, zipfile.ZIP_DEFLATED)
    )
    assert_bounded(
        capped(solution, crafted), capped(solution, baseline), 1, "directory too large", 1000
    )
