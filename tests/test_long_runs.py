"""A file grouped by row id and ranked is pivoted without coding its row ids in byte
order (``_grouped_and_ranked``), its row ids as runs or not: against the general pivot,
on any rows, and the whole run against its wide equivalent.
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
from tests.test_long_layout import RANKS, grouped_ranked_rows, rows_strategy


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
        patch.setattr(long_layout, "CHUNK_ROWS", 2)  # the ranks checked in several chunks
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
