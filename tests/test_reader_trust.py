"""Every reader route, attacked: crafted Parquet files, typed columns and in-memory tables.

Each test here failed before the reader was fixed for it (see the docs/formats-and-limits.md,
"Resource contract"); the capped, timed families are in ``tests/test_hostile_cost_parquet.py``.
"""

from __future__ import annotations

import io
import os
import re
import sys

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import scorer
from scorer import arrays
from scorer.errors import HostVisibleError, ParticipantVisibleError
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


# 1. Column chunks sharing one large page header.


def test_column_chunks_sharing_their_bytes_are_refused(tmp_path):
    data = craft.shared_pages_file([b"u1", b"u2"], row_groups=10, padding=256 << 10)
    assert pq.read_table(io.BytesIO(data)).num_rows == 20  # Arrow reads it: 10 x the page
    with pytest.raises(
        ParticipantVisibleError, match=r"broken Parquet file \(column chunks that overlap"
    ):
        read_table(write(tmp_path, data), ParticipantVisibleError)


# 2 and 3. Dictionary pages: a long value, millions of values, a decoder out of memory.


def test_a_dictionary_value_no_cell_holds_costs_no_refusal(tmp_path):
    # The decoder holds the dictionary (within its cap); only the cells are text.
    data = craft.dictionary_file([b"u1", b"x" * (1 << 20)], [(200_000, 0)])
    table = read_table(write(tmp_path, data), ParticipantVisibleError)
    assert table.column("id").unique().to_pylist() == ["u1"]
    assert table.n_rows == 200_000


def test_a_long_dictionary_value_is_refused_in_the_batch_of_the_cell_holding_it(tmp_path):
    data = craft.dictionary_file([b"u1", b"x" * (1 << 20)], [(70_000, 0), (1, 1), (5, 0)])
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Cell too long.*1 cell longer in column 'id', the longest 1,048,576 bytes"
        r".*'70001'",
    ):
        read_table(write(tmp_path, data), ParticipantVisibleError)


def test_millions_of_empty_dictionary_values_cost_one_check(tmp_path):
    data = craft.dictionary_file((5_000_000, 0), [(3, 0)])
    assert len(data) < 5_000
    table = read_table(write(tmp_path, data), ParticipantVisibleError)
    assert table.column("id").to_pylist() == ["", "", ""]


def test_a_decoder_past_its_memory_is_a_file_too_large(tmp_path):
    # 12 million empty values: Arrow's decoder holds 24 bytes for each, 288 MB, past
    # what the decoder may hold under a limit of 1 MiB.
    data = craft.dictionary_file((12_000_000, 0), [(3, 0)])
    limits = ReadLimits(max_decompressed_bytes=1 << 20)
    with pytest.raises(
        ParticipantVisibleError,
        match=r"(?s)Decompressed data too large.*at most 1,048,576 bytes \(Parquet data\)"
        r".*pages that need more than the 68,157,440 bytes the decoder may hold",
    ):
        read_table(write(tmp_path, data), ParticipantVisibleError, limits)
    assert read_table(write(tmp_path, data), ParticipantVisibleError).n_rows == 3


# 4. One long plain cell.


def test_a_long_plain_cell_is_refused_in_its_batch(tmp_path):
    rng = np.random.default_rng(0)
    long_cell = rng.integers(65, 91, 3 << 20, dtype=np.uint8).tobytes().decode()
    ids = [f"u{i}" for i in range(60_000)]
    ids[30_000] = long_cell
    data = parquet_bytes(pa.table({"id": ids}), use_dictionary=False, compression="zstd")
    limits = ReadLimits(max_decompressed_bytes=32 << 20)
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
    with pytest.raises(ParticipantVisibleError, match=r"broken Parquet file \(.*depth"):
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


# 14. Empty files, and directories of parts.


@pytest.mark.parametrize("writer", ["pandas", "pyarrow"])
def test_an_empty_parquet_file_is_zero_rows(tmp_path, writer):
    # Both writers store one row group of empty column chunks: no data page, only a
    # dictionary page each (their data page offset is 0).
    path = tmp_path / "sub.parquet"
    if writer == "pandas":
        pd.DataFrame({"id": [], "items": []}).to_parquet(path)
    else:
        pq.write_table(pa.table({"id": pa.array([], pa.string()), "items": pa.array([])}), path)
    table = read_table(path, ParticipantVisibleError)
    assert table.names == ("id", "items")
    assert [column.to_pylist() for column in table.columns] == [[], []]


