"""Every reader route, attacked: crafted Parquet files, typed columns and in-memory tables.

Each test here failed before the reader was fixed for it (see the docs/formats-and-limits.md,
"Resource contract"); the capped, timed families are in ``tests/test_hostile_cost_parquet.py``.
"""

from __future__ import annotations

import io
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scorer
from scorer import arrays
from scorer.errors import ParticipantVisibleError
from scorer.read import parquet_pages
from scorer.read.files import ReadLimits, read_table
from tests import parquet_craft as craft

SOLUTION = pd.DataFrame({"id": ["u1", "u2"], "items": ["a b", "c"]})
NOT_UTF8 = r"(?s)Not UTF-8 text.*expected: text encoded as UTF-8"


def write(tmp_path, data: bytes, name: str = "sub.parquet"):
    path = tmp_path / name
    path.write_bytes(data)
    return path


def parquet_bytes(table: pa.Table, **options) -> bytes:
    sink = io.BytesIO()
    pq.write_table(table, sink, **options)
    return sink.getvalue()


def count_lines(module, run) -> int:
    """How many lines of ``module`` Python executes while ``run()`` runs."""
    count = 0
    path = module.__file__

    def trace(frame, event, arg):
        nonlocal count
        if frame.f_code.co_filename == path:
            if event == "line":
                count += 1
            return trace
        return None

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    return count


# 1. Column chunks sharing one large page header.


def test_column_chunks_sharing_their_bytes_are_refused(tmp_path):
    data = craft.shared_pages_file([b"u1", b"u2"], row_groups=10, padding=256 << 10)
    assert pq.read_table(io.BytesIO(data)).num_rows == 20  # Arrow reads it: 10 x the page
    with pytest.raises(
        ParticipantVisibleError, match=r"broken Parquet file \(column chunks that overlap"
    ):
        read_table(write(tmp_path, data), ParticipantVisibleError)


def test_each_page_header_is_parsed_once(monkeypatch):
    data = craft.shared_pages_file([b"u1"], row_groups=1, padding=64 << 10)
    start = 4
    parsed = []
    original = parquet_pages._read_header
    monkeypatch.setattr(
        parquet_pages, "_read_header", lambda *args: parsed.append(args[1]) or original(*args)
    )
    walker = parquet_pages.PageWalker(data)
    size = len(data) - start - 8 - int.from_bytes(data[-8:-4], "little")
    for _ in range(100):
        (page,) = walker.pages(start, size)
    assert parsed == [start]
    assert page.body - start > 64 << 10


# 2 and 3. Dictionary pages: a long unused value, millions of empty values.


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=40), max_size=60), st.integers(0, 3))
def test_the_longest_dictionary_value_is_the_one_a_walk_finds(values, cut):
    data = craft.plain_values(values)
    expected = max((len(v) for v in values), default=0)
    assert parquet_pages.longest_plain_value(data, len(values)) == expected
    if values and cut:  # a page shorter than its values
        shorter = data[: max(len(data) - cut, 0)]
        if len(shorter) < len(data):
            with pytest.raises(parquet_pages.BadPageHeader, match="shorter than its values"):
                parquet_pages.longest_plain_value(shorter, len(values))


def test_longest_dictionary_value_is_measured_without_a_step_per_value():
    values = [b""] * 50_000 + [b"x" * 300] + [b"ab"] * 50_000
    data = craft.plain_values(values)
    assert parquet_pages.longest_plain_value(data, len(values)) == 300
    lines = count_lines(parquet_pages, lambda: parquet_pages.longest_plain_value(data, len(values)))
    assert lines < 1_000, lines  # a per-value loop runs 300,000 lines


def test_values_of_many_lengths_are_measured_alike():
    values = [b"v" * (i % 997) for i in range(6_000)]  # about 3 MB: several windows
    data = craft.plain_values(values)
    assert parquet_pages.longest_plain_value(data, len(values)) == 996
    assert parquet_pages.longest_plain_value(data, 10) == 9


