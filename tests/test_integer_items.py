"""Items written as canonical decimal integers are coded by value: the same answers as
the join of strings, whichever a column takes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.align import integer_items
from scorer.align import rankings as rankings_module
from scorer.align.integer_items import canonical_integers, integer_codes
from scorer.align.item_lists import split_lists
from scorer.align.joins import byte_order_codes
from scorer.align.rankings import GroundTruth, SparseRankings, build_rankings

# Digits, and what makes a token non-canonical: signs, dots, letters, other digits.
_TOKEN = st.text(alphabet="0123456789+-.a\u0663\u00b2", min_size=0, max_size=20)
_SMALL = st.integers(0, 60).map(str)
_NON_CANONICAL = st.sampled_from(["007", "+7", "-7", "7.0", "", "x", "\u0663", "1234567890"])


def _canonical(text: str) -> bool:
    """The definition: what ``str(int(text)) == text`` says of ASCII digits (at most
    nine of them: every value an int32)."""
    return text.isascii() and text.isdigit() and len(text) <= 9 and str(int(text)) == text


@given(st.lists(_TOKEN, max_size=30), st.sampled_from([1, 3, 1 << 20]))
def test_canonical_integers_accept_exactly_the_canonical_decimal_strings(texts, block) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(integer_items, "BLOCK_ROWS", block)
        values = canonical_integers(pa.array(texts, pa.large_string()))
    if all(map(_canonical, texts)):
        assert values is not None and values.dtype == np.int32
        assert values.tolist() == [int(text) for text in texts]
    else:
        assert values is None


def test_canonical_integers_refuse_nulls_and_take_plain_strings() -> None:
    assert canonical_integers(pa.array(["1", None])) is None
    assert canonical_integers(pa.array(["10", "0"], pa.string())).tolist() == [10, 0]
    assert canonical_integers(pa.array([1, 2])) is None


@settings(max_examples=200, deadline=None)
@given(
    tokens=st.lists(st.one_of(_SMALL, _SMALL, _SMALL, _NON_CANONICAL), max_size=40),
    vocabulary=st.lists(st.one_of(_SMALL, _SMALL, _NON_CANONICAL), unique=True, max_size=15),
    chunk=st.sampled_from([1, 3, 1 << 20]),
)
def test_integer_codes_are_vocabulary_indices_and_equal_exactly_for_equal_items(
    tokens, vocabulary, chunk
) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(integer_items, "BLOCK_ROWS", chunk)
        values = canonical_integers(pa.array(tokens, pa.large_string()))
        codes = None if values is None else integer_codes(values, pa.array(vocabulary, pa.string()))
    if not all(map(_canonical, tokens)):  # the vocabulary's other items match none
        assert values is None
        return
    assert codes is not None and codes.dtype == np.int32
    for code, token in zip(codes.tolist(), tokens, strict=True):
        if token in vocabulary:
            assert code == vocabulary.index(token)
        else:
            assert code >= len(vocabulary)
    same_codes = codes[:, None] == codes[None, :]
    same_tokens = np.array(tokens)[:, None] == np.array(tokens)[None, :]
    assert (same_codes == same_tokens).all()


def test_values_too_large_for_a_table_take_the_string_path(monkeypatch) -> None:
    monkeypatch.setattr(integer_items, "TABLE_MIN_ENTRIES", 8)
    vocabulary = pa.array(["1", "2"])
    assert integer_codes(np.array([1, 11], np.int32), vocabulary) is not None
    assert integer_codes(np.array([1, 12], np.int32), vocabulary) is None  # 12 >= 2 + 2 + 8
    assert canonical_integers(pa.array(["3000000000"])) is None  # ten digits: by string
    # A vocabulary item of ten digits is equal to no item read as a value.
    assert integer_codes(np.array([1], np.int32), pa.array(["3000000000"])).tolist() == [2]


def _reference_rankings(rows, user_of_row, n_users, width, vocabulary):
    """Slow and obvious: each user's first ``width`` items, their vocabulary index
    (-1 outside it), and whether each is its row's first occurrence."""
    codes = np.full((n_users, width), -1)
    first = np.zeros((n_users, width), dtype=bool)
    for row, user in zip(rows, user_of_row, strict=True):
        if user < 0:
            continue
        items = row.split()[:width]
        for rank, item in enumerate(items):
            codes[user, rank] = vocabulary.index(item) if item in vocabulary else -1
            first[user, rank] = item not in items[:rank]
    return codes, first


def _as_matrices(rankings, n_users: int, width: int) -> tuple[list, list]:
    """The vocabulary index of each prediction (-1 outside it) and its first
    occurrences, as ``n_users x width`` lists, whether the rankings are dense or not."""
    first = rankings.first_occurrence()
    if isinstance(rankings, SparseRankings):
        known = np.where(rankings.items < rankings.n_known, rankings.items, -1)
        codes, dense_first = np.full((n_users, width), -1), np.zeros((n_users, width), bool)
        codes[rankings.users, rankings.ranks] = known
        dense_first[rankings.users, rankings.ranks] = first
        return codes.tolist(), dense_first.tolist()
    return rankings.truth_codes.tolist(), first.tolist()


