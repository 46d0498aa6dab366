"""Splitting, aligning and encoding, against plain Python."""

from __future__ import annotations

import sys

import numpy as np
import pyarrow as pa
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer.tokens import GroundTruth, first_index_of, split_lists

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
