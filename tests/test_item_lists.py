"""Splitting, aligning and encoding, against plain Python."""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scorer.align import joins
from scorer.align.item_lists import ListCells, split_lists
from scorer.align.joins import StringIndex, first_index_of
from scorer.align.rankings import GroundTruth, build_rankings, item_prints
from tests.fast_paths import force_fast_paths

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


@pytest.fixture
def fast_paths(monkeypatch: pytest.MonkeyPatch) -> pytest.MonkeyPatch:
    """Fixed-width fast paths for any size (normally 50,000+ rows), in small chunks and blocks."""
    force_fast_paths(monkeypatch, chunk_rows=2, block_rows=1)
    return monkeypatch


def _collide(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every fingerprint equal: each fingerprint route must fall back to the exact one."""
    force_fast_paths(monkeypatch, chunk_rows=2, block_rows=1, collide=True)


FIXED = ["0001 0002 0003", "0004 0001 0001", "0002 0009 0005", "0003 0003 0004"]


@pytest.mark.parametrize(
    "cells",
    [FIXED, ["0001 0002", "0003 0004"], ["000 01", "00  1"], ["a b", "c  "], ["ab", "cd"]],
)
def test_fixed_width_lists_are_python_str_split(fast_paths, cells: list[str]) -> None:
    lists = split_lists(pa.array(cells, pa.large_string()))
    expected = [c.split() for c in cells]
    flat = [t for e in expected for t in e]
    # The byte view only for cells that are m equally long tokens joined by single spaces.
    widths = {len(t) for t in flat}
    joined = all(" ".join(e) == c for e, c in zip(expected, cells, strict=True))
    same_count = len({len(e) for e in expected}) == 1
    assert (lists.uniform is not None) == (len(widths) == 1 and joined and same_count)
    assert lists.lengths.tolist() == [len(e) for e in expected]
    assert lists.head(3).to_pylist() == flat[:3]
    assert lists.take(np.array([len(flat) - 1, 0])).to_pylist() == [flat[-1], flat[0]]
    assert lists.tokens.to_pylist() == flat


@pytest.mark.parametrize("collide", [False, True])
def test_fixed_width_rankings_match_the_general_route(fast_paths, collide: bool) -> None:
    solution = pa.array(["0003 0001", "0005", "0004 0003 0001", ""], pa.large_string())
    truth = GroundTruth.from_lists(split_lists(solution))
    user_of_row = np.array([2, 0, 3, 1])  # user 0 is row 1 "0004 0001 0001", ...
    general = build_rankings(split_lists(pa.array(FIXED)), user_of_row, 4, 3, truth.vocabulary)
    assert general.item_bytes is None  # pa.string(), not large_string: the general route
    assert general.first_occurrence().tolist() == [
        [True, True, False],
        [True, False, True],
        [True, True, True],
        [True, True, True],
    ]
    assert truth.relevance(general).tolist() == [
        [False, True, True],
        [False, False, False],
        [True, False, True],
        [False, False, False],
    ]
    assert general.truth_codes.tolist() == [[3, 1, 1], [0, 0, 3], [1, -1, 0], [-1, -1, 2]]
    # Unknown items 0002 and 0009 get codes 4 and 5, in order of first appearance.
    assert general.items.tolist() == [[3, 1, 1], [0, 0, 3], [1, 4, 0], [4, 5, 2]]
    if collide:
        _collide(fast_paths)
    lists = split_lists(pa.array(FIXED, pa.large_string()))
    assert lists.uniform is not None
    for width in (3, 2):
        fast = build_rankings(lists, user_of_row, 4, width, truth.vocabulary)
        expected = build_rankings(
            split_lists(pa.array(FIXED)), user_of_row, 4, width, truth.vocabulary
        )
        assert (fast.item_bytes is not None) == (width == 3)  # fingerprints for full rows only
        assert fast.first_occurrence().tolist() == expected.first_occurrence().tolist()
        assert truth.relevance(fast).tolist() == truth.relevance(expected).tolist()
        assert fast.lengths.tolist() == expected.lengths.tolist()


@pytest.mark.parametrize("item_width", [4, 2])
def test_prints_made_before_the_vocabulary_is_known(fast_paths, item_width: int) -> None:
    """The API makes the predictions' prints while the solution is still being encoded:
    build_rankings keys by them only when the vocabulary's items are as wide."""
    lists = split_lists(pa.array(FIXED, pa.large_string()))
    user_of_row = np.array([2, 0, 3, 1])
    assert item_prints(lists, user_of_row, 4, 2) is None  # rows longer than the width
    assert item_prints(lists, np.array([2, 0, 2, 1]), 4, 3) is None  # a user twice
    prints = item_prints(lists, user_of_row, 4, 3)
    assert prints is not None
    relevant = ["0003 0001", "0005", "0004 0003 0001", ""]
    solution = pa.array(
        [" ".join(i[-item_width:] for i in r.split()) for r in relevant], pa.large_string()
    )
    truth = GroundTruth.from_lists(split_lists(solution))
    ahead = build_rankings(lists, user_of_row, 4, 3, truth.vocabulary, prints)
    expected = build_rankings(split_lists(pa.array(FIXED)), user_of_row, 4, 3, truth.vocabulary)
    assert (ahead.item_bytes is not None) == (item_width == 4)
    assert np.shares_memory(ahead.items, prints.columns) == (item_width == 4)
    assert truth.relevance(ahead).tolist() == truth.relevance(expected).tolist()
    assert truth.relevance(ahead).any() == (item_width == 4)


@pytest.mark.parametrize("collide", [False, True])
def test_string_index_reuses_fingerprints_exactly(fast_paths, collide: bool) -> None:
    if collide:
        _collide(fast_paths)
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


def test_a_fingerprint_collision_with_a_probe_falls_back(fast_paths) -> None:
    aa, bb, zz = (letter * 12 for letter in ("a", "b", "z"))
    index = StringIndex(pa.array([aa, bb], pa.large_string()))
    rows = np.frombuffer((bb + zz).encode(), dtype=np.uint8).reshape(2, 12)
    assert index.match(rows).tolist() == [1, -1]
    # zz given the fingerprint of aa, as a collision would: the bytes refuse the match.
    # (Strings of at most 8 bytes cannot collide: their fingerprint is a bijection.)
    assert index.match(rows, prints=index.prints[[1, 0]]) is None


def test_hints_read_fixed_width_lists(fast_paths) -> None:
    from scorer.check.hints import prediction_hints, solution_hints

    lists = split_lists(pa.array(["706016001 372860001", "372860001 1,2,3,4,5"], pa.large_string()))
    assert lists.uniform is not None
    hints = prediction_hints(lists, np.array([1, 0]), 2)
    assert [(code, rows.tolist()) for code, rows, *_ in hints if rows is not None] == [
        ("comma_separated_lists", [True, False]),
    ]
    truth = GroundTruth.from_lists(split_lists(pa.array(["a", "0706016001"])))
    host = solution_hints(lists, np.array([1, 0]), truth)
    assert [(code, rows.tolist()) for code, rows, *_ in host] == [
        ("leading_zeros_lost_in_submission", [False, True]),
    ]


@settings(
    max_examples=100, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.integers(1, 4),
    st.integers(2, 6),
    st.lists(
        st.text(st.sampled_from(list("0123456789.,e")), min_size=40, max_size=40),
        min_size=2,
        max_size=8,
    ),
)
def test_hints_of_fixed_width_lists_are_those_of_their_tokens(fast_paths, m, w, texts) -> None:
    """Every hint's record for a part of a run (every=True: the digit ids' lengths), and
    every hint of a whole run, from the fixed-width layout's bytes are those of its
    tokens as strings."""
    from scorer.check.hints import lost_zeros, prediction_hints
    from scorer.errors import Finding

    cells = [" ".join(text[j * w : (j + 1) * w] for j in range(m)) for text in texts]
    uniform = split_lists(pa.array(cells, pa.large_string()))
    assert uniform.uniform is not None
    plain = ListCells(pa.array(cells, pa.large_string()), uniform=False).split()
    users = np.arange(len(cells))

    def records(lists, every: bool) -> list:
        hints = prediction_hints(lists, users, len(cells), every)
        found = [
            Finding(code, (*(() if rows is None else (("rows", int(rows.sum())),)), *counts), (), v)
            for code, rows, counts, v in hints
        ]
        return found if every else lost_zeros(found)

    for every in (False, True):
        assert records(uniform, every) == records(plain, every)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.text(alphabet="ab_1é", max_size=5), max_size=12),
    st.lists(st.text(alphabet="ab_1é", max_size=5), max_size=12),
    st.sampled_from(["keyed", "colliding", "unforced"]),
)
def test_string_index_of_any_lengths_finds_the_first_equal(ids, probes, route) -> None:
    # Distinct row ids of several lengths (``42_clicks``) take keyed prints in a hash
    # table; repeated ones, or prints made to collide, the exact sort.
    def first(strings: list[str], text: str) -> int:
        return strings.index(text) if text in strings else -1

    with pytest.MonkeyPatch.context() as patch:
        if route != "unforced":
            force_fast_paths(patch, chunk_rows=3, block_rows=2)
        if route == "colliding":  # every print of one length equal
            patch.setattr(joins, "print_key", lambda: (0, 0))
        index = StringIndex(pa.array(ids, pa.large_string()))
        probe = StringIndex(pa.array(probes, pa.large_string()))
        assert index.find(probe).tolist() == [first(ids, p) for p in probes]
        assert index.first_of_self().tolist() == [first(ids, i) for i in ids]
        assert probe.first_of_self(index.find(probe)).tolist() == [first(probes, p) for p in probes]
        if route != "colliding":  # (colliding, only strings of distinct lengths are keyed)
            distinct = len(set(ids)) == len(ids) > 0
            assert (index._distinct is not None) == (route == "keyed" and distinct)
