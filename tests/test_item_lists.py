"""Splitting, aligning and encoding, against plain Python."""

from __future__ import annotations

import sys
import tracemalloc

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.align.item_lists import ListCells, SplitLists, split_lists
from scorer.align.joins import StringIndex, first_index_of
from scorer.align.rankings import GroundTruth, build_rankings
from tests.seams import collide_prints, small_blocks

PYTHON_WHITESPACE = [chr(c) for c in range(sys.maxunicode + 1) if chr(c).isspace()]
pieces = st.one_of(
    st.sampled_from(PYTHON_WHITESPACE),
    st.sampled_from(["a", "é", "𨿮", "0706016001", "x,y", "\u200b", "\u180e"]),
    st.text(max_size=3),
)
cells = st.lists(pieces, max_size=12).map("".join)


@settings(max_examples=500)
@given(st.lists(st.one_of(cells, st.none()), min_size=1, max_size=6))
def test_split_lists_is_python_str_split(values: list[str | None]) -> None:
    lists = split_lists(pa.array(values, pa.large_string()))
    expected = [(v or "").split() for v in values]
    assert lists.lengths.tolist() == [len(e) for e in expected]
    assert lists.tokens.to_pylist() == [t for e in expected for t in e]


integer_cells = st.lists(
    st.one_of(st.integers(0, 10**9).map(str), st.sampled_from(["", " ", "007", "x"])), max_size=5
).map("  ".join)


@settings(max_examples=300)
@given(
    st.lists(st.one_of(cells, integer_cells, st.none()), min_size=1, max_size=12),
    st.integers(1, 4),
    st.booleans(),
)
def test_items_counted_from_the_bytes_and_from_the_split_agree(
    values: list[str | None], block_rows: int, counted_first: bool
) -> None:
    # Cells in blocks of a few rows, with integer items or not: the lengths counted from
    # the spaces (asked for before the split, as a check of k does) and those each
    # block's split gives are both str.split()'s, and so are the items placed by them.
    with pytest.MonkeyPatch.context() as patch:
        small_blocks(patch, block_rows)
        cells_of = ListCells(pa.array(values, pa.large_string()))
        counted = cells_of.lengths.tolist() if counted_first else None
        lists = cells_of.split()
    expected = [(v or "").split() for v in values]
    assert lists.lengths.tolist() == [len(e) for e in expected]
    assert counted in (None, lists.lengths.tolist())
    assert ListCells(pa.array(values, pa.large_string())).lengths.tolist() == [
        len(e) for e in expected
    ]
    assert lists.tokens.to_pylist() == [t for e in expected for t in e]


def test_trailing_unicode_whitespace_is_not_a_token() -> None:
    # pyarrow's utf8_split_whitespace returns '\u3000' here; str.split() returns nothing.
    lists = split_lists(pa.array(["\t bb \u3000", "é \n"]))
    assert lists.tokens.to_pylist() == ["bb", "é"]


@given(st.lists(st.text(max_size=3), max_size=8), st.lists(st.text(max_size=3), max_size=8))
def test_first_index_of_is_a_first_match_lookup(values: list[str], candidates: list[str]) -> None:
    expected = [candidates.index(v) if v in candidates else -1 for v in values]
    found = first_index_of(pa.array(values, pa.large_string()), pa.array(candidates, pa.string()))
    assert found.tolist() == expected


@given(st.lists(st.lists(st.sampled_from("abcde"), max_size=6), min_size=1, max_size=6))
def test_ground_truth_counts_unique_items(rows: list[list[str]]) -> None:
    truth = GroundTruth.from_lists(split_lists(pa.array([" ".join(r) for r in rows])))
    assert truth.n_relevant.tolist() == [len(set(r)) for r in rows]
    assert truth.n_duplicates.tolist() == [len(r) - len(set(r)) for r in rows]
    vocabulary = truth.vocabulary.to_pylist()
    n_codes = len(vocabulary) + 1  # every code plus the -1 padding
    users = np.repeat(np.arange(len(rows)), n_codes)[:, None]
    codes = np.tile(np.arange(-1, len(vocabulary)), len(rows))[:, None]
    contained = truth.contains(users, codes).ravel().tolist()
    expected = [
        code >= 0 and vocabulary[code] in rows[user]
        for user, code in zip(users.ravel(), codes.ravel(), strict=True)
    ]
    assert contained == expected


FIXED = ["0001 0002 0003", "0004 0001 0001", "0002 0009 0005", "0003 0003 0004"]


@pytest.mark.parametrize("collide", [False, True])
def test_rankings_code_and_judge_every_prediction(collide: bool) -> None:
    solution = pa.array(["0003 0001", "0005", "0004 0003 0001", ""], pa.large_string())
    truth = GroundTruth.from_lists(split_lists(solution))
    user_of_row = np.array([2, 0, 3, 1])  # user 0 is row 1 "0004 0001 0001", ...
    with pytest.MonkeyPatch.context() as patch:
        if collide:
            collide_prints(patch)
        rankings = build_rankings(split_lists(pa.array(FIXED)), user_of_row, 4, 3, truth.vocabulary)
    assert rankings.first_occurrence().tolist() == [
        [True, True, False],
        [True, False, True],
        [True, True, True],
        [True, True, True],
    ]
    assert truth.relevance(rankings).tolist() == [
        [False, True, True],
        [False, False, False],
        [True, False, True],
        [False, False, False],
    ]
    assert rankings.truth_codes.tolist() == [[3, 1, 1], [0, 0, 3], [1, -1, 0], [-1, -1, 2]]
    # Unknown items 0002 and 0009 get codes 4 and 5, in order of first appearance.
    assert rankings.items.tolist() == [[3, 1, 1], [0, 0, 3], [1, 4, 0], [4, 5, 2]]


