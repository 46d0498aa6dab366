"""A long file's row ids read as runs, and a file grouped by row id and ranked pivoted
without coding its row ids in byte order (``_grouped_and_ranked``): the reader's runs
against its plain columns on any bytes, the pivot against the general one on any rows,
and the whole run against its wide equivalent.
"""

from __future__ import annotations

import dataclasses
import itertools

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
from scorer.read import files
from scorer.read.limits import ReadLimits
from tests.long_cases import RANKS, grouped_ranked_rows, rows_strategy


def _read(data: bytes, runs: bool) -> tuple:
    """The reader's columns (run-end encoded ones as their runs), parsed in blocks of 32
    bytes; or its refusal."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "_PARSE_BLOCK_BYTES", 1)  # blocks of 2 x max_line_bytes
        reader = files._Reader("s.csv", ParticipantVisibleError, ReadLimits(max_line_bytes=16))
        reader = dataclasses.replace(reader, runs=runs)
        try:
            table = reader.parse_csv(data)
        except ParticipantVisibleError as exc:
            return ("error", str(exc))
    return table.names, [
        (column.values.to_pylist(), column.run_ends.to_pylist())
        if pa.types.is_run_end_encoded(column.type)
        else column.to_pylist()
        for column in table.columns
    ]


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from(["a", "b", "ab", "", '"a"']), st.sampled_from(["x", "1"])),
        max_size=40,
    ),
    st.sampled_from(["\n", "\r\n"]),
)
def test_a_column_read_as_runs_holds_the_columns_values(rows, line_end) -> None:
    """Every block's runs joined into one array, a run across a block's end one run."""
    data = ("id,item" + line_end + "".join(f"{a},{b}{line_end}" for a, b in rows)).encode()
    plain, encoded = _read(data, False), _read(data, True)
    if plain[0] == "error":
        assert encoded == plain
        return
    assert encoded[0] == plain[0]
    for column, found in zip(plain[1], encoded[1], strict=True):
        if isinstance(found, tuple):
            values, ends = found
            assert all(a != b for a, b in itertools.pairwise(values))  # runs at longest
            assert np.repeat(values, np.diff([0, *ends])).tolist() == column
        else:
            assert found == column


def test_a_long_files_row_ids_come_as_runs(tmp_path) -> None:
    path = tmp_path / "submission.csv"
    lines = (b"%09d,%010d,%d\n" % (i // 10, i, i % 10 + 1) for i in range(50_000))
    path.write_bytes(b'"id","item","rank"\n' + b"".join(lines))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(files, "_PARSE_BLOCK_BYTES", 1 << 16)  # runs across blocks' ends
        ids, items, ranks = files.read_table(path, ParticipantVisibleError, runs=True).columns
    assert pa.types.is_run_end_encoded(ids.type) and len(ids.values) == 5_000
    assert ids.to_pylist()[-1] == f"{4_999:09d}"
    assert ranks.to_pylist()[8:11] == ["9", "10", "1"]
    assert pa.types.is_large_string(items.type) and pa.types.is_large_string(ranks.type)


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


def test_a_long_csv_scores_as_its_wide_equivalent(tmp_path) -> None:
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
    expected = evaluate(
        solution, pd.DataFrame(wide, columns=["id", "items"]), "id", metrics=metrics
    )
    assert evaluate(solution, path, "id", **options).metrics == expected.metrics