def test_a_dictionary_value_longer_than_a_cell_is_refused_before_any_cell(tmp_path):
    data = craft.dictionary_file([b"u1", b"x" * (1 << 20)], [(200_000, 0)])
    path = write(tmp_path, data)
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Cell too long.*a dictionary value of 1,048,576 bytes in column 'id' "
        r"\(refused before any cell was decoded\)",
    ):
        read_table(path, ParticipantVisibleError)
    limits = ReadLimits(max_field_bytes=2 << 20)
    assert read_table(path, ParticipantVisibleError, limits).n_rows == 200_000


def test_millions_of_empty_dictionary_values_cost_one_check(tmp_path):
    data = craft.dictionary_file((5_000_000, 0), [(3, 0)])
    assert len(data) < 5_000
    table = read_table(write(tmp_path, data), ParticipantVisibleError)
    assert table.column("id").to_pylist() == ["", "", ""]


# 4. One long plain cell.


def test_a_long_plain_cell_leaves_batches_large_and_is_refused_in_its_batch(tmp_path):
    from scorer.read.files import _Reader

    rng = np.random.default_rng(0)
    long_cell = rng.integers(65, 91, 3 << 20, dtype=np.uint8).tobytes().decode()
    ids = [f"u{i}" for i in range(60_000)]
    ids[30_000] = long_cell
    data = parquet_bytes(pa.table({"id": ids}), use_dictionary=False, compression="zstd")
    limits = ReadLimits(max_decompressed_bytes=32 << 20)
    reader = _Reader("sub.parquet", ParticipantVisibleError, limits)
    buffer = pa.py_buffer(data)
    assert reader.parquet_batch_rows(buffer, pq.ParquetFile(pa.BufferReader(buffer))) >= 64
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Cell too long.*1 cell longer in column 'id', the longest 3,145,728 bytes"
        r".*30001",
    ):
        read_table(write(tmp_path, data), ParticipantVisibleError, limits)


# 5. Item lists of many small integers.


def test_item_lists_are_joined_a_bounded_number_of_items_at_a_time(monkeypatch):
    from scorer.read import columns

    monkeypatch.setattr(columns, "_ITEM_CHUNK", 7)
    values = pa.array(np.arange(-50, 50, dtype=np.int8))
    lists = pa.ListArray.from_arrays(pa.array([0, 0, 33, 33, 100], pa.int32()), values)
    lists = pa.concat_arrays([lists, pa.array([None], lists.type)])
    joined = columns.to_string_array(lists).to_pylist()
    expected = [" ".join(map(str, range(-50, 50)[a:b])) for a, b in ((0, 0), (0, 33), (33, 33))]
    assert joined == [*expected, " ".join(map(str, range(-17, 50))), None]


# 6. Fixed-size binary columns with nulls.


@pytest.mark.parametrize("column", ["id", "items"])
def test_fixed_size_binary_with_nulls_reads_as_text(tmp_path, column):
    solution = pd.DataFrame({"id": ["u1ab", "u2cd"], "items": ["abcd", "efgh"]})
    cells = {
        "id": pa.array([b"u1ab", None, b"u2cd"], pa.binary(4)),
        "items": pa.array([b"abcd", None, b"efgh"], pa.binary(4)),
    }
    other = {"id": ["u1ab", "u3ef", "u2cd"], "items": ["abcd", "x", "efgh"]}
    table = pa.table({name: cells[name] if name == column else other[name] for name in other})
    text = read_table(write(tmp_path, parquet_bytes(table)), ParticipantVisibleError)
    assert text.column(column).to_pylist() == [
        cells[column][0].as_py().decode(),
        None,
        cells[column][2].as_py().decode(),
    ]
    assert arrays.string_offsets(text.column(column)).tolist() == [0, 4, 4, 8]
    if column == "items":
        result = scorer.evaluate(solution, table, k=1, unknown_row_ids="ignore")
        assert result.score == 1.0
    else:
        with pytest.raises(ParticipantVisibleError, match="Empty row ids"):
            scorer.evaluate(solution, write(tmp_path, parquet_bytes(table)), k=1)


