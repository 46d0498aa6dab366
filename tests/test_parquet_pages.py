"""Parquet page headers are read as the Parquet reader reads them (scorer.read.parquet_pages)."""

from __future__ import annotations

import io
import tempfile

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.errors import ParticipantVisibleError
from scorer.read.files import ReadLimits, read_table
from scorer.read.parquet_pages import (
    DICTIONARY_PAGE,
    BadPageHeader,
    PageWalker,
    longest_plain_value,
)

OPTIONS = st.fixed_dictionaries(
    {
        "compression": st.sampled_from(["none", "snappy", "zstd", "gzip", "brotli", "lz4"]),
        "use_dictionary": st.booleans(),
        "data_page_version": st.sampled_from(["1.0", "2.0"]),
        "data_page_size": st.sampled_from([64, 1024, 1 << 20]),
        "write_statistics": st.booleans(),
    }
)


def pages_of(data: bytes):
    meta = pq.ParquetFile(io.BytesIO(data)).metadata
    walker = PageWalker(data)
    for group in range(meta.num_row_groups):
        for index in range(meta.num_columns):
            chunk = meta.row_group(group).column(index)
            yield chunk, walker.chunk_pages(chunk)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(max_size=30), min_size=1, max_size=300), OPTIONS)
def test_every_value_of_a_written_file_is_counted_in_its_pages(values, options):
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": values}), sink, row_group_size=100, **options)
    total = 0
    for chunk, pages in pages_of(sink.getvalue()):
        data = [page for page in pages if page.kind != DICTIONARY_PAGE]
        assert sum(page.num_values for page in data) == chunk.num_values
        assert sum(page.uncompressed for page in pages) <= chunk.total_uncompressed_size
        total += sum(page.uncompressed for page in pages)
    # Plain or not, the pages hold the text (UTF-8 bytes) of every distinct value.
    assert total >= sum(len(v.encode()) for v in set(values))


def test_the_longest_dictionary_value_is_found():
    values = ["a", "bbbbbbbbbb", "cc"] * 10
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": values}), sink, compression="none")
    ((_chunk, pages),) = pages_of(sink.getvalue())
    (dictionary,) = [page for page in pages if page.kind == DICTIONARY_PAGE]
    body = sink.getvalue()[dictionary.body : dictionary.body + dictionary.compressed]
    assert longest_plain_value(body, dictionary.num_values) == 10
    with pytest.raises(BadPageHeader, match="shorter than its values"):
        longest_plain_value(body[:-1], dictionary.num_values)


@pytest.mark.parametrize("cut", [1, 5, 12])
def test_a_cut_page_header_is_a_broken_file(tmp_path, cut):
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": ["u1", "u2"]}), sink, compression="none")
    data = bytearray(sink.getvalue())
    ((_chunk, pages),) = pages_of(bytes(data))
    data[pages[0].body - cut : pages[0].body] = b"\xff" * cut  # varints that never end
    path = tmp_path / "sub.parquet"
    path.write_bytes(bytes(data))
    with pytest.raises(ParticipantVisibleError, match=r"broken Parquet file"):
        read_table(path, ParticipantVisibleError)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.text(max_size=40), min_size=1, max_size=400), OPTIONS)
def test_batches_read_exactly_what_pyarrow_reads(values, options):
    sink = io.BytesIO()
    pq.write_table(pa.table({"id": values, "n": range(len(values))}), sink, **options)
    expected = pq.read_table(io.BytesIO(sink.getvalue())).column("id").to_pylist()
    with tempfile.NamedTemporaryFile(suffix=".parquet") as handle:
        handle.write(sink.getvalue())
        handle.flush()
        table = read_table(handle.name, ParticipantVisibleError, ReadLimits(max_columns=5))
    assert table.column("id").to_pylist() == expected
    assert table.column("n").to_pylist() == [str(i) for i in range(len(values))]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(1, 6), st.integers(0, 50), st.integers(0, 9), st.integers(0, 30)),
        min_size=1,
        max_size=8,
    ),
    st.integers(1, 20),
)
def test_the_batch_bound_covers_every_batch(pages, batch_rows):
    """No batch of ``batch_rows`` consecutive rows costs more than the bound says: of a
    page, c of its rows cost at most both ``whole + c * per_row`` and ``c * capped``."""
    import numpy as np

    from scorer.read.files import _worst_batch

    costs = np.array(pages, dtype=float).T
    owner = [i for i, (n, _, _, _) in enumerate(pages) for _ in range(n)]
    worst = 0
    for start in range(len(owner)):
        rows = owner[start : start + batch_rows]
        cost = 0
        for i in set(rows):
            _, whole, per_row, capped = pages[i]
            cost += min(whole + rows.count(i) * per_row, rows.count(i) * capped)
        worst = max(worst, cost)
    assert (
        worst
        <= _worst_batch(costs, batch_rows)
        <= sum(whole + n * per_row for n, whole, per_row, _ in pages)
    )