@pytest.mark.parametrize("collide", [False, True])
def test_string_index_finds_first_equals_exactly(collide: bool) -> None:
    with pytest.MonkeyPatch.context() as patch:
        if collide:
            collide_prints(patch)
        ids = pa.array(["aa", "bb", "cc", "dd", "ee"], pa.large_string())
        repeated = pa.array(["cc", "aa", "cc", "zz", "bb"], pa.large_string())
        index, probe = StringIndex(ids), StringIndex(repeated)
        assert probe.first_of_self().tolist() == [0, 1, 0, 3, 4]
        assert index.first_of_self().tolist() == [0, 1, 2, 3, 4]
        assert index.find(probe).tolist() == [2, 0, 2, -1, 1]
        assert probe.find(index).tolist() == [1, 4, 0, -1, -1]
        assert index.find(pa.array(["ee", "e", None], pa.large_string())).tolist() == [4, -1, -1]
        # Matches in another index prove distinct strings only when they are all distinct.
        assert probe.first_of_self(index.find(probe)).tolist() == [0, 1, 0, 3, 4]
        shuffled = StringIndex(pa.array(["dd", "aa", "ee", "cc", "bb"], pa.large_string()))
        assert shuffled.first_of_self(index.find(shuffled)).tolist() == [0, 1, 2, 3, 4]


def test_hints_read_lists_of_one_width() -> None:
    from scorer.check.hints import prediction_hints, solution_hints

    lists = split_lists(pa.array(["706016001 372860001", "372860001 1,2,3,4,5"], pa.large_string()))
    hints = prediction_hints(lists, np.array([1, 0]), 2)
    assert [(code, rows.tolist()) for code, rows, *_ in hints if rows is not None] == [
        ("comma_separated_lists", [True, False]),
    ]
    truth = GroundTruth.from_lists(split_lists(pa.array(["a", "0706016001"])))
    host = solution_hints(lists, np.array([1, 0]), truth)
    assert [(code, rows.tolist()) for code, rows, *_ in host] == [
        ("leading_zeros_lost_in_submission", [False, True]),
    ]


def test_hints_of_integer_items_read_no_id_since_none_is_zero_padded(monkeypatch) -> None:
    # Items read as values are canonical integers: no hint about lost zeros can pair them
    # with a bare solution item, so the hints end before reading any id's first byte
    # (OTTO's 90 million), and say what they say of the same ids kept as strings.
    from scorer.check import hints as module

    as_values = split_lists(pa.array(["0 7 12", "300 0", ""], pa.large_string()))
    assert as_values.values is not None
    as_strings = SplitLists(as_values.lengths, as_values.tokens)
    users = np.array([2, 0, 1])

    def said(lists: SplitLists, truth: GroundTruth) -> list:
        found = [
            *module.prediction_hints(lists, users, 3),
            *module.solution_hints(lists, users, truth),
        ]
        return [
            (code, None if rows is None else rows.tolist(), counts)
            for code, rows, counts, _ in found
        ]

    bare, padded = (
        GroundTruth.from_lists(split_lists(pa.array(items)))
        for items in (["7", "12"], ["0300", "7"])
    )
    assert said(as_values, padded) == said(as_strings, padded)  # "300" lost its zero
    assert any(code == "leading_zeros_lost_in_submission" for code, *_ in said(as_values, padded))
    expected = said(as_strings, bare)
    monkeypatch.setattr(module._Ids, "first", property(lambda ids: pytest.fail("read every id")))
    assert said(as_values, bare) == expected


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab_1é", max_size=5), max_size=12),
    st.lists(st.text(alphabet="ab_1é", max_size=5), max_size=12),
    st.sampled_from(["prints", "colliding", "small blocks"]),
)
def test_string_index_of_any_lengths_finds_the_first_equal(ids, probes, route) -> None:
    def first(strings: list[str], text: str) -> int:
        return strings.index(text) if text in strings else -1

    with pytest.MonkeyPatch.context() as patch:
        if route == "small blocks":
            small_blocks(patch, 2)
        if route == "colliding":
            collide_prints(patch)
        index = StringIndex(pa.array(ids, pa.large_string()))
        probe = StringIndex(pa.array(probes, pa.large_string()))
        assert index.find(probe).tolist() == [first(ids, p) for p in probes]
        assert index.first_of_self().tolist() == [first(ids, i) for i in ids]
        assert probe.first_of_self(index.find(probe)).tolist() == [first(probes, p) for p in probes]
        assert index.distinct == (len(set(ids)) == len(ids))


def test_a_long_cell_is_counted_in_memory_of_its_own_size() -> None:
    # Items are counted before a split (a check of k) with a mask of the cell's bytes and
    # the places of a window of spaces at a time, never 8 bytes for every item of a cell.
    text = " ".join(["a"] * 2_000_000)
    cells = ListCells(pa.array([text], pa.large_string()))
    tracemalloc.start()
    try:
        lengths = cells.lengths
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lengths.tolist() == [2_000_000]
    assert peak <= 2 * len(text), f"{peak:,} bytes to count a cell of {len(text):,}"