# 7 and 9. One UTF-8 rule for every route.


def invalid_text(values: list[bytes]) -> pa.Array:
    return pa.array(values, pa.binary()).view(pa.string())


ROUTES = {
    "csv": lambda tmp_path: write(tmp_path, b"id,items\nu1,a\nu2,\xff\n", "sub.csv"),
    "parquet text": lambda tmp_path: write(
        tmp_path,
        parquet_bytes(pa.table({"id": ["u1", "u2"], "items": invalid_text([b"a", b"\xff"])})),
    ),
    "parquet list": lambda tmp_path: write(
        tmp_path,
        parquet_bytes(
            pa.table(
                {
                    "id": ["u1", "u2"],
                    "items": pa.ListArray.from_arrays(
                        pa.array([0, 1, 2], pa.int32()), invalid_text([b"a", b"\xff"])
                    ),
                }
            )
        ),
    ),
    "parquet list row id": lambda tmp_path: write(
        tmp_path,
        parquet_bytes(
            pa.table(
                {
                    "id": pa.ListArray.from_arrays(
                        pa.array([0, 1, 2], pa.int32()), invalid_text([b"u1", b"\xff"])
                    ),
                    "items": ["a", "c"],
                }
            )
        ),
    ),
    "arrow table": lambda tmp_path: pa.table(
        {"id": ["u1", "u2"], "items": invalid_text([b"a", b"\xff"])}
    ),
    "arrow bytes": lambda tmp_path: pa.table(
        {"id": ["u1", "u2"], "items": pa.array([b"a", b"\xff"], pa.binary())}
    ),
    "pandas string[pyarrow]": lambda tmp_path: pd.DataFrame(
        {
            "id": ["u1", "u2"],
            "items": pd.Series(
                pd.arrays.ArrowStringArray(invalid_text([b"a", b"\xff"])), dtype="string[pyarrow]"
            ),
        }
    ),
    "pandas object bytes": lambda tmp_path: pd.DataFrame(
        {"id": ["u1", "u2"], "items": pd.Series([b"a", b"\xff"], dtype=object)}
    ),
    "pandas object mixed": lambda tmp_path: pd.DataFrame(
        {"id": ["u1", "u2"], "items": pd.Series([["a"], b"\xff"], dtype=object)}
    ),
}


@pytest.mark.parametrize("route", ROUTES)
def test_every_route_refuses_text_that_is_not_utf8_alike(tmp_path, route):
    submission = ROUTES[route](tmp_path)
    with pytest.raises(ParticipantVisibleError, match=NOT_UTF8) as caught:
        scorer.score(SOLUTION, submission, "id")
    where = (
        r"byte 0xff on line 3"
        if route == "csv"
        else r"the cell of column '(items|id)' in data row 2 \(1 = first row\)"
    )
    assert caught.match(rf"found: +{where} is not valid UTF-8")


# 8. A page header of deeply nested Thrift lists.


def test_deeply_nested_page_header_is_a_broken_file(tmp_path):
    data = craft.plain_file([b"u1"], extra=craft.nested_lists(3_000))
    with pytest.raises(
        ParticipantVisibleError, match=r"broken Parquet file \(page header nested too deep\)"
    ):
        read_table(write(tmp_path, data), ParticipantVisibleError)
    shallow = craft.plain_file([b"u1"], extra=craft.nested_lists(10))
    assert read_table(write(tmp_path, shallow), ParticipantVisibleError).n_rows == 1


# 13. A broken Parquet file is described as one.


def test_a_broken_parquet_file_is_not_described_as_csv(tmp_path):
    data = parquet_bytes(pa.table({"id": ["u1"]}))
    with pytest.raises(ParticipantVisibleError) as caught:
        read_table(write(tmp_path, data[:-12] + data[-8:]), ParticipantVisibleError)
    text = str(caught.value)
    assert "broken Parquet file" in text
    assert "expected: a Parquet file as a Parquet writer makes it" in text
    assert "CSV file" not in text.split("fix:")[0]