@settings(max_examples=150, deadline=None)
@given(
    data=st.data(),
    n_users=st.integers(1, 6),
    width=st.integers(0, 5),
    prefix=st.sampled_from(["", "i"]),  # integers by value, or the same items as strings
    vocabulary=st.lists(st.integers(0, 9).map(str), unique=True, max_size=6),
)
def test_rankings_are_the_same_by_value_and_by_string(
    data, n_users, width, prefix, vocabulary
) -> None:
    users = data.draw(st.permutations(range(n_users)))
    n_rows = data.draw(st.integers(0, n_users))
    user_of_row = np.array([*users[:n_rows], -1, -1], dtype=np.int64)
    item = st.integers(0, 12).map(lambda value: f"{prefix}{value}")
    rows = [" ".join(data.draw(st.lists(item, max_size=7))) for _ in user_of_row]
    vocabulary = [f"{prefix}{value}" for value in vocabulary]
    block = data.draw(st.sampled_from([1, 5, 1 << 20]))  # predictions placed at a time
    lists = split_lists(pa.array(rows))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rankings_module, "BLOCK_ROWS", block)
        rankings = build_rankings(lists, user_of_row, n_users, width, pa.array(vocabulary))
    codes, first = _reference_rankings(rows, user_of_row, n_users, width, vocabulary)
    assert _as_matrices(rankings, n_users, width) == (codes.tolist(), first.tolist())
    assert rankings.lengths.tolist() == [
        min(len(rows[list(user_of_row).index(user)].split()), width) if user in user_of_row else 0
        for user in range(n_users)
    ]


def test_a_run_of_integer_items_scores_as_the_same_items_written_as_strings(monkeypatch) -> None:
    by_value_calls = []

    def recorded(items, vocabulary: pa.Array) -> np.ndarray | None:
        by_value_calls.append(integer_codes(items, vocabulary))
        return by_value_calls[-1]

    monkeypatch.setattr(rankings_module, "integer_codes", recorded)
    solution = {"id": ["a", "b", "c", "d"], "items": ["1 2 3", "4", "", "10 2"]}
    submission = {"id": ["d", "a", "b", "c"], "items": ["2 2 10 7", "3 9 1", "5 4", "1"]}
    metrics = ["MAP@3", "R@2", "SetF"]
    by_value = evaluate(pa.table(solution), pa.table(submission), "id", metrics=metrics)
    assert by_value_calls and all(codes is not None for codes in by_value_calls)

    def as_strings(table: dict) -> pa.Table:
        items = [" ".join(f"i{item}" for item in cell.split()) for cell in table["items"]]
        return pa.table({"id": table["id"], "items": items})

    n_calls = len(by_value_calls)
    by_string = evaluate(as_strings(solution), as_strings(submission), "id", metrics=metrics)
    assert len(by_value_calls) == n_calls  # strings never reach the table of values
    assert by_value.metrics == by_string.metrics
    for name, values in by_value.user_values.items():
        assert np.array_equal(values, by_string.user_values[name], equal_nan=True)


def test_byte_order_codes_number_digit_strings_in_byte_order() -> None:
    texts = ["12", "9", "120", "1", "12", "99999999999999999", "100000000000000000"]
    codes, distinct = byte_order_codes(pa.array(texts))
    assert distinct.to_pylist() == sorted(set(texts))
    assert codes.tolist() == [distinct.to_pylist().index(text) for text in texts]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.integers(0, 30), st.integers(0, 2**31 - 1)).map(str), max_size=6),
        max_size=12,
    )
)
def test_the_truth_read_as_values_holds_the_same_sets_as_its_strings(rows) -> None:
    """Items of at most nine digits are numbered by value, longer ones (and the same
    items with a letter before them) by Arrow's dictionary: the same sets either way."""
    by_value = GroundTruth.from_lists(split_lists(pa.array([" ".join(row) for row in rows])))
    prefixed = [" ".join(f"i{item}" for item in row) for row in rows]
    by_string = GroundTruth.from_lists(split_lists(pa.array(prefixed)))

    def relevant_sets(truth: GroundTruth) -> list[set[str]]:
        items = truth.vocabulary.take(pa.array(truth.codes)).to_pylist()
        sets: list[set[str]] = [set() for _ in rows]
        for user, item in zip(truth.users.tolist(), items, strict=True):
            sets[user].add(item.removeprefix("i"))
        return sets

    assert relevant_sets(by_value) == relevant_sets(by_string) == [set(row) for row in rows]
    assert by_value.n_relevant.tolist() == by_string.n_relevant.tolist()
    assert by_value.n_duplicates.tolist() == by_string.n_duplicates.tolist()
    stripped = [item.removeprefix("i") for item in by_string.vocabulary.to_pylist()]
    assert sorted(by_value.vocabulary.to_pylist()) == sorted(stripped)
