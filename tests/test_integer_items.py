"""Items written as canonical decimal integers are coded by value: the same answers as
the string path, whichever path a column takes."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scorer import evaluate
from scorer.align import integer_items
from scorer.align import rankings as rankings_module
from scorer.align.integer_items import (
    canonical_integers,
    code_table,
    integer_byte_order_codes,
    integer_codes,
    integer_codes_of_values,
)
from scorer.align.item_lists import ListCells, split_lists
from scorer.align.joins import byte_order_codes
from scorer.align.rankings import GroundTruth, SparseRankings, build_rankings
from tests.fast_paths import force_fast_paths

# Digits, and what makes a token non-canonical: signs, dots, letters, other digits.
_TOKEN = st.text(alphabet="0123456789+-.a\u0663\u00b2", min_size=0, max_size=20)
_SMALL = st.integers(0, 60).map(str)
_NON_CANONICAL = st.sampled_from(
    ["007", "+7", "-7", "7.0", "", "x", "\u0663", "1234567890123456789"]
)


def _canonical(text: str) -> bool:
    """The definition: what ``str(int(text)) == text`` says of ASCII digits."""
    return text.isascii() and text.isdigit() and len(text) <= 18 and str(int(text)) == text


@given(st.lists(_TOKEN, max_size=30))
def test_canonical_integers_accept_exactly_the_canonical_decimal_strings(texts) -> None:
    values = canonical_integers(pa.array(texts, pa.large_string()))
    if all(map(_canonical, texts)):
        assert values is not None
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
        patch.setattr(integer_items, "CHUNK_ROWS", chunk)
        codes = integer_codes(
            pa.array(tokens, pa.large_string()), pa.array(vocabulary, pa.string())
        )
    if not all(map(_canonical, [*tokens, *vocabulary])):
        assert codes is None
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
    assert integer_codes(pa.array(["1", "11"]), vocabulary) is not None
    assert integer_codes(pa.array(["1", "12"]), vocabulary) is None  # 12 >= 2 + 2 + 8
    assert integer_codes(pa.array(["1"]), pa.array(["3000000000"])) is None  # past int32
    monkeypatch.setattr(integer_items, "TABLE_MIN_ENTRIES", 1 << 40)
    assert integer_codes(pa.array(["2147483646"]), vocabulary) is None  # code past int32


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
    block_codes = data.draw(st.sampled_from([1, 5, 1 << 18]))  # blocks of 1 row and up
    # Items read as their values are coded by the values' table as they are placed.
    lists = ListCells(pa.array(rows)).split(integers=data.draw(st.booleans()))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rankings_module, "_PLACED_BLOCK_CODES", block_codes)
        rankings = build_rankings(lists, user_of_row, n_users, width, pa.array(vocabulary))
    codes, first = _reference_rankings(rows, user_of_row, n_users, width, vocabulary)
    assert _as_matrices(rankings, n_users, width) == (codes.tolist(), first.tolist())
    assert rankings.lengths.tolist() == [
        min(len(rows[list(user_of_row).index(user)].split()), width) if user in user_of_row else 0
        for user in range(n_users)
    ]


@pytest.mark.parametrize("chunk", [2, 1 << 20])
def test_a_run_of_integer_items_scores_as_the_same_items_written_as_strings(
    monkeypatch, chunk
) -> None:
    force_fast_paths(monkeypatch, chunk, chunk)
    by_value_calls = []

    def recorded(by_value):  # from the tokens, or from the values the items were read as
        def record(items, vocabulary: pa.Array) -> np.ndarray | None:
            by_value_calls.append(by_value(items, vocabulary))
            return by_value_calls[-1]

        return record

    monkeypatch.setattr(rankings_module, "integer_codes", recorded(integer_codes))
    monkeypatch.setattr(
        rankings_module, "integer_codes_of_values", recorded(integer_codes_of_values)
    )
    monkeypatch.setattr(rankings_module, "code_table", recorded(code_table))  # placed by value
    solution = {"id": ["a", "b", "c", "d"], "items": ["1 2 3", "4", "", "10 2"]}
    submission = {"id": ["d", "a", "b", "c"], "items": ["2 2 10 7", "3 9 1", "5 4", "1"]}
    metrics = ["MAP@3", "R@2", "SetF"]
    by_value = evaluate(pa.table(solution), pa.table(submission), "id", metrics=metrics)
    assert by_value_calls and all(codes is not None for codes in by_value_calls)

    def as_strings(table: dict) -> pa.Table:
        items = [" ".join(f"i{item}" for item in cell.split()) for cell in table["items"]]
        return pa.table({"id": table["id"], "items": items})

    by_string = evaluate(as_strings(solution), as_strings(submission), "id", metrics=metrics)
    assert by_value_calls[-1] is None
    assert by_value.metrics == by_string.metrics
    for name, values in by_value.user_values.items():
        assert np.array_equal(values, by_string.user_values[name], equal_nan=True)


@given(st.lists(st.one_of(st.integers(0, 10**17 - 1), st.integers(0, 1200)).map(str), max_size=30))
def test_integer_byte_order_codes_number_the_distinct_strings_in_byte_order(texts) -> None:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(integer_items, "CHUNK_ROWS", 3)  # keys made over several chunks
        found = integer_byte_order_codes(pa.array(texts))
    if not texts:
        assert found is None
        return
    codes, distinct = found
    expected = sorted(set(texts), key=str.encode)
    assert distinct.to_pylist() == expected
    assert codes.tolist() == [expected.index(text) for text in texts]


def test_byte_order_codes_by_value_and_by_string_agree() -> None:
    texts = ["12", "9", "120", "1", "12", "99999999999999999", "100000000000000000"]
    assert integer_byte_order_codes(pa.array(texts)) is None  # 18 digits: by string
    codes, distinct = byte_order_codes(pa.array(texts))
    assert distinct.to_pylist() == sorted(set(texts))
    assert codes.tolist() == [distinct.to_pylist().index(text) for text in texts]
    by_value = byte_order_codes(pa.array(texts[:-1]))  # 17 digits at most: by value
    expected = sorted(set(texts[:-1]))
    assert by_value[1].to_pylist() == expected
    assert by_value[0].tolist() == [expected.index(text) for text in texts[:-1]]


_CELL_ITEM = st.one_of(
    st.integers(0, 40).map(str),
    st.integers(0, 10**10 - 1).map(str),  # every width the words read, to 10 digits
    st.sampled_from(["2147483647", "2147483648", "007", "0", "x", "+1", "1.0", "\t7", "9 "]),
)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.lists(_CELL_ITEM, max_size=5).map(" ".join), max_size=12),
    st.sampled_from([1, 2, 3, 7, 1 << 23]),
)
def test_cells_read_as_integers_split_exactly_as_their_strings(cells, chunk) -> None:
    """Values for exactly the cells whose items are all canonical integers of at most
    2**31 - 1, in list order, whatever the chunk size; their tokens, head and takes
    the strings' own; any other cells keep their strings."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(integer_items, "_CELL_BYTES", chunk)  # cells in chunks of that many bytes
        lists = ListCells(pa.array(cells, pa.large_string())).split(integers=True)
    strings = split_lists(pa.array(cells, pa.large_string()))
    expected = strings.tokens.to_pylist()
    readable = all(str(int(t)) == t and int(t) < 2**31 for t in expected if t.isdigit())
    readable = readable and all(t.isdigit() for t in expected)
    assert (lists.values is not None) == readable
    assert lists.lengths.tolist() == strings.lengths.tolist()
    assert lists.tokens.to_pylist() == expected
    assert lists.tokens.type == pa.large_string()
    if lists.values is not None:
        assert lists.values.tolist() == [int(t) for t in expected]
        fresh = ListCells(pa.array(cells, pa.large_string())).split(integers=True)
        assert fresh.head(3).to_pylist() == expected[:3]
        picked = np.arange(len(expected))[::-2]
        assert fresh.take(picked).to_pylist() == [expected[i] for i in picked]


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.lists(st.one_of(st.integers(0, 30), st.integers(0, 2**31 - 1)).map(str), max_size=6),
        max_size=12,
    )
)
def test_the_truth_read_as_values_holds_the_same_sets_as_its_strings(rows) -> None:
    cells = pa.array([" ".join(row) for row in rows], pa.large_string())
    by_value = GroundTruth.from_lists(ListCells(cells).split(integers=True))
    by_string = GroundTruth.from_lists(split_lists(cells))

    def relevant_sets(truth: GroundTruth) -> list[set[str]]:
        items = truth.vocabulary.take(pa.array(truth.codes)).to_pylist()
        sets: list[set[str]] = [set() for _ in rows]
        for user, item in zip(truth.users.tolist(), items, strict=True):
            sets[user].add(item)
        return sets

    assert relevant_sets(by_value) == relevant_sets(by_string) == [set(row) for row in rows]
    assert by_value.n_relevant.tolist() == by_string.n_relevant.tolist()
    assert by_value.n_duplicates.tolist() == by_string.n_duplicates.tolist()
    assert sorted(by_value.vocabulary.to_pylist()) == sorted(by_string.vocabulary.to_pylist())