def _parts(folder, frame: pd.DataFrame, sizes: list[int]) -> str:
    folder.mkdir()
    start = 0
    for index, size in enumerate(sizes):
        part = frame.iloc[start : start + size]
        part.to_parquet(folder / f"part-{index}.parquet", index=False)
        start += size
    return str(folder)


def test_an_empty_part_leaves_the_parts_result_as_the_whole(tmp_path):
    from scorer.adapters.parts import evaluate_parts

    submission = pd.DataFrame({"id": ["u2", "u1"], "items": ["c", "b a"]})
    solution_parts = _parts(tmp_path / "solution", SOLUTION, [1, 0, 1])
    submission_parts = _parts(tmp_path / "submission", submission, [0, 2, 0])
    expected = scorer.evaluate(SOLUTION, submission)
    found = evaluate_parts(solution_parts, submission_parts, 2)
    assert found.to_dict() == expected.to_dict()


def test_a_fifo_among_parts_is_refused_not_waited_for(tmp_path):
    import subprocess

    solution_parts = _parts(tmp_path / "solution", SOLUTION, [2])
    submission_parts = _parts(tmp_path / "submission", SOLUTION, [2])
    os.mkfifo(tmp_path / "submission" / "part-9.parquet")
    done = subprocess.run(
        [sys.executable, "-m", "scorer", solution_parts, submission_parts],
        capture_output=True,
        text=True,
        timeout=120,  # reading a FIFO waits for a writer for ever
    )
    assert done.returncode == 1, done.stderr
    assert re.search(
        r"(?s)The file 'part-9.parquet' is invalid.*Not a regular file.*found: +a FIFO",
        done.stderr,
    )


# 15. The decoder's own failures: the file's problem when Arrow crashed on it, the host's
# when the decoder could not run.


@pytest.mark.parametrize(
    ("script", "error", "found"),
    [
        ("import os; os.abort()", ParticipantVisibleError, r"broken Parquet file \(.*SIGABRT"),
        (
            "import os, sys; sys.stderr.write('terminate called after throwing an instance of "
            "std::bad_alloc\\n'); sys.stderr.flush(); os.abort()",
            ParticipantVisibleError,
            r"(?s)Decompressed data too large.*pages that need more than",
        ),
        ("import os, signal; os.kill(os.getpid(), signal.SIGKILL)", HostVisibleError, "SIGKILL"),
        ("raise MemoryError", HostVisibleError, r"exit code 1: MemoryError"),
    ],
)
def test_a_decoder_that_stops_is_the_files_problem_or_the_hosts(
    tmp_path, monkeypatch, script, error, found
):
    from scorer.read import parquet

    decoder = tmp_path / "decoder.py"
    decoder.write_text(script)
    monkeypatch.setattr(parquet, "DECODER", decoder)
    path = write(tmp_path, parquet_bytes(pa.table({"id": ["u1"]})))
    with pytest.raises(error, match=found):
        read_table(path, ParticipantVisibleError)


def test_a_parquet_file_from_a_pipe_is_read_as_from_a_file(tmp_path):
    import threading

    data = parquet_bytes(pa.table({"id": ["u1", "u2"], "items": [["a"], ["b", "c"]]}))
    read_end, write_end = os.pipe()

    def write() -> None:
        with os.fdopen(write_end, "wb") as pipe:
            pipe.write(data)

    writer = threading.Thread(target=write)
    writer.start()
    try:
        table = read_table(f"/dev/fd/{read_end}", ParticipantVisibleError)
    finally:
        writer.join()
        os.close(read_end)
    assert [column.to_pylist() for column in table.columns] == [["u1", "u2"], ["a", "b c"]]


@pytest.mark.parametrize("declared", [0, 5, 1_000])
def test_a_footer_miscounting_its_rows_is_read_as_arrow_reads_its_row_groups(tmp_path, declared):
    # Found by the fuzzer: the decoder ended well, fewer rows than the footer's count
    # came, and the reader took that for a decoder that had failed (a host error).
    data = craft.plain_file([b"u1", b"u2"], declared_rows=declared)
    table = read_table(write(tmp_path, data), ParticipantVisibleError)
    assert table.column("id").to_pylist() == ["u1", "u2"]
