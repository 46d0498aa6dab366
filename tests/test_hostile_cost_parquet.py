"""Hostile-cost suite for the Parquet reader (docs/formats-and-limits.md, "Resource contract").

Each family is a crafted Parquet file of a few kilobytes that once cost quadratic time,
memory over the contract or an internal error. Each test runs the command line as a
child under an address-space cap (``tests/cost.py``) on the crafted file and on a random
Parquet file of the same stored size, in the same test, and asserts the documented
outcome (exit 1, never 3 or a signal), peak memory (the command line's and its Parquet
decoder's) within the contract's bound for what the limits let the child decode, and
CPU time within a small multiple of the random file's.
"""

from __future__ import annotations

import io

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from tests import container_cases
from tests import parquet_craft as craft
from tests.container_cases import (
    assert_bounded,
    assert_refused_at_the_limit,
    capped,
    random_parquet,
)
from tests.cost import DECODED_BYTES_PER_CELL, write_bytes

solution = container_cases.solution  # the fixture, for this module's tests


def crafted_and_random(tmp_path, data: bytes):
    crafted = write_bytes(tmp_path, "crafted.parquet", data)
    baseline = write_bytes(tmp_path, "random.parquet", random_parquet(len(data)))
    return crafted, baseline


def test_row_groups_sharing_one_large_page_header(tmp_path, solution):
    # 1,000 row groups whose column chunks are all the same bytes: one page whose
    # header is 1 MiB long. Walked per row group, that is 1 GB of header parsing.
    data = craft.shared_pages_file([b"u1", b"u2"], row_groups=1_000, padding=1 << 20)
    crafted, baseline = crafted_and_random(tmp_path, data)
    assert_refused_at_the_limit(solution, crafted, baseline, "column chunks that overlap")


#: A larger limit for the dictionary families: a dictionary page may decompress up to it.
DICTIONARY_LIMIT = 256 * 2**20


def assert_dictionary_bounded(
    solution_file, crafted, baseline, message: str | tuple[str, ...]
) -> None:
    """:func:`assert_bounded` under the dictionary limit; ``message`` may be several
    outcomes, any of which is right (the one the run gives is checked)."""
    options = ("--max-decompressed-bytes", str(DICTIONARY_LIMIT))
    hostile = capped(solution_file, crafted, *options)
    messages = (message,) if isinstance(message, str) else message
    found = next((m for m in messages if m in hostile.stderr), messages[0])
    assert_bounded(hostile, capped(solution_file, baseline, *options), 1, found, DICTIONARY_LIMIT)


#: Refused at the decoder's cap: the limit and 64 MiB.
DECODER_CAP = "pages that need more than the 335,544,320 bytes"
#: Refused at the decoder's cap (Arrow's decoder holds 24 bytes a value), or read whole
#: and judged (pyarrow 14's decoder holds fewer, and the crafted file has no item
#: column): either way within the bound.
CAPPED_OR_READ = (DECODER_CAP, "1. Missing columns")


def test_dictionary_of_millions_of_empty_values(tmp_path, solution):
    # 12 million empty values (48 MB of lengths) compressed to a few kilobytes: once
    # walked a value at a time in Python. Arrow's decoder holds 24 bytes for each.
    data = craft.dictionary_file((12_000_000, 0), [(1_000, 0)])
    crafted, baseline = crafted_and_random(tmp_path, data)
    assert_dictionary_bounded(solution, crafted, baseline, CAPPED_OR_READ)


def test_dictionary_of_millions_of_short_values(tmp_path, solution):
    # 10 million one-byte values and one more (50 MB): the same, with values to measure.
    data = craft.dictionary_file([b"u"] * 10_000_000 + [b"u1"], [(1_000, 10_000_000)])
    crafted, baseline = crafted_and_random(tmp_path, data)
    assert_dictionary_bounded(solution, crafted, baseline, CAPPED_OR_READ)


def test_dictionary_bomb_is_refused_at_the_decoders_cap(tmp_path, solution):
    # 60 million empty values: Arrow's decoder would hold 24 bytes for each, 1.4 GB,
    # past what the decoder may hold (the limit and 64 MiB).
    data = craft.dictionary_file((60_000_000, 0), [(1_000, 0)])
    crafted, baseline = crafted_and_random(tmp_path, data)
    assert_dictionary_bounded(solution, crafted, baseline, DECODER_CAP)


def test_dictionary_with_one_long_unused_value(tmp_path, solution):
    # A 4 MiB value no row uses, beside 3 million rows of one short value: once, every
    # batch was sized for rows of 4 MiB, one row at a time. Only the decoder holds it.
    long_value = np.random.default_rng(0).integers(97, 123, 4 << 20, np.uint8).tobytes()
    data = craft.dictionary_file([b"u1", long_value], [(3_000_000, 0)])
    crafted, baseline = crafted_and_random(tmp_path, data)
    assert_refused_at_the_limit(solution, crafted, baseline, "Duplicated row ids")


def test_one_long_plain_cell(tmp_path, solution):
    # One 3 MiB random cell among 200,000 short ones: once, every batch was one row.
    rng = np.random.default_rng(0)
    ids = [f"u{i}" for i in range(200_000)]
    ids[100_000] = rng.integers(97, 123, 3 << 20, np.uint8).tobytes().decode()
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": ids}), sink, use_dictionary=False, compression="zstd")
    crafted, baseline = crafted_and_random(tmp_path, sink.getvalue())
    assert_refused_at_the_limit(solution, crafted, baseline, "Cell too long")


