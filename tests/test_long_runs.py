"""A long file read as runs, without the parser, pivots exactly as the plain route.

Lines whose columns but the last have one width are read from their line ends
(``split_prefixed_lines``), a column of runs of equal values (a long file's row ids)
may come back run-end encoded, and a file grouped by row id and ranked is pivoted
without coding its row ids in byte order (``_grouped_and_ranked``): each against the
parser and the general pivot, on any bytes and any rows.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.align import long_layout
from scorer.align.long_layout import long_to_wide
from scorer.arrays import run_end_encoded
from scorer.errors import ParticipantVisibleError
from scorer.read import files, fixed_lines
from scorer.read.files import DEFAULT_LIMITS
from tests.test_long_layout import RANKS, grouped_ranked_rows, rows_strategy


def _small_chunks(patch: pytest.MonkeyPatch) -> None:
    """Every chunked pass of the route takes several turns."""
    for name, value in (("_SCAN_BYTES", 7), ("BLOCK_ROWS", 2), ("_SAMPLE_LINES", 3)):
        patch.setattr(fixed_lines, name, value)
    patch.setattr(fixed_lines, "_HEAD_BYTES", 16)


def _read(data: bytes, route: bool, runs: bool = False) -> tuple:
    """What the CSV reader makes of the bytes, through the routes without the parser
    (in small chunks) or through the parser alone; run-end encoded columns decoded."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "FIXED_LINES_MIN_ROWS", 1 if route else 10**12)
        _small_chunks(patch)
        reader = files._Reader(
            "submission.csv", ParticipantVisibleError, DEFAULT_LIMITS, None, runs
        )
        try:
            table = reader.parse_csv(data)
        except ParticipantVisibleError as exc:
            return ("error", str(exc))
    types = [
        c.type.value_type if pa.types.is_run_end_encoded(c.type) else c.type for c in table.columns
    ]
    return table.names, types, [column.to_pylist() for column in table.columns]


PLAIN = b"ab ,-"
ODD = b'\n\r\t"\x00\xc3\xa9\x7f'


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 3), min_size=1, max_size=3),
    st.lists(st.tuples(st.integers(0, 3), st.integers(0, 2), st.integers(0, 4)), max_size=30),
    st.lists(st.tuples(st.integers(0, 400), st.sampled_from(PLAIN + ODD)), max_size=3),
    st.sampled_from([0, 0, 0, 1, -1]),
    st.sampled_from([b"\n", b"\r\n"]),
    st.booleans(),
)
@example([2], [(0, 0, 1), (0, 1, 2), (1, 0, 0)], [], 0, b"\n", True)
def test_lines_of_one_layout_but_the_last_column_read_as_the_parser_reads_them(
    widths, lines, edits, extra_columns, line_end, runs
):
    """Fixed-width columns (their values drawn from a few, so that runs occur), a last
    column of any width, then a few bytes changed anywhere; the header mostly with as
    many columns as the lines."""
    n_columns = max(len(widths) + 1 + extra_columns, 1)
    header = b",".join(b"c%d" % i for i in range(n_columns)) + line_end
    body = bytearray()
    for value, run, last in lines:
        fields = [(b"%d" % ((value + run * i) % 10)) * width for i, width in enumerate(widths)]
        body += b",".join([*fields, b"x" * last]) + line_end
    for position, byte in edits:
        if body:
            body[position % len(body)] = byte
    data = header + bytes(body)
    assert _read(data, True, runs) == _read(data, False)


