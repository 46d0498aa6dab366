"""Random long files for the long layout's tests: rows of (row id, item cell, rank or
score) drawn from awkward values, and files grouped by row id with rising ranks, as most
are written."""

from __future__ import annotations

from hypothesis import strategies as st

ROW_IDS = ["a", "b", "B", "é", "a b", "10", "9", "ß"]
ITEMS = ["x", "y", "X", "é", "z1", "", "  ", " x ", "x y", "\u3000y"]
ONE_ITEM = ["x", "y", "X", "é", "z1", " x "]  # one item in each cell
RANKS = ["1", "2", "3", "10", "01", "0", "-1", "1.5", " 2", "", "x", "999999999999999999"]


def rows_strategy(values):
    row = st.tuples(st.sampled_from(ROW_IDS), st.sampled_from(ITEMS), st.sampled_from(values))
    return st.lists(row, max_size=40)


@st.composite
def grouped_ranked_rows(draw):
    """A long file as most are written: each row id's rows together, ranks rising."""
    ids = draw(st.lists(st.sampled_from(ROW_IDS), unique=True, max_size=len(ROW_IDS)))
    rows = []
    for row_id in ids:
        n_items = draw(st.integers(1, 5))
        ranks = sorted(
            draw(st.lists(st.integers(1, 30), min_size=n_items, max_size=n_items, unique=True))
        )
        padded = draw(st.booleans())
        for rank in ranks:
            rows.append(
                (row_id, draw(st.sampled_from(ONE_ITEM)), f"{rank:03d}" if padded else str(rank))
            )
    return rows