def item_list_file(values: np.ndarray) -> bytes:
    """1,000 rows whose first holds every value as its item list, the others none."""
    offsets = np.full(1_001, len(values), dtype=np.int32)
    offsets[0] = 0
    lists = pa.ListArray.from_arrays(pa.array(offsets), pa.array(values))
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": [f"u{i}" for i in range(1_000)], "items": lists}), sink)
    return sink.getvalue()


def test_item_lists_of_twenty_million_small_integers(tmp_path, solution):
    # One row of 20 million int8 items (a file of 5 KB): read under the default limit,
    # joined a bounded number of items at a time, then refused as a cell over the limit.
    # Its baseline holds as many random items: a file of 20 MB. A list's values are
    # decoded whatever the file's size, so the time that matters is per value.
    n_items = 20_000_000
    crafted = write_bytes(tmp_path, "crafted.parquet", item_list_file(np.ones(n_items, np.int8)))
    random_items = np.random.default_rng(0).integers(1, 100, n_items, dtype=np.int8)
    baseline = write_bytes(tmp_path, "random.parquet", item_list_file(random_items))
    assert crafted.stat().st_size < 10_000
    # What it decodes to: the joined text ("1 1 ... 1") and every item's offset, the
    # ids and every cell's offset.
    decoded = (2 * n_items - 1) + n_items * DECODED_BYTES_PER_CELL
    decoded += sum(len(f"u{i}") for i in range(1_000)) + 2_000 * DECODED_BYTES_PER_CELL
    assert_bounded(
        capped(solution, crafted), capped(solution, baseline), 1, "Cell too long", decoded
    )


def test_item_lists_of_two_million_small_integers_within_the_bound(tmp_path, solution):
    # The same at a tenth of the items: little decoded, so the contract's constant
    # dominates the bound (it peaked at 402 MiB against 332 when decoded in-process).
    n_items = 2_000_000
    crafted = write_bytes(tmp_path, "crafted.parquet", item_list_file(np.ones(n_items, np.int8)))
    random_items = np.random.default_rng(0).integers(1, 100, n_items, dtype=np.int8)
    baseline = write_bytes(tmp_path, "random.parquet", item_list_file(random_items))
    decoded = (2 * n_items - 1) + n_items * DECODED_BYTES_PER_CELL
    decoded += sum(len(f"u{i}") for i in range(1_000)) + 2_000 * DECODED_BYTES_PER_CELL
    assert_bounded(
        capped(solution, crafted), capped(solution, baseline), 1, "Cell too long", decoded
    )


def test_an_unused_long_dictionary_value_beside_a_few_rows(tmp_path, solution):
    # 4 MiB that no row uses, 1,000 rows: next to nothing decoded, so the bound is about
    # the contract's constant (it peaked at 274 MiB against 256 when decoded in-process).
    long_value = np.random.default_rng(0).integers(97, 123, 4 << 20, np.uint8).tobytes()
    data = craft.dictionary_file([b"u1", long_value], [(1_000, 0)])
    crafted, baseline = crafted_and_random(tmp_path, data)
    decoded = 1_000 * (len(b"u1") + DECODED_BYTES_PER_CELL)
    assert_bounded(
        capped(solution, crafted), capped(solution, baseline), 1, "Missing rows", decoded
    )


def test_page_header_of_deeply_nested_lists(tmp_path, solution):
    # 100,000 lists, each holding the next, in an unknown field of a page header.
    data = craft.plain_file([b"u1"], extra=craft.nested_lists(100_000))
    crafted, baseline = crafted_and_random(tmp_path, data)
    assert_refused_at_the_limit(solution, crafted, baseline, "broken Parquet file (")


def _parts(folder, table: pa.Table, n_files: int):
    """``table``'s rows in ``n_files`` Parquet files of ``folder``."""
    folder.mkdir()
    size = -(-table.num_rows // n_files)
    for index in range(n_files):
        pq.write_table(table.slice(index * size, size), folder / f"part-{index:05d}.parquet")
    return folder


def test_many_tiny_parts_cost_a_few_times_one_file_of_their_rows(tmp_path):
    # 1,500 parts of 10 rows a side: each part once took a read of its own (13 times the
    # time of one file of the same rows); one decoder now reads them all, in one pass.
    rows, n_files = 15_000, 1_500
    ids = [f"c{i:07d}" for i in range(rows)]
    items = [f"i{i % 50} i{i * 7 % 50}" for i in range(rows)]
    table = pa.table({"id": ids, "items": items})
    runs = {}
    for name, count in (("parts", n_files), ("one", 1)):
        truth = _parts(tmp_path / f"{name}_solution", table, count)
        predictions = _parts(tmp_path / f"{name}_submission", table, count)
        runs[name] = capped(truth, predictions)
    for run in runs.values():
        assert (run.returncode, run.timed_out) == (0, False), run.stderr[-2000:]
    assert runs["parts"].stdout == runs["one"].stdout
    assert runs["parts"].cpu_seconds <= 4 * runs["one"].cpu_seconds, (
        runs["parts"].cpu_seconds,
        runs["one"].cpu_seconds,
    )