def test_a_long_file_of_ranks_of_two_widths_takes_the_route_and_reads_its_ids_as_runs(
    tmp_path,
) -> None:
    """At the default threshold, without the parser: the row ids as runs."""
    n = files.FIXED_LINES_MIN_ROWS
    path = tmp_path / "submission.csv"
    lines = (b"%09d,%010d,%d\n" % (i // 10, i, i % 10 + 1) for i in range(n))
    path.write_bytes(b'"id","item","rank"\n' + b"".join(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files.pacsv, "read_csv", None)  # the parser cannot be called
        table = files.read_table(path, ParticipantVisibleError, runs=True)
    ids, items, ranks = table.columns
    assert pa.types.is_run_end_encoded(ids.type) and len(ids.values) == n // 10
    assert ids.to_pylist()[-1] == f"{(n - 1) // 10:09d}"
    assert ranks.to_pylist()[8:11] == ["9", "10", "1"]
    assert pa.types.is_large_string(items.type)


def _run_encoded(ids: list[str]) -> pa.Array:
    """The row ids as runs of equal neighbours, as the reader gives them."""
    starts = [i for i in range(len(ids)) if i == 0 or ids[i] != ids[i - 1]]
    ends = [*starts[1:], len(ids)]
    values = pa.array([ids[i] for i in starts], pa.large_string())
    return run_end_encoded(np.asarray(ends, dtype=np.int64), values)


def _pivots(rows, encoded: bool):
    ids = [r[0] for r in rows]
    row_ids = _run_encoded(ids) if encoded and ids else pa.array(ids, pa.large_string())
    cells = pa.array([r[1] for r in rows], pa.large_string())
    ranks = pa.array([r[2] for r in rows], pa.large_string())
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(long_layout, "BLOCK_ROWS", 2)  # the ranks checked in several chunks
        shortcut = long_to_wide(row_ids, cells, ranks=ranks, find_repeats=False)
    # find_repeats=True never takes the shortcut: the general pivot, the reference.
    return shortcut, long_to_wide(pa.array(ids, pa.large_string()), cells, ranks=ranks)


@settings(max_examples=300, deadline=None)
@given(st.one_of(grouped_ranked_rows(), rows_strategy(RANKS)), st.booleans())
@example([("a", "x", "1"), ("b", "y", "2"), ("a", "z", "3")], True)  # a row id in two runs
@example([("a", "x", "1"), ("a", "y", "3"), ("a", "z", "2")], False)  # falls between chunks
def test_grouped_and_ranked_files_pivot_as_the_general_path(rows, encoded):
    """Row ids (in order), lists and problems bit for bit, row ids read as runs or not."""
    shortcut, general = _pivots(rows, encoded)
    assert shortcut.row_ids.to_pylist() == general.row_ids.to_pylist()
    assert shortcut.row_ids.type == general.row_ids.type
    assert shortcut.items.to_pylist() == general.items.to_pylist()
    assert shortcut.items.type == general.items.type
    assert shortcut.problems == general.problems


def test_a_long_csv_read_as_runs_scores_as_its_wide_equivalent(tmp_path) -> None:
    """The whole run: the route and runs (forced at a small size, the parser barred)
    against the parser, and both against the wide file."""
    rng = np.random.default_rng(5)
    ids = [f"u{i:03d}" for i in range(60)]
    catalogue = ["xx", "yy", "XX", "z1", "qq", "rr"]
    lines, wide = [], []
    for row_id in ids:
        items = list(rng.choice(catalogue, size=rng.integers(1, 11)))
        wide.append((row_id, " ".join(items)))
        lines += [f"{row_id},{item},{rank + 1}" for rank, item in enumerate(items)]
    path = tmp_path / "long.csv"
    path.write_text("id,items,rank\n" + "\n".join(lines) + "\n", encoding="utf-8")
    solution = pd.DataFrame({"id": ids, "items": rng.choice(catalogue, size=len(ids))})
    metrics = ["MAP@10", "nDCG@10"]
    options = {"layout": "long", "rank_column_name": "rank", "metrics": metrics}
    results = []
    for route in (True, False):
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(files, "FIXED_LINES_MIN_ROWS", 1 if route else 10**12)
            if route:
                patch.setattr(files.pacsv, "read_csv", None)
            _small_chunks(patch)
            results.append(evaluate(solution, path, "id", **options).metrics)
    expected = evaluate(
        solution, pd.DataFrame(wide, columns=["id", "items"]), "id", metrics=metrics
    )
    assert results[0] == results[1] == expected.metrics
